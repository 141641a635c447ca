// Package insights keeps, always and cheaply, what a developer needs to see
// where load lands in a table: consumed units and throttles per partition
// over time, the hottest keys, read amplification and the share of Scans,
// and turns them, with the sizes the table layer measures, into a Report
// with warnings that carry their remedies.
//
// Memory is bounded per table and index: Options.Buckets time buckets per
// partition, and four space-saving sketches of Options.TopK keys each
// (partition keys and whole keys, by units and by throttles; see sketch).
// Nothing here touches the store; package table feeds the Recorder after
// each operation and measures sizes when a report is asked for.
package insights

import (
	"encoding/binary"
	"hash/maphash"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/partition"
)

// Defaults of Options.
const (
	DefaultBucketSeconds = 10
	DefaultBuckets       = 60 // ten minutes of history
	DefaultTopK          = 64
	// startingPartitions is how many partitions an on-demand table starts
	// with in DynamoDB, used until a partition registry is wired in.
	startingPartitions = 4
)

// Options configures a Recorder. Zero values take the defaults.
type Options struct {
	// Now is the server clock; nil means time.Now.
	Now func() time.Time
	// Partitions returns the current partitioning of a table (by table ID)
	// or one of its indexes ("" is the base table). It is called without
	// the Recorder's locks held, at most once per bucket per table and once
	// per report. Nil means partition.Even(4) for everything.
	Partitions func(tableID, index string) partition.Map
	// BucketSeconds is the width of one time bucket of the series.
	BucketSeconds int64
	// Buckets is how many buckets of history each partition keeps.
	Buckets int
	// TopK is how many keys each sketch tracks (reports show the top 10).
	TopK int
}

// Recorder accumulates the statistics of every table. It is safe for
// concurrent use; recording takes one table's mutex and does not allocate
// once the table's keys have been seen (see sketch).
type Recorder struct {
	opts Options
	seed maphash.Seed
	// dates is datePattern compiled, on the first report that needs it.
	dates  func() *regexp.Regexp
	mu     sync.RWMutex
	tables map[string]*tableStats
}

// New returns an empty Recorder.
func New(opts Options) *Recorder {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Partitions == nil {
		opts.Partitions = func(string, string) partition.Map { return partition.Even(startingPartitions) }
	}
	if opts.BucketSeconds <= 0 {
		opts.BucketSeconds = DefaultBucketSeconds
	}
	if opts.Buckets <= 0 {
		opts.Buckets = DefaultBuckets
	}
	if opts.TopK <= 0 {
		opts.TopK = DefaultTopK
	}
	return &Recorder{opts: opts, seed: maphash.MakeSeed(), dates: sync.OnceValue(compileDates), tables: map[string]*tableStats{}}
}

// tableStats is one table's statistics, under its own mutex.
type tableStats struct {
	mu      sync.Mutex
	indexes []*indexStats // few: a slice beats a map and never allocates to search
	amp     amplification
	// mapped is the bucket number in which the partition maps were last
	// fetched (-1: never).
	mapped atomic.Int64
}

// amplification counts what reads cost against what they returned.
type amplification struct {
	itemsRead, itemsReturned int64
	unitsRead                float64 // every read: keyed, Query and Scan
	scanUnits, queryUnits    float64
	// filtered* count only Query and Scan pages that had a filter.
	filteredRead, filteredReturned int64
}

// counts are units and throttles, the quantities kept per partition.
type counts struct {
	readUnits, writeUnits         float64
	readThrottles, writeThrottles float64
}

func (c *counts) add(o counts) {
	c.readUnits += o.readUnits
	c.writeUnits += o.writeUnits
	c.readThrottles += o.readThrottles
	c.writeThrottles += o.writeThrottles
}

