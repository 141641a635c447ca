package store

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/tidwall/btree"
)

// errNoSequence is returned for a sequence of the catalog, which has none
// (only space logs are numbered).
var errNoSequence = errors.New("store: the catalog has no sequence")

// memDegree is the B-tree degree of every in-memory keyspace: nodes hold up
// to 2*memDegree-1 entries, and a write copies each node on its path once per
// transaction, so smaller nodes make commits cheaper at little cost to reads.
const memDegree = 16

// memSpace is one space's keyspaces and log sequence. Like a kvMap, a
// published memSpace is never modified.
type memSpace struct {
	kv  [subCount]*kvMap
	seq uint64
}

// memRoot is one committed state of the whole store.
type memRoot struct {
	catalog *kvMap
	spaces  *btree.Map[string, *memSpace]
}

// memEngine keeps everything in memory. Commit publishes a new root
// atomically; readers load the current root and never block.
type memEngine struct {
	cur    atomic.Pointer[memRoot]
	writer sync.Mutex // one writable transaction at a time
	// head, under writer, is the root written to the log but maybe not
	// yet durable (wal_pipeline.go): the base of the next write
	// transaction. nil: cur is.
	head *memRoot

	// wal, when set, makes the engine durable: each commit's record (built
	// in rec, which the one writer reuses) is logged before it is published.
	wal *wal
	rec recorder

	// metaKey, under writer, is the write transaction's scratch buffer
	// for metadata keys (memBucket.getMeta).
	metaKey []byte

	probes probes // search keys of every keyspace's searches

	// following are the spaces followed (follow.go), nil when none: a
	// write transaction notes their changes.
	following atomic.Pointer[followers]
}

func newMemEngine() *memEngine {
	e := &memEngine{}
	e.cur.Store(&memRoot{catalog: newKVMap(&e.probes), spaces: btree.NewMap[string, *memSpace](memDegree)})
	return e
}

func (e *memEngine) begin(writable bool) (txn, error) {
	if writable {
		e.writer.Lock()
	}
	root := e.cur.Load()
	if writable && e.head != nil {
		if e.wal.failure() == nil {
			root = e.head
		} else {
			e.head = nil // built on a write the log lost
		}
	}
	t := &memTxn{e: e, rw: writable, catalogMap: root.catalog, spaces: root.spaces}
	if writable {
		t.follows = e.following.Load()
	}
	if writable && e.wal != nil {
		e.rec.reset()
		t.rec = &e.rec
	}
	return t, nil
}

func (e *memEngine) close() error {
	if e.wal != nil {
		return e.wal.close()
	}
	return nil
}

// memTxn is a transaction over a memEngine. A write transaction copies what
// it changes, the first time it changes it: the catalog, the spaces map,
// each space, and each of a space's keyspaces.
type memTxn struct {
	e          *memEngine
	rw         bool
	finished   bool
	changed    bool
	catalogMap *kvMap
	spaces     *btree.Map[string, *memSpace]

	ownCatalog, ownSpaces bool
	owned                 map[string]*ownedSpace // spaces copied by this transaction

	rec *recorder // the write-ahead record being built; nil if not logged

	// follows are the followed spaces when the transaction began (nil:
	// none); changes and dropped are what it did to them (follow.go).
	follows *followers
	changes map[*Following][]Change
	dropped []*Following
}

// ownedSpace is a space this transaction has copied, and which of its
// keyspaces it has copied too. A space copied from the published state is
// copied into own, so that the copy and its bookkeeping are one allocation
// (a write to a table with a global index copies two spaces).
type ownedSpace struct {
	sp     *memSpace
	copied [subCount]bool
	own    memSpace
}

func (t *memTxn) writable() bool { return t.rw }

func (t *memTxn) commit() error {
	if t.finished {
		return ErrTxClosed
	}
	t.finished = true
	if t.rec != nil && !t.rec.empty() {
		// Logged before visible: nobody reads a write that a kill -9
		// could still take back (nor a power cut, under --sync always).
		if err := t.e.wal.append(t.rec.seal()); err != nil {
			t.e.writer.Unlock()
			return err
		}
	}
	if t.changed {
		t.compact()
		t.e.cur.Store(&memRoot{catalog: t.catalogMap, spaces: t.spaces})
	}
	t.deliverChanges()
	if t.rw {
		t.e.writer.Unlock()
	}
	return nil
}

