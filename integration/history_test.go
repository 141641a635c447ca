package integration

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Histories checked against models, as Jepsen does: concurrent clients
// record each operation's call and return times and outcome, and porcupine
// decides whether some order of the operations, each taking effect at one
// instant between its call and its return, explains every outcome. An
// operation whose outcome is unknown (a timeout, a 5xx, a connection lost
// with the request sent) may take effect at any time after its call, or
// never: it is recorded with no return.

// outcome is what a client learnt of a write.
type outcome int

const (
	applied  outcome = iota // acknowledged
	refused                 // its condition was false: not applied
	conflict                // cancelled for a conflict: not applied, condition unknown
	unknown                 // may or may not have applied, at any time after the call
)

// classify returns the outcome of a write that returned err, and false for
// an error no correct server gives for the workload (a test or server bug).
func classify(err error) (outcome, bool) {
	if err == nil {
		return applied, true
	}
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return refused, true
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		codes := make([]string, 0, len(tce.CancellationReasons))
		for _, r := range tce.CancellationReasons {
			if c := derefString(r.Code); c != "" && c != "None" {
				codes = append(codes, c)
			}
		}
		switch {
		case len(codes) > 0 && allEqual(codes, "ConditionalCheckFailed"):
			return refused, true
		case len(codes) > 0 && allEqual(codes, "TransactionConflict"):
			return conflict, true
		}
		return unknown, true
	}
	var tc *types.TransactionConflictException
	if errors.As(err, &tc) {
		return conflict, true
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return conflict, true // never reached a server: not applied
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorFault() == smithy.FaultClient && ae.ErrorCode() != "ThrottlingException" {
		return unknown, false // a 4xx the workload never provokes
	}
	return unknown, true
}

func derefString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func allEqual(xs []string, v string) bool {
	for _, x := range xs {
		if x != v {
			return false
		}
	}
	return true
}

// recorder collects the operations of concurrent clients.
type recorder struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
	// counts by kind of outcome, for the report
	counts   [4]int
	reads    int
	eventual int     // of the reads
	crashes  []int64 // when the server was killed (crashed)
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

func (r *recorder) now() int64 { return int64(time.Since(r.start)) }

// add records an operation called at call that returned now with oc.
func (r *recorder) add(client int, in, out any, call int64, oc outcome) {
	ret := r.now()
	r.mu.Lock()
	if oc == unknown {
		ret = math.MaxInt64 // it may take effect at any time after the call
		for _, at := range r.crashes {
			if at >= call {
				ret = at // ... before the server was killed, or never
				break
			}
		}
	}
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
	r.counts[oc]++
	r.mu.Unlock()
}

// addRead records a read called at call that returned now.
func (r *recorder) addRead(client int, in, out any, call int64) {
	ret := r.now()
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
	r.reads++
	r.mu.Unlock()
}

// addLagging records an eventually consistent read called at call that
// returned now, from a server whose reads lag by at most lag: the value it
// returns must have been current at some instant in [call-lag, now], so it
// is recorded over that interval (a millisecond wider for the clocks'
// rounding) and checked as a strong read.
func (r *recorder) addLagging(client int, in, out any, call int64, lag time.Duration) {
	ret := r.now()
	slack := int64(time.Millisecond)
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Output: out,
		Call: call - int64(lag) - slack, Return: ret})
	r.reads++
	r.eventual++
	r.mu.Unlock()
}

// crashed bounds the operations of unknown outcome called before at: the
// server was killed then, so they took effect before it or never (a
// restarted server does not carry out its predecessor's requests). It
// keeps the checker's search small.
func (r *recorder) crashed(at int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.crashes = append(r.crashes, at)
	for i, op := range r.ops {
		if op.Return == math.MaxInt64 && op.Call <= at {
			r.ops[i].Return = at
		}
	}
}

func (r *recorder) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%d operations: %d reads (%d eventually consistent), %d writes acknowledged, %d refused by their condition, %d not applied (a conflict, or no server listening), %d unknown",
		len(r.ops), r.reads, r.eventual, r.counts[applied], r.counts[refused], r.counts[conflict], r.counts[unknown])
}

