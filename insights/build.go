package insights

import (
	"cmp"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
)

// Table is what the table layer tells a report about one table.
type Table struct {
	Name string
	// Throttling says whether the throttle model is on for the table.
	Throttling bool
	// Indexes are the base table ("") first, then its indexes, each with a
	// Sizer that was fed the index's entries.
	Indexes []Index
	// CollectionLimit is the item collection size limit in bytes of a
	// table with local secondary indexes; 0 means no limit.
	CollectionLimit int64
	// CollectionSize, when set, returns the stored size of the item
	// collection whose partition prefix is given (items plus local index
	// entries, as DynamoDB counts it); else a Sizer's sum of item sizes is
	// used.
	CollectionSize func(prefix []byte) int64
}

// Index is one table or index of a report.
type Index struct {
	Name  string
	Sizer *Sizer
	// Decode returns the partition and sort key values (sk nil when the
	// index has no sort key) of one of the index's storage keys or
	// partition prefixes; nil values for bytes it cannot decode.
	Decode  func(key []byte) (pk, sk *attr.Value)
	HasSort bool
}

// Report returns the insights of table tableID as described by t.
func (r *Recorder) Report(tableID string, t Table) Report {
	ts := r.table(tableID)
	ts.mu.Lock()
	for _, ix := range t.Indexes {
		ts.index(r, ix.Name)
	}
	ts.mu.Unlock()
	r.installMaps(ts, tableID)
	now := r.opts.Now().Unix()
	rep := Report{Table: t.Name, Throttling: t.Throttling, Now: now,
		BucketSeconds: r.opts.BucketSeconds, Indexes: []IndexReport{},
		TopKeys:     TopKeys{ByUnits: []KeyReport{}, ByThrottles: []KeyReport{}},
		Collections: []Collection{}, Warnings: []Warning{}}
	for _, ix := range t.Indexes {
		ix.Sizer.Finish()
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var units, throttles []KeyReport
	for _, ix := range t.Indexes {
		st := ts.index(r, ix.Name)
		rep.Indexes = append(rep.Indexes, r.indexReport(st, ix.Sizer, now))
		units = append(units, keyReports(st, ix, st.pkUnits, st.keyUnits)...)
		throttles = append(throttles, keyReports(st, ix, st.pkThrottles, st.keyThrottles)...)
		rep.Collections = append(rep.Collections, collections(ix, t.CollectionSize)...)
	}
	rep.TopKeys.ByUnits = rank(units, func(k KeyReport) float64 { return k.ReadUnits + k.WriteUnits })
	rep.TopKeys.ByThrottles = rank(throttles, func(k KeyReport) float64 { return k.Throttles })
	slices.SortStableFunc(rep.Collections, func(a, b Collection) int { return cmp.Compare(b.SizeBytes, a.SizeBytes) })
	if len(rep.Collections) > TopN {
		rep.Collections = rep.Collections[:TopN]
	}
	rep.Amplification = ts.amp.report()
	rep.Warnings = warnings(ts, t, rep, r.dates())
	return rep
}

// indexReport renders st's partitions with z's sizes (when z measured the
// same partitioning) and the series of the last Buckets buckets up to now.
func (r *Recorder) indexReport(st *indexStats, z *Sizer, now int64) IndexReport {
	out := IndexReport{Index: st.name, Partitions: []PartitionReport{}}
	sized := z != nil && sameMap(z.parts, st.parts)
	last := r.bucket(now)
	for p := 0; p < st.parts.Len(); p++ {
		lo, hi := st.parts.Range(p)
		c := st.totals[p]
		pr := PartitionReport{Partition: p, HashLow: hex64(lo), HashHigh: hex64(hi),
			ReadUnits: c.readUnits, WriteUnits: c.writeUnits, ReadThrottles: c.readThrottles, WriteThrottles: c.writeThrottles,
			Series: make([]Sample, 0, r.opts.Buckets)}
		if sized {
			pr.Items, pr.SizeBytes = z.items[p], z.bytes[p]
		}
		ring := st.series[p]
		for n := last - int64(len(ring)) + 1; n <= last; n++ {
			s := Sample{T: n * r.opts.BucketSeconds}
			if b := ring[int(n%int64(len(ring)))]; b.n == n {
				s.ReadUnits, s.WriteUnits, s.ReadThrottles, s.WriteThrottles = b.readUnits, b.writeUnits, b.readThrottles, b.writeThrottles
			}
			pr.Series = append(pr.Series, s)
		}
		out.Partitions = append(out.Partitions, pr)
	}
	return out
}

// keyReports renders the top keys of one pair of sketches (partition keys
// and, for an index with a sort key, whole keys), with the other measure
// (units or throttles) looked up in the sibling sketch.
func keyReports(st *indexStats, ix Index, pks, keys *sketch) []KeyReport {
	var out []KeyReport
	add := func(sl slot, whole bool) {
		pk, sk := ix.Decode(sl.key)
		if pk == nil {
			return
		}
		if !whole {
			sk = nil
		}
		c := sl.counts
		// Units and throttles live in separate sketches: fill in the other.
		other := st.pkThrottles
		if pks == st.pkThrottles {
			other = st.pkUnits
		}
		if whole {
			other = st.keyThrottles
			if keys == st.keyThrottles {
				other = st.keyUnits
			}
		}
		if o, ok := other.lookup(sl.id); ok {
			c.add(o)
		}
		out = append(out, KeyReport{Index: ix.Name, PartitionKey: pk, SortKey: sk, Partition: st.parts.Of(hashOf(sl.key)),
			ReadUnits: c.readUnits, WriteUnits: c.writeUnits, Throttles: c.readThrottles + c.writeThrottles})
	}
	for _, sl := range pks.top(TopN) {
		add(sl, false)
	}
	if ix.HasSort {
		for _, sl := range keys.top(TopN) {
			add(sl, true)
		}
	}
	return out
}

// rank sorts keys by measure, heaviest first, and keeps the top TopN. Ties
// keep arrival order: per index, partition keys before whole keys.
func rank(keys []KeyReport, measure func(KeyReport) float64) []KeyReport {
	keys = slices.DeleteFunc(keys, func(k KeyReport) bool { return measure(k) <= 0 })
	slices.SortStableFunc(keys, func(a, b KeyReport) int { return cmp.Compare(measure(b), measure(a)) })
	if len(keys) > TopN {
		keys = keys[:TopN]
	}
	if keys == nil {
		keys = []KeyReport{}
	}
	return keys
}

// collections renders the largest item collections a Sizer measured.
func collections(ix Index, stored func([]byte) int64) []Collection {
	var out []Collection
	for _, c := range ix.Sizer.top {
		pk, _ := ix.Decode(c.prefix)
		size := c.bytes
		if stored != nil && ix.Name == "" {
			size = stored(c.prefix)
		}
		out = append(out, Collection{Index: ix.Name, PartitionKey: pk, SizeBytes: size, Items: c.items})
	}
	return out
}

// report renders the amplification counters.
func (a amplification) report() Amplification {
	out := Amplification{ItemsRead: a.itemsRead, ItemsReturned: a.itemsReturned, UnitsRead: a.unitsRead}
	if a.itemsReturned > 0 {
		out.UnitsPerReturnedItem = a.unitsRead / float64(a.itemsReturned)
	}
	if a.unitsRead > 0 {
		out.ScanReadShare = a.scanUnits / a.unitsRead
	}
	return out
}
