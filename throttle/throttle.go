// Package throttle models DynamoDB's throughput limits: each table and each
// global secondary index is a set of partitions (contiguous ranges of the
// partition-key hash, package partition), and a request is admitted only
// while the token buckets it draws on hold tokens. The rules, from the
// DynamoDB Developer Guide ("Partitions and data distribution", "Burst and
// adaptive capacity", "On-demand capacity mode", "Throttling diagnostics"):
//
//   - Every partition admits PartitionReadUnits read units and
//     PartitionWriteUnits write units per second, reads and writes in separate
//     buckets holding one second's worth. One partition key value always lives
//     in one partition, so one key can never exceed one partition's limit.
//   - A provisioned table (or index) admits its provisioned units per second
//     at table level, with up to BurstSeconds of unused capacity saved as
//     burst credit. A new table's credit starts full, as the service's does:
//     a 400 KB write (about 400 units) succeeds on a new 5-WCU table, and
//     only once that table's burst is spent does it throttle (observed on
//     DynamoDB by paritysuite/dynamodb-conformance#43), so suites written
//     against small provisioned tables pass here too. A capacity change
//     keeps the credit held (up to the new limit): the service's behaviour
//     there is not documented, and neither emptying nor refilling it is.
//   - An on-demand table starts able to serve OnDemandReadUnits and
//     OnDemandWriteUnits per second over OnDemandPartitions partitions. Its
//     allowance is twice the highest units consumed in one second, counting
//     only peaks at least PeakWindow old (so traffic may instantly double its
//     previous peak, but not double again within 30 minutes), never less than
//     the initial allowance or the table's warm throughput, and never more
//     than TableQuotaUnits or the table's MaxRead/WriteRequestUnits.
//   - Partitions split, never merge. A table gets the partitions its
//     capacity needs: provisioned, ceil(RCU/PartitionReadUnits +
//     WCU/PartitionWriteUnits); on-demand, enough that each of reads and
//     writes fits its allowance. And a partition that keeps throttling
//     requests for more than one key value (throttles no more than a second
//     apart, for HotSplitAfter) splits in two, halving its hash range: the
//     halves inherit its tokens, so a split never grants a burst. A
//     partition that throttles only one key value never splits: that cannot
//     help. A partition whose data passes PartitionSplitBytes (10 GB)
//     splits in two as well; the size is counted from the writes the
//     Limiter admits (since the server started or the table was first
//     throttled), and a split gives each half half of it, an estimate since
//     the hash range is halved, not the data.
//
// Every limit DynamoDB sets, and the warm throughput (which only says how
// far DynamoDB's own limits start out raised), is multiplied by
// Options.Scale, so a test can reach a limit at the few hundred requests per
// second it can send; what the user sets as a limit (provisioned capacity,
// on-demand maximums) is used as given.
package throttle

import (
	"math"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/partition"
)

// Tag is the table tag that turns throttling on ("on") for one table, or
// off ("off") when the server throttles every table.
const Tag = "ddblocal:throttling"

// DynamoDB's default limits, before Options.Scale.
const (
	PartitionReadUnits  = 3000
	PartitionWriteUnits = 1000
	OnDemandReadUnits   = 12000
	OnDemandWriteUnits  = 4000
	OnDemandPartitions  = 4
	// TableQuotaUnits is the per-table quota of read and of write units per
	// second (DescribeLimits' TableMax*CapacityUnits).
	TableQuotaUnits = 40000
	// AccountQuotaUnits is the per-account quota DescribeLimits reports.
	AccountQuotaUnits = 80000
	BurstSeconds      = 300
	PeakWindow        = 30 * time.Minute
	HotSplitAfter     = 10 * time.Second
	// PartitionSplitBytes is the size past which a partition splits.
	PartitionSplitBytes = 10 << 30
	// maxPartitions bounds the partitions of one table or index, so that a
	// tiny scale cannot make millions of buckets.
	maxPartitions = 4096
)

// Op is the kind of units a request draws: reads or writes.
type Op uint8

// The two kinds of capacity.
const (
	Read Op = iota
	Write
)

// String is "Read" or "Write", as throttling reasons spell it.
func (o Op) String() string {
	if o == Write {
		return "Write"
	}
	return "Read"
}

// Capacity is the throughput configuration of a table or global index.
type Capacity struct {
	// ARN names the resource in throttling reasons.
	ARN string
	// Provisioned selects provisioned mode: Read and Write are the
	// provisioned units per second. Otherwise the table is on demand and
	// Read and Write are its maximums (MaxReadRequestUnits and
	// MaxWriteRequestUnits; zero or negative means none).
	Provisioned bool
	Read, Write int64
	// WarmRead and WarmWrite are the on-demand warm throughput (zero when
	// not set).
	WarmRead, WarmWrite int64
}

// Target is one resource a request draws on: a table or one of its global
// indexes, at the partition that owns Hash.
type Target struct {
	Index string // "" for the table itself
	Cap   Capacity
	Hash  uint64
	// Key is the item's (or index entry's) storage key, passed on to the
	// Observer; it may be nil.
	Key []byte
	// Units is what Take takes from the target's buckets when the request
	// is admitted.
	Units float64
	// Bytes is how much an admitted write grows (negative: shrinks) the
	// data of the partition owning Hash, for the size split rule.
	Bytes int64
}

// Reason is one entry of an exception's ThrottlingReasons.
type Reason struct {
	Reason   string `json:"reason"`
	Resource string `json:"resource"`
}

