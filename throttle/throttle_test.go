package throttle

import (
	"slices"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T"

// run admits and consumes n requests of u units each on target t at now,
// and returns how many were admitted and the reasons of the first refusal.
func run(l *Limiter, now time.Time, op Op, t Target, n int, u float64) (int, []Reason) {
	admitted := 0
	var first []Reason
	for range n {
		t.Units = u
		if why := l.Take(now, "id", op, []Target{t}); why != nil {
			if first == nil {
				first = why
			}
			continue
		}
		admitted++
	}
	return admitted, first
}

func reasons(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Reason)
	}
	return out
}

func TestOnDemandHotKeyVersusSpread(t *testing.T) {
	l := New(Options{Scale: 0.01}) // 10 WCU/s per partition, 40 per table
	od := Capacity{ARN: arn}
	got, why := run(l, t0, Write, Target{Cap: od, Hash: 42}, 15, 1)
	if got != 10 || !slices.Equal(reasons(why), []string{"TableWriteKeyRangeThroughputExceeded"}) || why[0].Resource != arn {
		t.Fatalf("hot key: admitted %d, reasons %+v; want 10, one TableWriteKeyRangeThroughputExceeded on %s", got, why, arn)
	}
	// A second later the partition has refilled.
	if got, _ := run(l, t0.Add(time.Second), Write, Target{Cap: od, Hash: 42}, 10, 1); got != 10 {
		t.Fatalf("after a second: admitted %d, want 10", got)
	}
	// Spread over the four partitions, the table's 40 units pass.
	l = New(Options{Scale: 0.01})
	total := 0
	for q := range uint64(4) {
		n, why := run(l, t0, Write, Target{Cap: od, Hash: q<<62 | 7}, 10, 1)
		if why != nil {
			t.Fatalf("partition %d throttled: %+v", q, why)
		}
		total += n
	}
	if total != 40 {
		t.Fatalf("spread: admitted %d, want 40", total)
	}
	if m, ok := l.Partitions("id", ""); !ok || m.Len() != OnDemandPartitions {
		t.Fatalf("partitions = %d, %v; want %d", m.Len(), ok, OnDemandPartitions)
	}
}

func TestReadsAndWritesAreSeparate(t *testing.T) {
	l := New(Options{Scale: 0.01})
	tg := Target{Cap: Capacity{ARN: arn}, Hash: 1}
	if n, _ := run(l, t0, Write, tg, 20, 1); n != 10 {
		t.Fatalf("writes admitted %d, want 10", n)
	}
	if n, why := run(l, t0, Read, tg, 30, 1); n != 30 || why != nil {
		t.Fatalf("reads admitted %d (%+v), want 30", n, why)
	}
	if n, why := run(l, t0, Read, tg, 1, 1); n != 0 || reasons(why)[0] != "TableReadKeyRangeThroughputExceeded" {
		t.Fatalf("31st read: admitted %d, %+v", n, why)
	}
}

// TestProvisionedBurstStartsFull: a new provisioned table may spend 300
// seconds of its capacity at once; then it earns one second's capacity a
// second, keeping at most 300 s; a capacity change keeps the credit held.
func TestProvisionedBurstStartsFull(t *testing.T) {
	l := New(Options{})
	tg := Target{Cap: Capacity{ARN: arn, Provisioned: true, Read: 1, Write: 1}, Hash: 1}
	tests := []struct {
		advance time.Duration
		want    int
	}{
		{0, BurstSeconds},         // a new table's credit is full
		{0, 0},                    // and then spent
		{10 * time.Second, 10},    // ten seconds saved
		{time.Hour, BurstSeconds}, // at most 300 s saved
	}
	now := t0
	for _, tc := range tests {
		now = now.Add(tc.advance)
		got, why := run(l, now, Write, tg, 2000, 1)
		if got != tc.want || !slices.Equal(reasons(why), []string{"TableWriteProvisionedThroughputExceeded"}) {
			t.Fatalf("after %v: admitted %d, %v; want %d, TableWriteProvisionedThroughputExceeded", tc.advance, got, reasons(why), tc.want)
		}
	}
	// A capacity change keeps the credit held: 5 s at 1 unit, then 7 a second.
	now = now.Add(5 * time.Second)
	tg.Cap.Write = 7
	if got, _ := run(l, now, Write, tg, 100, 1); got != 5 {
		t.Fatalf("after a capacity change: admitted %d, want the 5 units held", got)
	}
	now = now.Add(time.Second)
	if got, _ := run(l, now, Write, tg, 100, 1); got != 7 {
		t.Fatalf("a second later: admitted %d, want 7", got)
	}
	// Switching from on demand to provisioned is a new provisioning: full.
	od := Target{Cap: Capacity{ARN: arn + "2"}, Hash: 1}
	run(l, now, Write, od, 1, 1)
	od.Cap.Provisioned, od.Cap.Read, od.Cap.Write = true, 2, 2
	if got, _ := run(l, now, Write, od, 2000, 1); got != 2*BurstSeconds {
		t.Fatalf("after switching to provisioned: admitted %d, want %d", got, 2*BurstSeconds)
	}
}