// table returns id's statistics, creating them.
func (r *Recorder) table(id string) *tableStats {
	r.mu.RLock()
	t := r.tables[id]
	r.mu.RUnlock()
	if t != nil {
		return t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t = r.tables[id]; t == nil {
		t = &tableStats{}
		t.mapped.Store(-1)
		r.tables[id] = t
	}
	return t
}

// Drop forgets a table: it was deleted (a new table of the same name has
// another ID).
func (r *Recorder) Drop(tableID string) {
	r.mu.Lock()
	delete(r.tables, tableID)
	r.mu.Unlock()
}

// bucket is the number of the time bucket that holds unix second now.
func (r *Recorder) bucket(now int64) int64 { return floorDiv(now, r.opts.BucketSeconds) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Read records a keyed read (GetItem, BatchGetItem, TransactGetItems, or a
// Query's partition) of units against the item or partition whose storage
// key is key.
func (r *Recorder) Read(tableID, index string, key []byte, units float64) {
	r.record(tableID, index, key, counts{readUnits: units}, true)
}

// Write records a write of units against the item whose storage key is key.
func (r *Recorder) Write(tableID, index string, key []byte, units float64) {
	r.record(tableID, index, key, counts{writeUnits: units}, true)
}

// KeyWrite is what a write charges one key: the table's (Index "") or one
// of its indexes'.
type KeyWrite struct {
	Index string
	Key   []byte
	Units float64
}

// Writes records one write against each key of ws, as Write does for
// each in turn, under one lock and one reading of the clock: a write to a
// table with indexes is one call, where a Write per key (the plain twin,
// TestWritesMatchesWrite) takes the table's lock and reads the clock once
// per key.
func (r *Recorder) Writes(tableID string, ws ...KeyWrite) {
	t := r.table(tableID)
	now := r.opts.Now().Unix()
	r.refreshMaps(t, tableID, now)
	t.mu.Lock()
	for _, w := range ws {
		t.recordLocked(r, now, w.Index, w.Key, counts{writeUnits: w.Units}, true)
	}
	t.mu.Unlock()
}

// Throttled records one throttled request against the item whose storage
// key is key: the observer the throttle model reports to.
func (r *Recorder) Throttled(tableID, index string, key []byte, write bool) {
	c := counts{readThrottles: 1}
	if write {
		c = counts{writeThrottles: 1}
	}
	r.record(tableID, index, key, c, true)
}

// PageRead is one Query or Scan page, as Page records it.
type PageRead struct {
	// From is the start of the page's key range (nil: the start of the
	// space); a Query's starts with its partition prefix.
	From []byte
	// LastRead is the partition hash of the last entry the page read.
	LastRead uint64
	Units    float64
	// Scanned items were read, Returned were returned (after the filter).
	Scanned, Returned int
	Scan, Filtered    bool
}

// Page records one Query or Scan page. A Query page is charged to its
// partition and partition key; a Scan page's units are spread evenly over
// the partitions it read, from From's to LastRead's, and go to no key.
func (r *Recorder) Page(tableID, index string, p PageRead) {
	t := r.table(tableID)
	now := r.opts.Now().Unix()
	r.refreshMaps(t, tableID, now)
	t.mu.Lock()
	a := &t.amp
	a.itemsRead += int64(p.Scanned)
	a.itemsReturned += int64(p.Returned)
	a.unitsRead += p.Units
	if p.Scan {
		a.scanUnits += p.Units
	} else {
		a.queryUnits += p.Units
	}
	if p.Filtered {
		a.filteredRead += int64(p.Scanned)
		a.filteredReturned += int64(p.Returned)
	}
	ix := t.index(r, index)
	first, last := ix.parts.Of(hashOf(p.From)), ix.parts.Of(p.LastRead)
	if !p.Scan || last < first || p.Scanned == 0 {
		last = first
	}
	share := p.Units / float64(last-first+1)
	for part := first; part <= last; part++ {
		ix.chargePartition(r, now, part, counts{readUnits: share})
	}
	if !p.Scan && len(p.From) > attr.HashPrefixLen {
		ix.pkUnits.add(hashOf(p.From), p.From, counts{readUnits: p.Units})
	}
	t.mu.Unlock()
}

// record charges c to key's partition and to its keys in the sketches.
func (r *Recorder) record(tableID, index string, key []byte, c counts, keyed bool) {
	t := r.table(tableID)
	now := r.opts.Now().Unix()
	r.refreshMaps(t, tableID, now)
	t.mu.Lock()
	t.recordLocked(r, now, index, key, c, keyed)
	t.mu.Unlock()
}

// recordLocked is record's work under t.mu, at unix second now.
func (t *tableStats) recordLocked(r *Recorder, now int64, index string, key []byte, c counts, keyed bool) {
	if c.readUnits > 0 {
		t.amp.unitsRead += c.readUnits
		t.amp.itemsRead++
		t.amp.itemsReturned++
	}
	ix := t.index(r, index)
	h := hashOf(key)
	ix.charge(r, now, h, c)
	if keyed && len(key) > attr.HashPrefixLen {
		throttled := c.readThrottles+c.writeThrottles > 0
		if throttled {
			ix.pkThrottles.add(h, key, c)
			ix.keyThrottles.add(maphash.Bytes(r.seed, key), key, c)
		} else {
			ix.pkUnits.add(h, key, c)
			ix.keyUnits.add(maphash.Bytes(r.seed, key), key, c)
		}
	}
}

// hashOf returns the partition hash a storage key starts with (0 for a key
// shorter than the prefix, such as an open Scan start).
func hashOf(key []byte) uint64 {
	if len(key) < attr.HashPrefixLen {
		return 0
	}
	return binary.BigEndian.Uint64(key)
}