// check checks the history against model within timeout; on a violation it
// writes porcupine's visualization and fails the test naming the file.
func (r *recorder) check(t *testing.T, name string, model porcupine.Model, timeout time.Duration) porcupine.CheckResult {
	t.Helper()
	r.mu.Lock()
	ops := append([]porcupine.Operation(nil), r.ops...)
	r.mu.Unlock()
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	switch res {
	case porcupine.Illegal:
		dir := os.Getenv("DDBLOCAL_HISTORY_DIR")
		if dir == "" {
			dir = os.TempDir()
		}
		path := filepath.Join(dir, fmt.Sprintf("ddblocal-%s-%s.html", strings.ReplaceAll(t.Name(), "/", "_"), name))
		if err := porcupine.VisualizePath(model, info, path); err != nil {
			t.Errorf("writing the visualization: %v", err)
		}
		t.Errorf("%s history is not linearizable (%s); visualization: %s", name, r.summary(), path)
	case porcupine.Unknown:
		t.Logf("%s history: checker timed out after %s (%s)", name, timeout, r.summary())
	}
	return res
}

// The register model: one register per item, the value of attribute v (0:
// no item). Operations on different items are independent, so the history
// is checked item by item.

type regOp int

const (
	regGet regOp = iota // GetItem, strongly consistent
	regPut              // PutItem
	regCas              // PutItem with condition v = exp (attribute_not_exists when exp is 0)
	regAdd              // UpdateItem ADD v delta, returning the new value
	regDel              // DeleteItem with condition v = exp
)

type regIn struct {
	op  regOp
	key int
	v   int64 // put: the value; cas: the new value; add: the delta
	exp int64 // cas, del: the value the condition expects (0: no item)
}

type regOut struct {
	oc outcome
	v  int64 // get: the value read; add: the new value (when applied)
}

// registerModel is the nondeterministic register: an unknown write leads
// to either state.
func registerModel() porcupine.Model {
	m := &porcupine.NondeterministicModel{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			by := map[int][]porcupine.Operation{}
			for _, op := range h {
				k := op.Input.(regIn).key
				by[k] = append(by[k], op)
			}
			keys := make([]int, 0, len(by))
			for k := range by {
				keys = append(keys, k)
			}
			sort.Ints(keys)
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, by[k])
			}
			return out
		},
		Init: func() []any { return []any{int64(0)} },
		Step: func(state, input, output any) []any {
			return regStep(state.(int64), input.(regIn), output.(regOut))
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(regIn), output.(regOut)
			return describeReg(in, out)
		},
	}
	return m.ToModel()
}

// regStep returns the states a register in state s can be in after the
// operation in with outcome out (none: the outcome is impossible).
func regStep(s int64, in regIn, out regOut) []any {
	switch in.op {
	case regGet:
		if out.v == s {
			return []any{s}
		}
		return nil
	case regPut:
		return write(s, in.v, true, out.oc)
	case regCas:
		return write(s, in.v, s == in.exp, out.oc)
	case regDel:
		return write(s, 0, s == in.exp, out.oc)
	case regAdd:
		next := s + in.v
		if out.oc == applied && out.v != next {
			return nil
		}
		return write(s, next, true, out.oc)
	}
	return nil
}

// write returns the states after a write of next to s under a condition
// that holds or not, with outcome oc.
func write(s, next int64, holds bool, oc outcome) []any {
	switch {
	case oc == applied && holds:
		return []any{next}
	case oc == refused && !holds, oc == conflict:
		return []any{s}
	case oc == unknown && holds:
		return []any{s, next}
	case oc == unknown:
		return []any{s}
	}
	return nil
}

func describeReg(in regIn, out regOut) string {
	res := [...]string{"ok", "refused", "conflict", "unknown"}[out.oc]
	switch in.op {
	case regGet:
		return fmt.Sprintf("get(%d) -> %d", in.key, out.v)
	case regPut:
		return fmt.Sprintf("put(%d, %d) %s", in.key, in.v, res)
	case regCas:
		return fmt.Sprintf("cas(%d, %d->%d) %s", in.key, in.exp, in.v, res)
	case regDel:
		return fmt.Sprintf("del(%d if %d) %s", in.key, in.exp, res)
	}
	return fmt.Sprintf("add(%d, %d) -> %d %s", in.key, in.v, out.v, res)
}

// The transaction model: a few items, all in one state. TransactWriteItems
// sets some of them if one holds an expected value; TransactGetItems reads
// them all. The history is checked as a whole: a linearizable history of
// transactions is strictly serializable.

const txKeys = 3

type txState [txKeys]int64

type txIn struct {
	get   bool
	set   [txKeys]int64 // write: the new values, 0 = leave alone
	cond  int           // write: the item whose value the condition names
	exp   int64         // write: its expected value
	items int           // how many items the write sets (for description)
}

