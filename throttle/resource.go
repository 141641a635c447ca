package throttle

import (
	"time"

	"github.com/ddblocal/ddblocal/partition"
)

// Limit types of throttling reasons (the part after Table/Index and
// Read/Write).
const (
	limitProvisioned = "ProvisionedThroughputExceeded"
	limitKeyRange    = "KeyRangeThroughputExceeded"
	limitAccount     = "AccountLimitExceeded"
	limitMaxOnDemand = "MaxOnDemandThroughputExceeded"
)

// resource is the state of one table or global index.
type resource struct {
	cap   Capacity
	table [2]bucket // table-level read and write buckets
	peak  [2]peaks  // on-demand peak consumption
	parts partition.Map
	pb    [2][]bucket // per partition, read and write
	hot   []hotness   // per partition
	size  []int64     // per partition, bytes written (the size split rule)
}

// hotness is a partition's current run of throttling, for the split rule.
type hotness struct {
	since, last time.Time
	hash        uint64 // the first throttled key's hash in the run
	many        bool   // more than one key value was throttled in the run
}

func newResource(now time.Time, l *Limiter, c Capacity) *resource {
	r := &resource{}
	r.parts = partition.Even(1)
	for op := range r.pb {
		rate := l.partitionRate(Op(op))
		r.pb[op] = []bucket{newBucket(rate, rate, rate, now)}
	}
	r.hot = make([]hotness, 1)
	r.size = make([]int64, 1)
	r.reconfigure(now, l, c)
	return r
}

func (l *Limiter) partitionRate(op Op) float64 {
	if op == Write {
		return PartitionWriteUnits * l.scale
	}
	return PartitionReadUnits * l.scale
}

// reconfigure applies capacity c. A table newly provisioned (created, or
// switched from on demand) starts with its burst credit full; a change of
// provisioned capacity keeps the credit it holds, up to the new limit.
// Partitions split to serve c.
func (r *resource) reconfigure(now time.Time, l *Limiter, c Capacity) {
	was := r.cap
	r.cap = c
	if c.Provisioned {
		for op, u := range [2]int64{c.Read, c.Write} {
			rate := float64(u)
			if was.Provisioned {
				r.table[op].setRate(now, rate, rate*BurstSeconds)
			} else {
				r.table[op] = newBucket(rate, rate*BurstSeconds, rate*BurstSeconds, now)
			}
		}
		r.grow(max(ceilDiv(float64(c.Read)/l.partitionRate(Read)+float64(c.Write)/l.partitionRate(Write), 1), r.warmPartitions()))
		return
	}
	for op := range r.table {
		a, _ := r.allowance(now, l, Op(op))
		r.table[op] = newBucket(a, a, a, now)
	}
	r.growOnDemand(now, l)
}

// allowance is an on-demand table's units per second of kind op now, and
// the limit type that bounds it ("" when it is the peak rule, which a
// throttle reports as a key range limit).
func (r *resource) allowance(now time.Time, l *Limiter, op Op) (float64, string) {
	initial, warm, max := float64(OnDemandReadUnits), r.cap.WarmRead, r.cap.Read
	if op == Write {
		initial, warm, max = OnDemandWriteUnits, r.cap.WarmWrite, r.cap.Write
	}
	a := initial * l.scale
	a = maxf(a, float64(warm)*l.scale)
	a = maxf(a, 2*r.peak[op].before(now.Add(-PeakWindow)))
	limit := ""
	if q := TableQuotaUnits * l.scale; a >= q {
		a, limit = q, limitAccount
	}
	if max > 0 && float64(max) <= a {
		a, limit = float64(max), limitMaxOnDemand
	}
	return a, limit
}

