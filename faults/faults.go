// Package faults decides which DynamoDB requests fail on purpose, so that
// applications can test their conflict, throttling and retry handling
// against ddblocal. It holds the rules and matches requests against them;
// the api package turns a match into DynamoDB's error on the wire.
//
// A rule is posted as JSON to /_ddblocal/faults:
//
//	{
//	  "operation": "PutItem",            // required: the X-Amz-Target operation
//	  "table":     "Orders",             // optional: only requests on this table
//	  "key":       {"pk": {"S": "o-1"}}, // optional: only requests touching this item
//	  "error":     "TransactionConflict",// required: one of the Kinds below
//	  "count":     2                     // optional: how many requests fail (default 1)
//	}
//
// The next count requests of that operation that touch a matching item (any
// request, when neither table nor key is given) fail. A key matches an item
// or key when every attribute of the rule's key is present in it with an
// equal value, so a partition key alone matches every item of a partition.
// A PartiQL statement (ExecuteStatement, each statement of
// BatchExecuteStatement and ExecuteTransaction) touches the table it names
// and the attributes it fixes: an INSERT's item, a WHERE's name = value terms.
// GET /_ddblocal/faults lists the rules with their remaining count and hits;
// DELETE clears them.
package faults

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ddblocal/ddblocal/attr"
)

// Kind names an injected failure.
type Kind string

// The failures a rule can inject. What each becomes on the wire is decided
// by the api package: for TransactWriteItems and TransactGetItems a
// TransactionCanceledException whose matching actions carry the reason,
// otherwise the DynamoDB exception of that name.
const (
	TransactionConflict           Kind = "TransactionConflict"
	ProvisionedThroughputExceeded Kind = "ProvisionedThroughputExceeded"
	InternalServerError           Kind = "InternalServerError"
	ThrottlingException           Kind = "ThrottlingException"
	// UnprocessedItems answers BatchWriteItem and BatchGetItem with the
	// matching requests unprocessed (the others are served).
	UnprocessedItems Kind = "UnprocessedItems"
)

// kinds lists the valid Kinds.
var kinds = map[Kind]bool{
	TransactionConflict: true, ProvisionedThroughputExceeded: true,
	InternalServerError: true, ThrottlingException: true, UnprocessedItems: true,
}

// Errors returned by Add.
var (
	ErrNoOperation  = errors.New("faults: operation is required")
	ErrUnknownKind  = errors.New("faults: unknown error kind")
	ErrBadCount     = errors.New("faults: count must be at least 1")
	ErrNotABatch    = errors.New("faults: UnprocessedItems applies only to BatchWriteItem and BatchGetItem")
	ErrKeyNeedsName = errors.New("faults: key needs a table")
)

// Rule is one fault. Count is how many more requests it fails; Hits how
// many it has failed so far.
type Rule struct {
	Operation string    `json:"operation"`
	Table     string    `json:"table,omitempty"`
	Key       attr.Item `json:"key,omitempty"`
	Error     Kind      `json:"error"`
	Count     int       `json:"count"`
	Hits      int       `json:"hits"`
}

// Target is one item a request touches: its table and its key (or the whole
// item, for a put).
type Target struct {
	Table string
	Item  attr.Item
}

// Injector holds the rules. The zero value is not usable; call New. It is
// safe for concurrent use.
type Injector struct {
	mu    sync.Mutex
	rules []*Rule
}

// New returns an Injector without rules.
func New() *Injector { return &Injector{} }

// Add validates r and appends it; a Count of 0 means 1 and Hits is reset.
// It returns ErrNoOperation, ErrUnknownKind, ErrBadCount, ErrNotABatch or
// ErrKeyNeedsName for an invalid rule.
func (in *Injector) Add(r Rule) error {
	switch {
	case r.Operation == "":
		return ErrNoOperation
	case !kinds[r.Error]:
		return fmt.Errorf("%w %q", ErrUnknownKind, r.Error)
	case r.Count < 0:
		return ErrBadCount
	case r.Error == UnprocessedItems && r.Operation != "BatchWriteItem" && r.Operation != "BatchGetItem":
		return ErrNotABatch
	case len(r.Key) > 0 && r.Table == "":
		return ErrKeyNeedsName
	}
	if r.Count == 0 {
		r.Count = 1
	}
	r.Hits = 0
	in.mu.Lock()
	in.rules = append(in.rules, &r)
	in.mu.Unlock()
	return nil
}

// Rules returns a copy of the rules, in the order they were added,
// including spent ones (Count 0).
func (in *Injector) Rules() []Rule {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Rule, len(in.rules))
	for i, r := range in.rules {
		out[i] = *r
	}
	return out
}

// Clear removes every rule.
func (in *Injector) Clear() {
	in.mu.Lock()
	in.rules = nil
	in.mu.Unlock()
}

// Armed reports whether a rule with requests left to fail names op, so that
// callers parse a request only when it might match.
func (in *Injector) Armed(op string) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, r := range in.rules {
		if r.Count > 0 && r.Operation == op {
			return true
		}
	}
	return false
}

// Match finds the first armed rule for a request of operation op touching
// targets and spends one of its requests. It returns the rule as it was
// before spending, which targets it matched (all of them for a rule without
// table and key), and whether any rule matched.
func (in *Injector) Match(op string, targets []Target) (Rule, []bool, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, r := range in.rules {
		if r.Count <= 0 || r.Operation != op {
			continue
		}
		hit := make([]bool, len(targets))
		sel := r.Table == "" && len(r.Key) == 0
		for i, t := range targets {
			hit[i] = r.matches(t)
			sel = sel || hit[i]
		}
		if !sel {
			continue
		}
		matched := *r
		r.Count--
		r.Hits++
		return matched, hit, true
	}
	return Rule{}, nil, false
}

// matches reports whether target t is selected by r's table and key.
func (r *Rule) matches(t Target) bool {
	if r.Table != "" && tableName(t.Table) != tableName(r.Table) {
		return false
	}
	for name, want := range r.Key {
		got, ok := t.Item[name]
		if !ok || !attr.Equal(got, want) {
			return false
		}
	}
	return true
}

// tableName returns the table name of a name or table ARN.
func tableName(s string) string {
	if i := strings.LastIndex(s, ":table/"); i >= 0 {
		return s[i+len(":table/"):]
	}
	return s
}