// pipelined reports whether commitAsync applies: a write transaction over
// a synced log.
func (t *memTxn) pipelined() bool { return t.rw && t.e.wal != nil && t.e.wal.pipe != nil }

// commitAsync commits a pipelined transaction (wal_pipeline.go): it writes
// the record, makes the new state the base of the next write transaction,
// and returns; done is called once the record is durable and the state
// visible, or with the error that lost it, after every earlier commit's
// done. A transaction that wrote nothing, with nothing in flight, is done
// at once.
func (t *memTxn) commitAsync(done func(error)) {
	if t.finished {
		done(ErrTxClosed)
		return
	}
	t.finished = true
	e := t.e
	defer e.writer.Unlock()
	if t.changes != nil || t.dropped != nil {
		answer := done
		done = func(err error) {
			if err == nil {
				t.deliverChanges()
			}
			answer(err)
		}
	}
	w := e.wal
	fl := &flight{done: done}
	if !t.rec.empty() {
		start, err := w.write(t.rec.seal())
		if err != nil {
			done(err)
			return
		}
		fl.f, fl.syncf, fl.start = w.f, w.syncf, start
	}
	if t.changed {
		t.compact()
		fl.root = &memRoot{catalog: t.catalogMap, spaces: t.spaces}
	}
	if fl.f != nil && w.full() {
		t.commitFilling(fl)
		return
	}
	if fl.f == nil && !w.pipe.busy() {
		if fl.root != nil {
			e.cur.Store(fl.root)
			e.head = nil
		}
		done(nil)
		return
	}
	if fl.root != nil {
		e.head = fl.root
	}
	w.pipe.send(fl)
}

// commitFilling finishes commitAsync for the record that fills the
// segment: it waits for the commits before it, syncs the record itself,
// publishes it and moves to the next segment before answering, so the
// segment handed to the checkpointer is complete and a caller that has
// been answered sees the log as it will stay.
func (t *memTxn) commitFilling(fl *flight) {
	e, w := t.e, t.e.wal
	w.pipe.drain()
	e.head = nil // published by the drain, or lost with the log
	err := w.failure()
	if err == nil {
		if serr := fl.f.Datasync(); serr != nil {
			err = w.syncFailed(fl.f, fl.start, serr)
		}
	}
	if err == nil {
		if fl.root != nil {
			e.cur.Store(fl.root)
		}
		w.rotate()
	}
	fl.done(err)
}

// compact replaces each keyspace this transaction changed whose arena is
// mostly dead by a compacted copy. Its cost is that of copying the live
// entries, paid once the dead ones outweigh them, so a write pays for its
// own garbage a constant number of times.
func (t *memTxn) compact() {
	if t.ownCatalog && t.catalogMap.a.wasteful() {
		t.catalogMap = t.catalogMap.compacted(&t.e.probes)
	}
	for _, o := range t.owned {
		for which, copied := range o.copied {
			if copied && o.sp.kv[which].a.wasteful() {
				o.sp.kv[which] = o.sp.kv[which].compacted(&t.e.probes)
			}
		}
	}
}

func (t *memTxn) rollback() {
	if t.finished {
		return
	}
	t.finished = true
	if t.rw {
		t.e.writer.Unlock()
	}
}

func (t *memTxn) catalog() bucket { return &memBucket{t: t, catalog: true} }

func (t *memTxn) space(id string) spaceTxn {
	if _, ok := t.spaces.Get(id); !ok {
		return nil
	}
	return &memSpaceTxn{t: t, id: id}
}

func (t *memTxn) createSpace(id string) error {
	if !t.rw {
		return ErrReadOnly
	}
	if _, ok := t.spaces.Get(id); ok {
		return ErrSpaceExists
	}
	sp := &memSpace{}
	for i := range sp.kv {
		sp.kv[i] = newKVMap(&t.e.probes)
	}
	t.ownSpacesMap()
	t.spaces.Set(id, sp)
	t.ownedSpaces()[id] = &ownedSpace{sp: sp, copied: [subCount]bool{true, true, true}}
	if t.rec != nil {
		t.rec.createSpace(id)
	}
	return nil
}

func (t *memTxn) dropSpace(id string) error {
	if !t.rw {
		return ErrReadOnly
	}
	if _, ok := t.spaces.Get(id); !ok {
		return nil
	}
	t.ownSpacesMap()
	t.spaces.Delete(id)
	delete(t.owned, id)
	if t.follows != nil {
		t.noteDrop(id)
	}
	if t.rec != nil {
		t.rec.dropSpace(id)
	}
	return nil
}