func maxf(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

// warmPartitions is how many partitions the warm throughput asked for needs.
func (r *resource) warmPartitions() int {
	return max(ceilDiv(float64(r.cap.WarmRead), PartitionReadUnits), ceilDiv(float64(r.cap.WarmWrite), PartitionWriteUnits))
}

// growOnDemand refreshes an on-demand resource's table-level rates and
// splits partitions until they can serve them.
func (r *resource) growOnDemand(now time.Time, l *Limiter) {
	need := OnDemandPartitions
	for op := range r.table {
		a, _ := r.allowance(now, l, Op(op))
		if a != r.table[op].rate {
			r.table[op].setRate(now, a, a)
		}
		need = max(need, ceilDiv(a, l.partitionRate(Op(op))))
	}
	r.grow(need)
}

// grow splits the widest partitions until there are n.
func (r *resource) grow(n int) {
	for r.parts.Len() < n {
		widest, width := 0, uint64(0)
		for i := 0; i < r.parts.Len(); i++ {
			lo, hi := r.parts.Range(i)
			if hi-lo > width {
				widest, width = i, hi-lo
			}
		}
		if !r.split(widest) {
			return
		}
	}
}

// split halves partition i; both halves keep its tokens.
func (r *resource) split(i int) bool {
	m, ok := r.parts.Split(i)
	if !ok {
		return false
	}
	r.parts = m
	for op := range r.pb {
		r.pb[op] = insertAfter(r.pb[op], i)
	}
	r.hot = insertAfter(r.hot, i)
	r.hot[i], r.hot[i+1] = hotness{}, hotness{}
	r.size = insertAfter(r.size, i)
	r.size[i] /= 2
	r.size[i+1] -= r.size[i]
	return true
}

// resize adds b bytes to the partition owning hash and splits it while it
// is larger than PartitionSplitBytes (scaled).
func (r *resource) resize(l *Limiter, hash uint64, b int64) {
	if b == 0 {
		return
	}
	p := r.parts.Of(hash)
	r.size[p] = max(r.size[p]+b, 0)
	limit := int64(PartitionSplitBytes * l.scale)
	for r.size[p] > limit && r.parts.Len() < maxPartitions && r.split(p) {
		p = r.parts.Of(hash)
	}
}

// insertAfter returns s with a copy of s[i] inserted after it.
func insertAfter[T any](s []T, i int) []T {
	s = append(s, s[i])
	copy(s[i+2:], s[i+1:])
	s[i+1] = s[i]
	return s
}

// admit checks the buckets a request of kind op on hash draws on, and
// returns the limit types it exceeds and the partition.
func (r *resource) admit(now time.Time, l *Limiter, op Op, hash uint64) ([]string, int) {
	var why []string
	if !r.cap.Provisioned {
		r.growOnDemand(now, l)
	}
	if !r.table[op].ok(now) {
		switch {
		case r.cap.Provisioned:
			why = append(why, limitProvisioned)
		default:
			_, limit := r.allowance(now, l, op)
			if limit == "" {
				limit = limitKeyRange
			}
			why = append(why, limit)
		}
	}
	p := r.parts.Of(hash)
	if !r.pb[op][p].ok(now) {
		why = append(why, limitKeyRange)
		if r.heat(now, p, hash) {
			p = r.parts.Of(hash)
		}
	}
	return why, p
}

// heat records a throttle of hash in partition p and splits p when the
// split rule says so, reporting whether it did.
func (r *resource) heat(now time.Time, p int, hash uint64) bool {
	h := &r.hot[p]
	if h.last.IsZero() || now.Sub(h.last) > time.Second {
		*h = hotness{since: now, hash: hash}
	}
	h.last = now
	if hash != h.hash {
		h.many = true
	}
	if h.many && now.Sub(h.since) >= HotSplitAfter && r.parts.Len() < maxPartitions {
		return r.split(p)
	}
	return false
}

// consume takes units from the buckets a request on hash drew on.
func (r *resource) consume(now time.Time, l *Limiter, op Op, hash uint64, units float64) {
	r.table[op].take(now, units)
	r.pb[op][r.parts.Of(hash)].take(now, units)
	if !r.cap.Provisioned {
		r.peak[op].add(now, units)
	}
}

// peaks follows an on-demand table's consumption per second of the clock
// and remembers each new highest second.
type peaks struct {
	second time.Time // the start of the current second
	used   float64   // units consumed in it
	high   []sample  // ascending in both time and units
}

type sample struct {
	at    time.Time
	units float64
}

func (p *peaks) add(now time.Time, u float64) {
	sec := now.Truncate(time.Second)
	if !sec.Equal(p.second) {
		p.second, p.used = sec, 0
	}
	p.used += u
	if n := len(p.high); n == 0 || p.used > p.high[n-1].units {
		if n > 0 && p.high[n-1].at.Equal(sec) {
			p.high[n-1].units = p.used
		} else {
			p.high = append(p.high, sample{sec, p.used})
		}
	}
}

// before returns the highest units consumed in one second that began at
// or before t.
func (p *peaks) before(t time.Time) float64 {
	best := 0.0
	for _, s := range p.high {
		if s.at.After(t) {
			break
		}
		best = s.units
	}
	return best
}
