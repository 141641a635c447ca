package insights

import "github.com/ddblocal/ddblocal/partition"

// indexStats is the statistics of a table ("" name) or one of its indexes.
type indexStats struct {
	name  string
	parts partition.Map
	// per partition (indexed as parts numbers them): totals since the
	// table was first seen, and a ring of the last Buckets buckets.
	totals []counts
	series [][]bucket
	// The sketches: partition keys (identified by their hash) and whole
	// keys, by units and by throttles.
	pkUnits, keyUnits, pkThrottles, keyThrottles *sketch
}

// bucket is one time bucket of a partition's series.
type bucket struct {
	n int64 // bucket number (unix seconds / BucketSeconds); 0 slots are unused
	counts
}

// find returns the statistics of index name, or nil; t.mu is held.
func (t *tableStats) find(name string) *indexStats {
	for _, ix := range t.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// index returns the statistics of index name, creating them; t.mu is held.
func (t *tableStats) index(r *Recorder, name string) *indexStats {
	if ix := t.find(name); ix != nil {
		return ix
	}
	// A new index takes the default map until the next refresh: the
	// partition registry may not be called under t.mu.
	ix := &indexStats{name: name,
		pkUnits: newSketch(r.opts.TopK), keyUnits: newSketch(r.opts.TopK),
		pkThrottles: newSketch(r.opts.TopK), keyThrottles: newSketch(r.opts.TopK)}
	ix.setMap(partition.Even(startingPartitions), r.opts.Buckets)
	t.indexes = append(t.indexes, ix)
	t.mapped.Store(-1)
	return ix
}

// refreshMaps fetches the partition maps of t's indexes once per bucket,
// without holding t.mu while the registry is asked.
func (r *Recorder) refreshMaps(t *tableStats, tableID string, now int64) {
	b := r.bucket(now)
	last := t.mapped.Load()
	if last == b || !t.mapped.CompareAndSwap(last, b) {
		return
	}
	r.installMaps(t, tableID)
}

// installMaps asks the registry for the maps of every index t knows and
// installs those that changed.
func (r *Recorder) installMaps(t *tableStats, tableID string) {
	t.mu.Lock()
	names := make([]string, len(t.indexes))
	for i, ix := range t.indexes {
		names[i] = ix.name
	}
	t.mu.Unlock()
	maps := make([]partition.Map, len(names))
	for i, n := range names {
		maps[i] = r.opts.Partitions(tableID, n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, n := range names {
		for _, ix := range t.indexes {
			if ix.name == n {
				ix.setMap(maps[i], r.opts.Buckets)
			}
		}
	}
}

// setMap installs partitioning m. A partition whose hash range starts
// where an old one started keeps that one's history (after a split the
// lower half does); the others start empty.
func (ix *indexStats) setMap(m partition.Map, buckets int) {
	if ix.series != nil && sameMap(ix.parts, m) {
		return
	}
	old := map[uint64]int{}
	for i := 0; ix.series != nil && i < ix.parts.Len(); i++ {
		lo, _ := ix.parts.Range(i)
		old[lo] = i
	}
	totals := make([]counts, m.Len())
	series := make([][]bucket, m.Len())
	for i := range series {
		lo, _ := m.Range(i)
		if j, ok := old[lo]; ok {
			totals[i], series[i] = ix.totals[j], ix.series[j]
			continue
		}
		series[i] = make([]bucket, buckets)
	}
	ix.parts, ix.totals, ix.series = m, totals, series
}

func sameMap(a, b partition.Map) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := 0; i < a.Len(); i++ {
		alo, ahi := a.Range(i)
		blo, bhi := b.Range(i)
		if alo != blo || ahi != bhi {
			return false
		}
	}
	return true
}

// charge adds c to the partition that owns hash h, in the bucket of now.
func (ix *indexStats) charge(r *Recorder, now int64, h uint64, c counts) {
	ix.chargePartition(r, now, ix.parts.Of(h), c)
}

// chargePartition adds c to partition p, in the bucket of now.
func (ix *indexStats) chargePartition(r *Recorder, now int64, p int, c counts) {
	ix.totals[p].add(c)
	n := r.bucket(now)
	ring := ix.series[p]
	slot := &ring[int(n%int64(len(ring)))]
	if slot.n != n {
		*slot = bucket{n: n}
	}
	slot.add(c)
}
