package insights

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/partition"
)

// key returns the table storage key of partition key pk (S) and sort key
// sk ("" for none), as package table builds it.
func key(pk, sk string) []byte {
	v := attr.Value{T: attr.TypeS, S: pk}
	b := attr.AppendHashPrefix(nil, attr.PartitionHash(v))
	b = attr.AppendKey(b, v)
	if sk != "" {
		b = attr.AppendKey(b, attr.Value{T: attr.TypeS, S: sk})
	}
	return b
}

// decode is a table's decoder for keys built by key (sorted says whether
// the table has a sort key).
func decode(sorted bool) func([]byte) (pk, sk *attr.Value) {
	return func(b []byte) (pk, sk *attr.Value) {
		p, rest, err := attr.DecodeKey(b[attr.HashPrefixLen:], attr.TypeS)
		if err != nil {
			return nil, nil
		}
		if !sorted || len(rest) == 0 {
			return &p, nil
		}
		s, _, err := attr.DecodeKey(rest, attr.TypeS)
		if err != nil {
			return &p, nil
		}
		return &p, &s
	}
}

// fakeClock is a movable clock for deterministic buckets.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock                   { return &fakeClock{t: time.Unix(1764633600, 0)} }
func prefixLen(k []byte) int                 { return len(key(mustPK(k), "")) }
func mustPK(k []byte) string                 { p, _ := decode(false)(k); return p.S }
func tableOf(r *Recorder, id string, sorted bool, entries ...[]byte) Table {
	z := r.Sizer(id, "")
	for _, e := range entries {
		z.Entry(e, prefixLen(e), 100)
	}
	return Table{Name: "T", Indexes: []Index{{Name: "", Sizer: z, Decode: decode(sorted), HasSort: sorted}}}
}

func TestSketchFindsHeavyKeys(t *testing.T) {
	s := newSketch(8)
	// 1000 distinct light keys interleaved with a heavy one that has a
	// quarter of the weight: space-saving must keep it, with its exact
	// recorded weight since it never left the sketch once in.
	heavy := key("heavy", "")
	for i := 0; i < 1000; i++ {
		k := key(fmt.Sprint("k", i), "")
		s.add(hashOf(k), k, counts{writeUnits: 1})
		if i%3 == 0 {
			s.add(hashOf(heavy), heavy, counts{writeUnits: 1})
		}
	}
	top := s.top(3)
	if len(top) == 0 || string(top[0].key) != string(heavy) {
		t.Fatalf("top key = %q, want the heavy key", top[0].key)
	}
	if got, want := top[0].counts.writeUnits, 334.0; got != want {
		t.Errorf("heavy key units = %v, want %v", got, want)
	}
	if len(s.slots) != 8 || len(s.byID) != 8 {
		t.Errorf("sketch holds %d slots, %d ids; want 8 (bounded)", len(s.slots), len(s.byID))
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	c := newClock()
	r := New(Options{Now: c.now})
	keys := make([][]byte, 200) // more keys than the sketch holds: replacements too
	for i := range keys {
		keys[i] = key(fmt.Sprint("user#", i), "s")
	}
	for _, k := range keys {
		r.Write("t1", "", k, 1)
		r.Read("t1", "", k, 0.5)
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		k := keys[i%len(keys)]
		r.Write("t1", "", k, 1)
		r.Read("t1", "", k, 0.5)
		i++
	})
	if allocs != 0 {
		t.Errorf("recording allocates %v times per call, want 0", allocs)
	}
}

func TestSeriesBucketsFollowTheClock(t *testing.T) {
	c := newClock()
	r := New(Options{Now: c.now, Buckets: 3, BucketSeconds: 10})
	k := key("a", "")
	p := partition.Even(4).Of(hashOf(k))
	r.Write("t1", "", k, 1) // bucket 0
	c.advance(10 * time.Second)
	r.Write("t1", "", k, 2) // bucket 1
	r.Write("t1", "", k, 2)
	c.advance(30 * time.Second) // bucket 4: bucket 0 and 1 fall out of a 3-bucket window
	r.Read("t1", "", k, 0.5)
	rep := r.Report("t1", tableOf(r, "t1", false))
	part := rep.Indexes[0].Partitions[p]
	if part.WriteUnits != 5 || part.ReadUnits != 0.5 {
		t.Errorf("totals = %v write, %v read; want 5 and 0.5", part.WriteUnits, part.ReadUnits)
	}
	now := c.t.Unix()
	want := []Sample{{T: now - 20}, {T: now - 10}, {T: now, ReadUnits: 0.5}}
	if fmt.Sprint(part.Series) != fmt.Sprint(want) {
		t.Errorf("series = %v, want %v", part.Series, want)
	}
	if rep.Now != now || rep.BucketSeconds != 10 {
		t.Errorf("now, bucketSeconds = %d, %d; want %d, 10", rep.Now, rep.BucketSeconds, now)
	}
}

