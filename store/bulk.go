package store

import (
	"bytes"
	"context"
	"errors"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bulk loads: the data of one space built whole outside the write path and
// installed at once (ImportTable, into the table it creates). The write
// path costs a bulk load dearly per item: a copy-on-write B-tree insert in
// a transaction, a write-ahead record, and a checkpoint that applies the
// records to bbolt in the order they came (for keys spread over the table,
// bbolt shifts each leaf to insert in its middle and rewrites most leaves
// per transaction). A Bulk instead inserts into a private B-tree that no
// reader sees (no copying, no record), and Install writes it to bbolt once,
// in key order (appends to full pages), then publishes it in one ordinary
// transaction, which logs only what its function writes.
//
// Durability: Install first moves the log to a new segment and waits until
// the checkpointer has copied every earlier segment into bbolt, so no record
// written before the load (the space's creation among them, which empties
// the space when applied) can be applied to bbolt after the data. The data
// then replaces the space's data in bbolt, a few MiB per bbolt transaction.
// A crash during that leaves the space's data in bbolt partly written, and
// nothing says it is complete: the caller keeps its own record of the load
// (a job) and builds it again from the start, which replaces it whole. The
// space's data must not be written while a Bulk for it is built: Install
// refuses (ErrBulkConflict) when it was, or when the space was dropped.

// ErrBulkConflict is returned by Bulk.Install when the space's data was
// written since NewBulk, or the space is gone.
var ErrBulkConflict = errors.New("store: the space was written or dropped while its bulk load was built")

// bulkFillChunk bounds the bytes of data one bbolt transaction of a fill
// writes, and so what bbolt holds in memory for it: the dirty pages, and
// the one leaf node that every key of the transaction is appended to
// (bbolt splits nodes only at the commit), whose entries' slice grows by
// doubling to a large object per transaction. 2 MiB rather than 8: an
// import of 1,000,000 items with a global index, durable, peaked at 66 MiB
// of working memory instead of 76-81 (BenchmarkTransfer), at no measured
// cost in rate (a commit's two fsyncs per 2 MiB).
const bulkFillChunk = 2 << 20

// bulkRun is how many entries a Bulk gathers before it sorts them and
// inserts them into its B-tree in key order: keys that come in no order
// (an import's, spread by their hash prefix) then land beside the one
// before, along one search path, instead of each on a path of its own.
const bulkRun = 1 << 16

// Bulk is the data of one space being built for Install. It is not safe for
// concurrent use.
type Bulk struct {
	db   *DB
	e    *memEngine
	id   string
	base *kvMap // the space's data at NewBulk: Install requires it unchanged
	m    *kvMap
	hint memHint
	n    int
	// run holds the entries put (in the arena) and not yet in m.t, in the
	// order put; runMax (bulkRun) bounds it. scratch and counts are
	// sortRun's.
	run     []memEntry
	runMax  int
	scratch []memEntry
	counts  []uint32
}

// NewBulk starts building the data of space id, which must exist. ok is
// false (and the caller writes through Update) when the store is not the
// memory engine, durable or not: a shared (etcd) store.
func (db *DB) NewBulk(id string) (b *Bulk, ok bool, err error) {
	e, ok := db.eng.(*memEngine)
	if !ok {
		return nil, false, nil
	}
	root := e.cur.Load()
	sp, found := root.spaces.Get(id)
	if !found {
		return nil, true, ErrBulkConflict
	}
	return &Bulk{db: db, e: e, id: id, base: sp.kv[subData], m: newKVMap(&e.probes), runMax: bulkRun}, true, nil
}

// Put stores key → val (copied) in the data being built. Keys may come in
// any order; a later Put of a key replaces the earlier one.
func (b *Bulk) Put(key, val []byte) error {
	switch {
	case len(key) == 0:
		return ErrKeyRequired
	case len(key) > MaxKeySize:
		return ErrKeyTooLarge
	case len(val) > MaxValueSize:
		return ErrValueTooLarge
	}
	if b.run == nil {
		b.run = make([]memEntry, 0, b.runMax)
	}
	b.run = append(b.run, b.m.a.store(key, val))
	if len(b.run) == b.runMax {
		b.flush()
	}
	return nil
}

// entryOrder orders two of a's entries by key: their prefixes, then the
// rest of their keys.
func (a *arena) entryOrder(x, y memEntry) int {
	if x.pre != y.pre {
		if lessPre(x.pre, y.pre) {
			return -1
		}
		return 1
	}
	return bytes.Compare(a.key(x), a.key(y))
}

// flush inserts the run's entries into the B-tree in key order (of
// entries with one key, the one put last wins: sortRun) and empties the
// run. TestBulkInstall puts keys in a shuffled order, some twice, across
// runs.
func (b *Bulk) flush() {
	a := b.m.a
	cmp := a.entryOrder
	if len(b.scratch) < len(b.run) {
		b.scratch = make([]memEntry, cap(b.run))
		b.counts = make([]uint32, 1<<radixBits+1)
	}
	sorted := sortRun(b.run, b.scratch, b.counts, cmp)
	for i, e := range sorted {
		if i+1 < len(sorted) && cmp(e, sorted[i+1]) == 0 {
			a.forget(e) // a later Put in this run replaces it
			continue
		}
		if prev, replaced := b.m.t.SetHint(e, &b.hint); replaced {
			a.forget(prev)
		} else {
			b.n++
		}
	}
	b.run = b.run[:0]
}

// settle puts the run into the B-tree and lets the run's buffers go: the
// data is built (a later Put makes new ones).
func (b *Bulk) settle() {
	b.flush()
	b.run, b.scratch, b.counts = nil, nil, nil
}

// Len returns how many keys the data being built holds.
func (b *Bulk) Len() int {
	b.settle()
	return b.n
}

// Ascend calls fn with each entry of the data being built, in key order,
// until fn returns false. The slices are valid only during the call.
func (b *Bulk) Ascend(fn func(k, v []byte) bool) {
	b.settle()
	b.m.t.Scan(func(e memEntry) bool {
		kv := b.m.a.bytes(e)
		return fn(kv[:e.klen], kv[e.klen:])
	})
}

// Install makes the data built the space's data, replacing what it held,
// durably (see above), and runs fn in the transaction that publishes it: a
// reader sees the space before or after, never between. The data of more
// spaces (others, from NewBulk of the same DB) is installed with it, in
// the same transaction. It returns ErrBulkConflict when a space's data was
// written since its NewBulk or the space is gone, fn's error, or the
// store's.
func (b *Bulk) Install(ctx context.Context, fn func(tx *Tx) error, others ...*Bulk) error {
	if !b.db.enter() {
		return ErrClosed
	}
	defer b.db.inflight.Done()
	all := append([]*Bulk{b}, others...)
	for _, o := range all {
		o.settle()
	}
	for _, o := range others {
		if o.e != b.e {
			return errors.New("store: bulk loads of two stores installed together")
		}
	}
	var err error
	if b.e.wal != nil {
		err = b.persist(all)
	}
	if err == nil {
		err = b.db.Update(ctx, publish(all, fn))
	}
	if err != nil && b.e.wal != nil {
		// bbolt may hold the data built, the memory engine does not: put
		// back the data the memory engine holds, so that the two agree.
		for _, o := range all {
			if rerr := fillBolt(b.e.wal.ck, o.id, b.e.published); rerr != nil && !errors.Is(rerr, ErrBulkConflict) {
				return errors.Join(err, rerr)
			}
		}
	}
	return err
}

// publish is Install's transaction: the data installed, then fn.
func publish(all []*Bulk, fn func(tx *Tx) error) func(tx *Tx) error {
	return func(tx *Tx) error {
		if err := tx.write(); err != nil {
			return err
		}
		t, ok := tx.t.(*memTxn)
		if !ok {
			return ErrBulkConflict
		}
		for _, b := range all {
			if err := t.install(b.id, b.base, b.m); err != nil {
				return err
			}
		}
		return fn(tx)
	}
}

// published returns the data of space id as last published (nil: the
// space is gone). Under the checkpointer's running lock, bbolt holds no
// record that it lacks: a segment is handed over only once published.
func (e *memEngine) published(id string) *kvMap {
	if sp, ok := e.cur.Load().spaces.Get(id); ok {
		return sp.kv[subData]
	}
	return nil
}

// persist writes the data built of every space of all into bbolt once
// every earlier log segment is there.
func (b *Bulk) persist(all []*Bulk) error {
	seg, err := b.e.handOver()
	if err != nil {
		return err
	}
	ck := b.e.wal.ck
	if err := ck.waitApplied(seg); err != nil {
		return err
	}
	for _, o := range all {
		if err := fillBolt(ck, o.id, func(string) *kvMap { return o.m }); err != nil {
			return err
		}
	}
	return nil
}

// waitApplied waits until bbolt holds every segment up to seg. It polls
// (a fill waits seconds at most, once per bulk load) rather than hooking
// the checkpointer's loop. It returns the failure of a checkpoint being
// retried, or ErrClosed once the checkpointer is closing.
func (c *checkpointer) waitApplied(seg uint64) error {
	for {
		c.mu.Lock()
		done := len(c.pending) == 0 || c.pending[0] > seg
		closing, err := c.closing, c.err
		c.mu.Unlock()
		switch {
		case done:
			return nil
		case closing:
			return ErrClosed
		case err != nil:
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// handOver ends the log's segment (when it holds any record) and returns
// the last segment the checkpointer has been given: every record committed
// so far is in it or before it.
func (e *memEngine) handOver() (uint64, error) {
	e.writer.Lock()
	defer e.writer.Unlock()
	w := e.wal
	if w.pipe != nil {
		w.pipe.drain()
	}
	e.head = nil // published by the drain, or lost with the log
	if err := w.failure(); err != nil {
		return 0, err
	}
	seg := w.seg
	if w.size == 0 {
		return seg - 1, nil
	}
	w.rotate()
	return seg, w.failure()
}

// fillBolt replaces the data of space id in bbolt by the entries of the
// map data returns (called once the lock is held), written in key order,
// bulkFillChunk bytes per bbolt transaction, each page filled whole. It
// holds the checkpointer's running lock, as a checkpoint does.
func fillBolt(c *checkpointer, id string, data func(id string) *kvMap) error {
	c.running.Lock()
	defer c.running.Unlock()
	m := data(id)
	if m == nil {
		return ErrBulkConflict
	}
	f := boltFill{db: c.b.db, id: []byte(id)}
	if err := f.begin(true); err != nil {
		return f.abort(err)
	}
	var err error
	m.t.Scan(func(e memEntry) bool {
		kv := m.a.bytes(e)
		err = f.put(kv[:e.klen], kv[e.klen:])
		return err == nil
	})
	if err != nil {
		return f.abort(err)
	}
	err = mapErr(f.t.Commit())
	dropMapped(f.db)
	return err
}

// boltFill is a fill's bbolt transaction and the bucket it writes.
type boltFill struct {
	db *bolt.DB
	id []byte
	t  *bolt.Tx
	d  *bolt.Bucket
	n  int
}

// begin starts a fill transaction; the first empties the space's data.
func (f *boltFill) begin(first bool) error {
	t, err := f.db.Begin(true)
	if err != nil {
		return mapErr(err)
	}
	f.t, f.n = t, 0
	sp := t.Bucket([]byte(spacesBucket)).Bucket(f.id)
	if sp == nil {
		return ErrBulkConflict
	}
	if first {
		if err := sp.DeleteBucket(subNames[subData]); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return mapErr(err)
		}
		if _, err := sp.CreateBucket(subNames[subData]); err != nil {
			return mapErr(err)
		}
	}
	f.d = sp.Bucket(subNames[subData])
	f.d.FillPercent = 1 // keys come in order: nothing is inserted between them later in this fill
	return nil
}

// put writes one entry, committing the transaction first when it is full.
func (f *boltFill) put(k, v []byte) error {
	if f.n >= bulkFillChunk {
		err := f.t.Commit()
		f.t = nil
		if err != nil {
			return mapErr(err)
		}
		if err := f.begin(false); err != nil {
			return err
		}
	}
	f.n += len(k) + len(v)
	return mapErr(f.d.Put(k, v))
}

// abort rolls back the open transaction, if any, and returns err.
func (f *boltFill) abort(err error) error {
	if f.t != nil {
		_ = f.t.Rollback()
	}
	return err
}

// install makes m the data of space id in t, if it is still base. The data
// is durable already (or the engine keeps none), so nothing is logged; a
// follower of the space is told every key of base as deleted and every key
// of m as put.
func (t *memTxn) install(id string, base, m *kvMap) error {
	sp := t.spaceFor(id)
	if sp == nil || sp.kv[subData] != base {
		return ErrBulkConflict
	}
	t.writableMap(id, subData)
	o := t.owned[id]
	o.sp.kv[subData] = m
	o.copied[subData] = false // a later write in t copies m: it may be shared with no one, but costs little
	if t.follows != nil && (*t.follows)[id] != nil {
		notify := func(of *kvMap, old bool) {
			of.t.Scan(func(e memEntry) bool {
				kv := of.a.bytes(e)
				if old {
					t.noteChange(id, kv[:e.klen], kv[e.klen:], nil)
				} else {
					t.noteChange(id, kv[:e.klen], nil, kv[e.klen:])
				}
				return true
			})
		}
		notify(base, true)
		notify(m, false)
	}
	return nil
}