func (t *memTxn) spaceIDs(fn func(id string) bool) {
	t.spaces.Scan(func(id string, _ *memSpace) bool { return fn(id) })
}

func (t *memTxn) ownSpacesMap() {
	t.changed = true
	if !t.ownSpaces {
		t.spaces = t.spaces.Copy()
		t.ownSpaces = true
	}
}

func (t *memTxn) ownedSpaces() map[string]*ownedSpace {
	if t.owned == nil {
		t.owned = make(map[string]*ownedSpace)
	}
	return t.owned
}

// spaceFor returns the space id as this transaction sees it, or nil.
func (t *memTxn) spaceFor(id string) *memSpace {
	if o := t.owned[id]; o != nil {
		return o.sp
	}
	sp, _ := t.spaces.Get(id)
	return sp
}

// writableMap returns keyspace which of space id, copied for this
// transaction if it was not yet; nil if the space does not exist.
func (t *memTxn) writableMap(id string, which int) *kvMap {
	t.changed = true
	o := t.owned[id]
	if o == nil {
		sp, ok := t.spaces.Get(id)
		if !ok {
			return nil
		}
		o = &ownedSpace{own: *sp}
		o.sp = &o.own
		t.ownSpacesMap()
		t.spaces.Set(id, o.sp)
		t.ownedSpaces()[id] = o
	}
	if !o.copied[which] {
		o.sp.kv[which] = o.sp.kv[which].copy()
		o.copied[which] = true
	}
	return o.sp.kv[which]
}

// memSpaceTxn is a space seen through a memTxn. Its data keyspace's
// bucket, which nearly every use of a space opens, is part of it, so that
// opening a space and its data is one allocation; the metadata and log
// buckets, which only writes open, are allocated together when the first
// of them is opened (a write to a table with a global index or a stream
// opens both: its counters, and its log's last sequence).
type memSpaceTxn struct {
	t    *memTxn
	id   string
	data memBucket
	aux  *[2]memBucket // the metadata and log buckets, nil until opened
}

func (s *memSpaceTxn) sub(which int) bucket {
	if which == subData {
		if s.data.t == nil {
			s.data = memBucket{t: s.t, id: s.id, which: subData}
		}
		return &s.data
	}
	if s.aux == nil {
		s.aux = &[2]memBucket{{t: s.t, id: s.id, which: subMeta}, {t: s.t, id: s.id, which: subLog}}
	}
	if which == subMeta {
		return &s.aux[0]
	}
	return &s.aux[1]
}

// memBucket is a keyspace seen through a memTxn. It resolves its map on
// every call, so that two handles on the same keyspace in one write
// transaction see each other's writes.
type memBucket struct {
	t       *memTxn
	catalog bool
	id      string
	which   int
	// hint remembers the path of the last search: a write usually follows
	// a read of the same key (the old item), and then needs no search.
	hint memHint
}

// read returns the map as the transaction sees it (nil if the space has
// been dropped).
func (b *memBucket) read() *kvMap {
	if b.catalog {
		return b.t.catalogMap
	}
	sp := b.t.spaceFor(b.id)
	if sp == nil {
		return nil
	}
	return sp.kv[b.which]
}

// write returns the map, copied for this transaction if needed.
func (b *memBucket) write() (*kvMap, error) {
	if !b.t.rw {
		return nil, ErrReadOnly
	}
	if b.catalog {
		b.t.changed = true
		if !b.t.ownCatalog {
			b.t.catalogMap = b.t.catalogMap.copy()
			b.t.ownCatalog = true
		}
		return b.t.catalogMap, nil
	}
	m := b.t.writableMap(b.id, b.which)
	if m == nil {
		return nil, ErrTxClosed // the space was dropped in this transaction
	}
	return m, nil
}

func (b *memBucket) get(key []byte) []byte {
	m := b.read()
	if m == nil {
		return nil
	}
	// A read starts from the root (the last path belongs to another key,
	// and following it costs comparisons) and leaves its path for a write.
	b.hint = memHint{}
	val, _ := m.get(&b.t.e.probes, key, &b.hint)
	return val
}

func (b *memBucket) put(key, val []byte) error {
	_, err := b.swap(key, val)
	return err
}