func TestIndexReasonsAndMaximum(t *testing.T) {
	l := New(Options{})
	ix := Target{Index: "byX", Cap: Capacity{ARN: arn + "/index/byX", Write: 3}, Hash: 9}
	got, why := run(l, t0, Write, ix, 10, 1)
	if got != 3 || !slices.Equal(reasons(why), []string{"IndexWriteMaxOnDemandThroughputExceeded"}) || why[0].Resource != arn+"/index/byX" {
		t.Fatalf("admitted %d, %+v; want 3, IndexWriteMaxOnDemandThroughputExceeded on the index", got, why)
	}
	prov := Target{Index: "byY", Cap: Capacity{ARN: arn + "/index/byY", Provisioned: true, Read: 2, Write: 2}, Hash: 9}
	if _, why := run(l, t0, Read, prov, 2*BurstSeconds+1, 1); !slices.Equal(reasons(why), []string{"IndexReadProvisionedThroughputExceeded"}) {
		t.Fatalf("provisioned index: %v", reasons(why))
	}
}

func TestOnDemandDoublesPreviousPeakAfterWindow(t *testing.T) {
	l := New(Options{Scale: 0.001}) // initial 4 WRU/s; quota 40
	r := newResource(t0, l, Capacity{ARN: arn})
	r.consume(t0, l, Write, 0, 4)
	if a, _ := r.allowance(t0.Add(time.Minute), l, Write); a != 4 {
		t.Fatalf("allowance a minute after a peak of 4: %v, want 4 (the peak is too recent)", a)
	}
	if a, _ := r.allowance(t0.Add(PeakWindow), l, Write); a != 8 {
		t.Fatalf("allowance 30 minutes after a peak of 4: %v, want 8", a)
	}
	r.consume(t0.Add(PeakWindow), l, Write, 0, 30)
	a, limit := r.allowance(t0.Add(2*PeakWindow), l, Write)
	if a != 40 || limit != limitAccount {
		t.Fatalf("allowance after a peak of 30: %v (%q), want the quota 40 (%q)", a, limit, limitAccount)
	}
	r.growOnDemand(t0.Add(2*PeakWindow), l)
	if r.parts.Len() != 40 {
		t.Fatalf("partitions for 40 WRU at 1 per partition: %d, want 40", r.parts.Len())
	}
}

func TestHotPartitionSplitsOnlyForManyKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keys  []uint64
		split bool
	}{
		{"one key", []uint64{5}, false},
		{"two keys", []uint64{5, 1 << 40}, true},
	} {
		l := New(Options{Scale: 0.01})
		cap := Capacity{ARN: arn, Provisioned: true, Read: 1000, Write: 1}
		l.Take(t0, "id", Read, []Target{{Cap: cap}})
		before, _ := l.Partitions("id", "")
		for s := 0; s <= int(HotSplitAfter/time.Second); s++ {
			now := t0.Add(time.Duration(s) * time.Second)
			for _, k := range tc.keys {
				run(l, now, Read, Target{Cap: cap, Hash: k}, 40, 1)
			}
		}
		m, _ := l.Partitions("id", "")
		if got := m.Len() > before.Len(); got != tc.split {
			t.Errorf("%s: %d partitions after %v of throttling; split %v, want %v", tc.name, m.Len(), HotSplitAfter, got, tc.split)
		}
	}
}