func TestSplitKeepsLowerHalfHistory(t *testing.T) {
	c := newClock()
	m := partition.Even(2)
	r := New(Options{Now: c.now, Partitions: func(string, string) partition.Map { return m }})
	var k0 []byte
	for i := 0; k0 == nil; i++ { // a key of partition 0
		if k := key(fmt.Sprint(i), ""); m.Of(hashOf(k)) == 0 {
			k0 = k
		}
	}
	r.Write("t1", "", k0, 3)
	m, _ = m.Split(1)
	rep := r.Report("t1", tableOf(r, "t1", false))
	parts := rep.Indexes[0].Partitions
	if len(parts) != 3 || parts[0].WriteUnits != 3 || parts[0].HashLow != "0x0000000000000000" || parts[2].HashHigh != "0xffffffffffffffff" {
		t.Fatalf("after split: %+v", parts)
	}
}

func TestTopKeysRankPartitionAndWholeKeys(t *testing.T) {
	c := newClock()
	r := New(Options{Now: c.now})
	for i := 0; i < 5; i++ {
		r.Write("t1", "", key("a", "1"), 1)
	}
	r.Write("t1", "", key("a", "2"), 1)
	r.Write("t1", "", key("b", "1"), 1)
	r.Throttled("t1", "", key("b", "1"), true)
	rep := r.Report("t1", tableOf(r, "t1", true))
	var got []string
	for _, k := range rep.TopKeys.ByUnits {
		s := k.PartitionKey.S
		if k.SortKey != nil {
			s += "/" + k.SortKey.S
		}
		got = append(got, fmt.Sprintf("%s=%v", s, k.WriteUnits))
	}
	if want := "a=6 a/1=5 b=1 a/2=1 b/1=1"; strings.Join(got, " ") != want {
		t.Errorf("byUnits = %s, want %s", strings.Join(got, " "), want)
	}
	th := rep.TopKeys.ByThrottles
	if len(th) != 2 || th[0].PartitionKey.S != "b" || th[0].Throttles != 1 || th[0].WriteUnits != 1 {
		t.Errorf("byThrottles = %+v, want b and b/1 with one throttle and their unit", th)
	}
}

func TestScanPageSpreadsOverPartitionsRead(t *testing.T) {
	r := New(Options{Now: newClock().now})
	// A full-table Scan page read all four partitions; a segment's page
	// read only the second; a Query page reads its key's partition.
	r.Page("t1", "", PageRead{LastRead: ^uint64(0), Units: 8, Scanned: 40, Returned: 10, Scan: true})
	r.Page("t1", "", PageRead{From: attr.AppendHashPrefix(nil, 1<<62), LastRead: 1<<62 + 5, Units: 1, Scanned: 3, Returned: 3, Scan: true})
	q := key("a", "")
	r.Page("t1", "", PageRead{From: q, LastRead: hashOf(q), Units: 3, Scanned: 6, Returned: 2})
	rep := r.Report("t1", tableOf(r, "t1", false))
	want := []float64{2, 3, 2, 2}
	want[partition.Even(4).Of(hashOf(q))] += 3
	for i, p := range rep.Indexes[0].Partitions {
		if p.ReadUnits != want[i] {
			t.Errorf("partition %d read units = %v, want %v", i, p.ReadUnits, want[i])
		}
	}
	a := rep.Amplification
	if a.ItemsRead != 49 || a.ItemsReturned != 15 || a.UnitsRead != 12 || a.UnitsPerReturnedItem != 12.0/15 || a.ScanReadShare != 0.75 {
		t.Errorf("amplification = %+v", a)
	}
	if len(rep.TopKeys.ByUnits) != 1 || rep.TopKeys.ByUnits[0].PartitionKey.S != "a" || rep.TopKeys.ByUnits[0].ReadUnits != 3 {
		t.Errorf("top keys = %+v, want only the queried key", rep.TopKeys.ByUnits)
	}
}

// TestWritesMatchesWrite: Writes (a table's key and its indexes' under one
// lock and one clock reading) leaves the report that a Write per key, its
// plain twin, leaves: over more keys than the sketches hold, with units
// of every size, some writes to indexes only, across time buckets.
func TestWritesMatchesWrite(t *testing.T) {
	c := newClock()
	merged, plain := New(Options{Now: c.now, TopK: 8}), New(Options{Now: c.now, TopK: 8})
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"", "g1", "g2"}
	for i := range 3000 {
		var ws []KeyWrite
		for _, n := range names {
			if n != "" && rng.IntN(3) == 0 {
				continue // the item is not in this index
			}
			k := key(fmt.Sprint(n, "#", rng.IntN(100)), fmt.Sprint(rng.IntN(50)))
			ws = append(ws, KeyWrite{Index: n, Key: k, Units: float64(1 + rng.IntN(4))})
		}
		merged.Writes("t1", ws...)
		for _, w := range ws {
			plain.Write("t1", w.Index, w.Key, w.Units)
		}
		if i%100 == 99 {
			c.advance(7 * time.Second)
		}
	}
	report := func(r *Recorder) Report {
		tb := Table{Name: "T"}
		for _, n := range names {
			tb.Indexes = append(tb.Indexes, Index{Name: n, Sizer: r.Sizer("t1", n), Decode: decode(true), HasSort: true})
		}
		return r.Report("t1", tb)
	}
	got, want := report(merged), report(plain)
	if len(want.TopKeys.ByUnits) == 0 || len(want.Indexes) != len(names) {
		t.Fatalf("the plain report has %d top keys and %d indexes: nothing compared", len(want.TopKeys.ByUnits), len(want.Indexes))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Writes report:\n%+v\nWrite per key:\n%+v", got, want)
	}
}