// swap stores key → val (copied into the arena) and returns the value it
// replaced, or nil.
func (b *memBucket) swap(key, val []byte) ([]byte, error) { return b.swapJoined(key, nil, val) }

// swapJoined is swap of the value head‖val, copied into the arena from
// its two parts (Space.SwapJoined).
func (b *memBucket) swapJoined(key, head, val []byte) ([]byte, error) {
	switch {
	case len(key) == 0:
		return nil, ErrKeyRequired
	case len(key) > MaxKeySize:
		return nil, ErrKeyTooLarge
	case len(head)+len(val) > MaxValueSize:
		return nil, ErrValueTooLarge
	}
	m, err := b.write()
	if err != nil {
		return nil, err
	}
	e := m.a.storeJoined(key, head, val)
	if head != nil {
		val = m.a.val(e) // the value as stored, for the log and followers
	}
	prev, replaced := m.t.SetHint(e, &b.hint)
	if r := b.t.rec; r != nil {
		id, sub := b.target()
		r.put(id, sub, key, val)
	}
	var old []byte
	if replaced {
		m.a.forget(prev)
		old = m.a.val(prev)
	}
	if b.t.follows != nil && b.which == subData && !b.catalog {
		b.t.noteChange(b.id, key, old, val)
	}
	return old, nil
}

func (b *memBucket) delete(key []byte) error {
	m, err := b.write()
	if err != nil {
		return err
	}
	pe, slot := b.t.e.probes.probe(key)
	prev, deleted := m.t.DeleteHint(pe, &b.hint)
	slot.release()
	if deleted {
		m.a.forget(prev)
		if b.t.follows != nil && b.which == subData && !b.catalog {
			b.t.noteChange(b.id, key, m.a.val(prev), nil)
		}
	}
	if r := b.t.rec; r != nil {
		id, sub := b.target()
		r.delete(id, sub, key)
	}
	return nil
}

func (b *memBucket) nextSequence() (uint64, error) {
	if b.catalog {
		return 0, errNoSequence
	}
	if _, err := b.write(); err != nil {
		return 0, err
	}
	sp := b.t.owned[b.id].sp
	sp.seq++
	if r := b.t.rec; r != nil {
		r.sequence(b.id, byte(b.which), sp.seq)
	}
	return sp.seq, nil
}

func (b *memBucket) setSequence(seq uint64) error {
	if b.catalog {
		return errNoSequence
	}
	if _, err := b.write(); err != nil {
		return err
	}
	b.t.owned[b.id].sp.seq = seq
	if r := b.t.rec; r != nil {
		r.sequence(b.id, byte(b.which), seq)
	}
	return nil
}

// target names this keyspace in a write-ahead record.
func (b *memBucket) target() (id string, sub byte) {
	if b.catalog {
		return "", catalogSub
	}
	return b.id, byte(b.which)
}

func (b *memBucket) sequence() uint64 {
	if sp := b.t.spaceFor(b.id); sp != nil {
		return sp.seq
	}
	return 0
}

func (b *memBucket) ascend(from, to []byte, fn func(k, v []byte) bool) {
	m := b.read()
	if m == nil {
		return
	}
	v, end := m.a.view(), boundOf(to)
	var p pivot
	visit := func(e memEntry) bool {
		p.free()
		if to != nil && v.compare(e, end) >= 0 {
			return false
		}
		return v.yield(m.a, e, fn)
	}
	if from == nil {
		m.t.Scan(visit)
		return
	}
	var pe memEntry
	pe, p.slot = b.t.e.probes.probe(from)
	m.t.Ascend(pe, visit)
	p.free()
}

func (b *memBucket) descend(from, to []byte, fn func(k, v []byte) bool) {
	m := b.read()
	if m == nil {
		return
	}
	v, start, end := m.a.view(), boundOf(from), boundOf(to)
	var p pivot
	visit := func(e memEntry) bool {
		p.free()
		if to != nil && v.compare(e, end) == 0 {
			return true // descend is [from, to): skip to itself
		}
		if from != nil && v.compare(e, start) < 0 {
			return false
		}
		return v.yield(m.a, e, fn)
	}
	if to == nil {
		m.t.Reverse(visit)
		return
	}
	var pe memEntry
	pe, p.slot = b.t.e.probes.probe(to)
	m.t.Descend(pe, visit)
	p.free()
}