type txOut struct {
	oc   outcome
	vals txState // get: the values read
}

func txModel() porcupine.Model {
	m := &porcupine.NondeterministicModel{
		Init: func() []any { return []any{txState{}} },
		Step: func(state, input, output any) []any {
			s, in, out := state.(txState), input.(txIn), output.(txOut)
			if in.get {
				if out.vals == s {
					return []any{s}
				}
				return nil
			}
			next := s
			for i, v := range in.set {
				if v != 0 {
					next[i] = v
				}
			}
			holds := s[in.cond] == in.exp
			switch {
			case out.oc == applied && holds:
				return []any{next}
			case out.oc == refused && !holds, out.oc == conflict:
				return []any{s}
			case out.oc == unknown && holds:
				return []any{s, next}
			case out.oc == unknown:
				return []any{s}
			}
			return nil
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(txIn), output.(txOut)
			if in.get {
				return fmt.Sprintf("txget -> %v", out.vals)
			}
			return fmt.Sprintf("txwrite(%v if [%d]=%d) %s", in.set, in.cond, in.exp, [...]string{"ok", "refused", "conflict", "unknown"}[out.oc])
		},
		DescribeState: func(state any) string { return fmt.Sprint(state.(txState)) },
	}
	return m.ToModel()
}

// opContext bounds one client operation: past it the outcome is unknown.
func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 3*time.Second)
}

// TestHistoryModels: the models accept a linearizable history and refuse
// one that is not, so that a passing check means something.
func TestHistoryModels(t *testing.T) {
	op := func(c int, in, out any, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: c, Input: in, Output: out, Call: call, Return: ret}
	}
	reg := registerModel()
	for _, tc := range []struct {
		name string
		ops  []porcupine.Operation
		want bool
	}{
		{"put then get", []porcupine.Operation{
			op(0, regIn{op: regPut, v: 5}, regOut{}, 0, 1),
			op(1, regIn{op: regGet}, regOut{v: 5}, 2, 3)}, true},
		{"stale read after an acknowledged put", []porcupine.Operation{
			op(0, regIn{op: regPut, v: 5}, regOut{}, 0, 1),
			op(1, regIn{op: regGet}, regOut{v: 0}, 2, 3)}, false},
		{"unknown put seen later", []porcupine.Operation{
			op(0, regIn{op: regPut, v: 5}, regOut{oc: unknown}, 0, math.MaxInt64),
			op(1, regIn{op: regGet}, regOut{v: 0}, 2, 3),
			op(1, regIn{op: regGet}, regOut{v: 5}, 4, 5)}, true},
		{"cas refused though its condition held", []porcupine.Operation{
			op(0, regIn{op: regCas, v: 7, exp: 0}, regOut{oc: refused}, 0, 1)}, false},
		{"two adds, one result lost", []porcupine.Operation{
			op(0, regIn{op: regAdd, v: 1}, regOut{v: 1}, 0, 1),
			op(1, regIn{op: regAdd, v: 1}, regOut{v: 1}, 2, 3)}, false},
		{"other items are independent", []porcupine.Operation{
			op(0, regIn{op: regPut, key: 1, v: 5}, regOut{}, 0, 1),
			op(1, regIn{op: regGet, key: 2}, regOut{v: 0}, 2, 3)}, true},
	} {
		if got := porcupine.CheckOperations(reg, tc.ops); got != tc.want {
			t.Errorf("register %s: linearizable = %v, want %v", tc.name, got, tc.want)
		}
	}
	tx := txModel()
	w := txIn{set: [txKeys]int64{1, 2, 0}, cond: 2, exp: 0}
	for _, tc := range []struct {
		name string
		ops  []porcupine.Operation
		want bool
	}{
		{"write then read", []porcupine.Operation{
			op(0, w, txOut{}, 0, 1),
			op(1, txIn{get: true}, txOut{vals: txState{1, 2, 0}}, 2, 3)}, true},
		{"torn read", []porcupine.Operation{
			op(0, w, txOut{}, 0, 3),
			op(1, txIn{get: true}, txOut{vals: txState{1, 0, 0}}, 1, 2)}, false},
		{"refused though its condition held", []porcupine.Operation{
			op(0, w, txOut{oc: refused}, 0, 1)}, false},
	} {
		if got := porcupine.CheckOperations(tx, tc.ops); got != tc.want {
			t.Errorf("transactions %s: linearizable = %v, want %v", tc.name, got, tc.want)
		}
	}
}