// Event is one throttled request on one resource, as an Observer sees it.
type Event struct {
	Table     string // the table's ID, as the Limiter's callers name it
	Index     string // "" for the table
	Resource  string // the table's or index's ARN (Capacity.ARN)
	Partition int
	Hash      uint64
	Key       []byte
	Op        Op
	Reason    string
	Time      time.Time
}

// Observer learns of every throttled request (for per-partition statistics
// and Contributor Insights). Throttled is called without the Limiter's
// lock held, possibly concurrently, and must not block.
type Observer interface {
	Throttled(Event)
}

// Options configures a Limiter.
type Options struct {
	// Scale multiplies every limit DynamoDB sets; zero means 1.
	Scale float64
	// Observer, when set, is told of every throttled request.
	Observer Observer
}

// Limiter holds the buckets of every table and index it has seen. It is
// safe for concurrent use.
type Limiter struct {
	scale float64
	obs   Observer
	mu    sync.Mutex
	res   map[resKey]*resource
}

type resKey struct{ table, index string }

// New returns a Limiter.
func New(opts Options) *Limiter {
	if opts.Scale <= 0 {
		opts.Scale = 1
	}
	return &Limiter{scale: opts.Scale, obs: opts.Observer, res: map[resKey]*resource{}}
}

// Scale is the factor applied to DynamoDB's limits.
func (l *Limiter) Scale() float64 { return l.scale }

// Take admits a request of kind op on table (an ID that is never reused)
// and takes each target's Units: it returns nil when every target's buckets
// hold tokens, else the reasons the request is throttled (table-level
// before partition, in target order), having taken nothing. What a read
// turns out to cost beyond what it took here is added with Consume.
func (l *Limiter) Take(now time.Time, table string, op Op, targets []Target) []Reason {
	var reasons []Reason
	var events []Event
	l.mu.Lock()
	// The resources drawn on, on the stack for up to 8 targets (a table and
	// 7 global indexes a write changes): Take is on every request's path.
	var buf [8]*resource
	rs := buf[:0]
	for _, t := range targets {
		r := l.resource(now, table, t)
		rs = append(rs, r)
		why, p := r.admit(now, l, op, t.Hash)
		for _, w := range why {
			reasons = appendReason(reasons, Reason{Reason: kind(t.Index) + op.String() + w, Resource: t.Cap.ARN})
			events = append(events, Event{Table: table, Index: t.Index, Resource: t.Cap.ARN, Partition: p, Hash: t.Hash, Key: t.Key, Op: op, Reason: kind(t.Index) + op.String() + w, Time: now})
		}
	}
	if reasons == nil {
		for i, t := range targets {
			rs[i].consume(now, l, op, t.Hash, t.Units)
			rs[i].resize(l, t.Hash, t.Bytes)
		}
	}
	l.mu.Unlock()
	if l.obs != nil {
		for _, e := range events {
			l.obs.Throttled(e)
		}
	}
	return reasons
}

// Consume takes t.Units of kind op from target t's table-level and
// partition buckets, admitted or not.
func (l *Limiter) Consume(now time.Time, table string, op Op, t Target) {
	if t.Units <= 0 {
		return
	}
	l.mu.Lock()
	l.resource(now, table, t).consume(now, l, op, t.Hash, t.Units)
	l.mu.Unlock()
}

// ConsumeSpan is Consume for a read that went through every partition from
// the one owning t.Hash to the one owning last (a Scan page): the table
// level takes t.Units, and each of those partitions an equal share.
func (l *Limiter) ConsumeSpan(now time.Time, table string, op Op, t Target, last uint64) {
	if t.Units <= 0 {
		return
	}
	l.mu.Lock()
	r := l.resource(now, table, t)
	lo, hi := r.parts.Of(t.Hash), r.parts.Of(last)
	if hi < lo {
		lo, hi = hi, lo
	}
	r.table[op].take(now, t.Units)
	share := t.Units / float64(hi-lo+1)
	for p := lo; p <= hi; p++ {
		r.pb[op][p].take(now, share)
	}
	if !r.cap.Provisioned {
		r.peak[op].add(now, t.Units)
	}
	l.mu.Unlock()
}

// Partitions returns the current partitions of a table's index ("" for the
// table), and false when the Limiter has not seen it yet.
func (l *Limiter) Partitions(table, index string) (partition.Map, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.res[resKey{table, index}]
	if !ok {
		return partition.Map{}, false
	}
	return r.parts, true
}

// Forget drops every bucket of table (it was deleted).
func (l *Limiter) Forget(table string) {
	l.mu.Lock()
	for k := range l.res {
		if k.table == table {
			delete(l.res, k)
		}
	}
	l.mu.Unlock()
}

func kind(index string) string {
	if index == "" {
		return "Table"
	}
	return "Index"
}

func appendReason(rs []Reason, r Reason) []Reason {
	for _, have := range rs {
		if have == r {
			return rs
		}
	}
	return append(rs, r)
}

// resource returns t's state, creating it or applying a changed Capacity.
// l.mu is held.
func (l *Limiter) resource(now time.Time, table string, t Target) *resource {
	k := resKey{table, t.Index}
	r := l.res[k]
	if r == nil {
		r = newResource(now, l, t.Cap)
		l.res[k] = r
	} else if r.cap != t.Cap {
		r.reconfigure(now, l, t.Cap)
	}
	return r
}

// ceilDiv returns ceil(a/b) as an int, at least 1.
func ceilDiv(a, b float64) int {
	n := math.Ceil(a/b - 1e-9)
	if n < 1 {
		return 1
	}
	if n > maxPartitions {
		return maxPartitions
	}
	return int(n)
}