type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) Throttled(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func TestObserverSeesThrottles(t *testing.T) {
	rec := &recorder{}
	l := New(Options{Scale: 0.01, Observer: rec})
	tg := Target{Cap: Capacity{ARN: arn}, Hash: 1 << 63, Key: []byte("k")}
	run(l, t0, Write, tg, 12, 1)
	if len(rec.events) != 2 {
		t.Fatalf("events %d, want 2", len(rec.events))
	}
	e := rec.events[0]
	if e.Table != "id" || e.Partition != 2 || string(e.Key) != "k" || e.Op != Write || e.Reason != "TableWriteKeyRangeThroughputExceeded" {
		t.Fatalf("event %+v", e)
	}
}

func TestWarmThroughputRaisesTheStart(t *testing.T) {
	l := New(Options{Scale: 0.01})
	warm := Capacity{ARN: arn, WarmWrite: 8000} // 80 WRU/s scaled, over 8 partitions
	total := 0
	for q := range uint64(8) {
		n, _ := run(l, t0, Write, Target{Cap: warm, Hash: q << 61}, 20, 1)
		total += n
	}
	if total != 80 {
		t.Fatalf("a table warmed to 8000 WRU/s (scale 0.01) admitted %d writes in its first second, want 80", total)
	}
	if m, _ := l.Partitions("id", ""); m.Len() != 8 {
		t.Fatalf("partitions %d, want 8", m.Len())
	}
}

func TestConsumeSpanSharesAcrossPartitions(t *testing.T) {
	l := New(Options{Scale: 0.01}) // 4 partitions of 30 RCU
	od := Capacity{ARN: arn}
	// A 120-unit scan over the whole table leaves every partition empty...
	l.ConsumeSpan(t0, "id", Read, Target{Cap: od, Hash: 0, Units: 120}, ^uint64(0))
	for q := range uint64(4) {
		if why := l.Take(t0, "id", Read, []Target{{Cap: od, Hash: q << 62}}); why == nil {
			t.Fatalf("partition %d admitted a read after a scan took its share", q)
		}
	}
	// ...while the same units taken in one partition leave the others full.
	l = New(Options{Scale: 0.01})
	l.ConsumeSpan(t0, "id", Read, Target{Cap: od, Hash: 0, Units: 30}, 5)
	if why := l.Take(t0, "id", Read, []Target{{Cap: od, Hash: 3 << 62}}); why != nil {
		t.Fatalf("an untouched partition refused a read: %v", why)
	}
}

func TestTakeIsAllOrNothing(t *testing.T) {
	l := New(Options{Scale: 0.01})
	od := Capacity{ARN: arn}
	ix := Capacity{ARN: arn + "/index/g"}
	// Fill the index's partition.
	run(l, t0, Write, Target{Index: "g", Cap: ix, Hash: 3}, 10, 1)
	both := []Target{{Cap: od, Hash: 1, Units: 5}, {Index: "g", Cap: ix, Hash: 3, Units: 5}}
	why := l.Take(t0, "id", Write, both)
	if got, want := reasons(why), []string{"IndexWriteKeyRangeThroughputExceeded"}; !slices.Equal(got, want) || why[0].Resource != arn+"/index/g" {
		t.Fatalf("reasons %+v, want %v on the index", why, want)
	}
	// Nothing was taken from the table: its partition still admits 10.
	if got, _ := run(l, t0, Write, Target{Cap: od, Hash: 1}, 20, 1); got != 10 {
		t.Fatalf("table partition admitted %d after a refused request, want 10", got)
	}
}

func TestLargePartitionSplits(t *testing.T) {
	const gb = int64(1) << 30
	for _, tc := range []struct {
		name   string
		writes []int64 // bytes per admitted write, one second apart
		splits int
	}{
		{"under 10 GB", []int64{6 * gb, 3 * gb}, 0},
		{"exactly 10 GB", []int64{10 * gb}, 0},
		{"past 10 GB", []int64{6 * gb, 5 * gb}, 1},
		{"shrunk first", []int64{9 * gb, -5 * gb, 5 * gb}, 0},
		{"three times the limit at once", []int64{30 * gb}, 2},
	} {
		l := New(Options{})
		cap := Capacity{ARN: arn, Provisioned: true, Read: 1, Write: 1}
		l.Take(t0, "id", Write, []Target{{Cap: cap}})
		before, _ := l.Partitions("id", "")
		for i, b := range tc.writes {
			now := t0.Add(time.Duration(i+1) * time.Second)
			if r := l.Take(now, "id", Write, []Target{{Cap: cap, Hash: 7, Units: 1, Bytes: b}}); r != nil {
				t.Fatalf("%s: write %d throttled: %v", tc.name, i, r)
			}
		}
		m, _ := l.Partitions("id", "")
		if got := m.Len() - before.Len(); got != tc.splits {
			t.Errorf("%s: %d splits, want %d", tc.name, got, tc.splits)
		}
	}
}

func TestThrottledWriteDoesNotGrowPartition(t *testing.T) {
	l := New(Options{})
	cap := Capacity{ARN: arn, Provisioned: true, Read: 1, Write: 1}
	if r := l.Take(t0, "id", Write, []Target{{Cap: cap, Hash: 7, Units: BurstSeconds + 5}}); r != nil {
		t.Fatalf("first write throttled: %v", r)
	}
	// The bucket (its full burst credit spent) is in debt now: this write is refused and must not count.
	if r := l.Take(t0, "id", Write, []Target{{Cap: cap, Hash: 7, Units: 1, Bytes: 11 << 30}}); r == nil {
		t.Fatal("second write admitted; want it throttled")
	}
	if m, _ := l.Partitions("id", ""); m.Len() != 1 {
		t.Fatalf("%d partitions after a refused 11 GB write, want 1", m.Len())
	}
}
