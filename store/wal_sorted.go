package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Sorted checkpoints. Applying a segment record by record (checkpoint's
// plain path) costs a bbolt transaction every page its records touch: a
// bulk load's keys are spread over the table, so 8 MiB of records change
// nearly every leaf page, and the transaction holds the whole table as
// bbolt nodes and new pages (a 1,000,000-item load peaked at +704 MiB of
// RSS, most of it this), and writes it whole again for each chunk.
//
// So a keyspace that the segment writes often (sortedMin puts and
// deletes or more) and that holds sortedTable entries or more is
// checkpointed differently: the record pass applies
// every other operation as before and only collects that keyspace's keys;
// then those keys, sorted and without repeats, are written in key order
// with their values taken from the memory engine (a put, or a delete where
// the memory engine has none), in bbolt transactions that end once they
// hold sortedNodes nodes or sortedBytes of data. Each page is then
// rewritten about once per segment, and what a transaction holds is
// bounded whatever the table's size. Values are not copied: the memory
// engine's arena never changes bytes it has written, and the state read
// is kept until the transaction ends. The keys are not all held at once:
// past sortedKeyBytes, they are collected and written a range of first
// bytes at a time (table keys begin with a hash, so the ranges are even),
// the first range by the record pass and each later one by a pass that
// only reads the segment's keys; each page is still rewritten about once.
//
// Which state. The memory engine's state at a log position P at or after
// the segment's end (durableRoot: every record up to P is in the log, and
// synced as far as the sync mode promises, so bbolt never holds a write
// the log could lose). A fresh state is read for each transaction, so that
// the checkpoint never keeps an old version of a busy table alive. Writing
// values newer than the segment is sound because every operation sets
// state (wal_record.go): the invariant is that each key in bbolt holds its
// value at some log position at or after the end of the last segment
// recorded as applied. Replaying, or checkpointing, the later segments
// over such a state ends in the true state: a key a later record writes
// gets that record's value (the last one wins), and a key none writes
// already had its last value. Applying a segment record by record keeps
// the invariant, and so does writing a key's value at P ≥ the segment's
// end. Until the last transaction records the segment as applied, bbolt
// holds a prefix of this work over the previous segment's state, which
// satisfies the invariant for the previous segment: a crash (kill -9)
// anywhere leaves bbolt that the next open replays from this segment.
//
// Spaces the segment creates or drops (a create empties the space) take
// the plain path, so a sorted keyspace's space exists in bbolt throughout;
// if the memory engine has dropped it since, its keys are deleted (its
// value at P is "none"), and the later drop is replayed anyway. The
// catalog always takes the plain path. A log that has failed makes every
// checkpoint plain: its state may hold writes the log lost.
//
// TestSortedCheckpointIsPlain holds the two paths to the same bbolt
// contents, byte for byte; TestSortedCheckpointCrashAtEveryStep and
// TestKilledSortedCheckpointKeepsAckedWrites crash in the middle.

// Sorted checkpoints' defaults (the checkpointer's fields, smaller in
// tests). sortedTable is the size (entries) from which a keyspace is worth
// it: the plain path's transaction holds at most the keyspace's pages, a
// few MiB below it, and a sorted checkpoint's extra work (reading the
// segment twice, sorting the keys, looking each up) cost durable PutItem
// and BatchWriteItem on a 20,000-item table 6-24 % of CPU (benchtool).
// sortedNodes bounds the bbolt nodes (pages read to change them) one
// transaction holds, sortedBytes the keys and values it writes. A
// transaction also keeps the memory engine's state it reads alive, and
// with it every node a busy table has copied since: at 2,048 nodes the
// transactions of a 1,000,000-item bulk load's checkpoints (bbolt's new
// pages, its nodes and that state) were most of the load's working
// memory beside the collector's headroom, at 512 about 15 MiB less
// (docs/import-export.md, fourteenth session).
const (
	sortedMin   = 4096
	sortedTable = 1 << 16
	sortedNodes = 512
	sortedBytes = 4 << 20
	// sortedKeyBytes bounds the keys (with 8 bytes each beside them) a
	// sorted checkpoint collects at once: a segment's keys beyond it are
	// collected and written a range of first bytes at a time, each range
	// a pass over the segment.
	sortedKeyBytes = 2 << 20
)

// errNoSegment: the log failed to start its next segment (the log's
// failure says why).
var errNoSegment = errors.New("store: the write-ahead log has no segment")

// ckptTarget is one keyspace of a space (sub is a subData...subMeta).
type ckptTarget struct {
	id  string
	sub byte
}

// sortedKeys collects the keys of one sorted keyspace from a segment: buf
// holds them one after the other, spans the start and end of each in buf
// (start<<32 | end; a segment is far below 4 GiB), 8 bytes a key. Only
// the keys whose first byte is in [from, to) are collected: a segment's
// keys are collected and written a range of first bytes at a time
// (keyRanges), so that they are not all held at once. hist counts the
// segment's keys by first byte (planSorted).
type sortedKeys struct {
	buf      []byte
	spans    []uint64
	from, to int
	hist     [256]keyCount
}

// keyCount counts keys and their bytes.
type keyCount struct{ n, size int }

// firstByte is the byte a key's range is chosen by (0 for the empty key).
func firstByte(key []byte) int {
	if len(key) == 0 {
		return 0
	}
	return int(key[0])
}

// collect empties s and makes it collect the keys whose first byte is in
// [from, to), with room for them all.
func (s *sortedKeys) collect(from, to int) {
	var n keyCount
	for _, h := range s.hist[from:to] {
		n.n, n.size = n.n+h.n, n.size+h.size
	}
	if cap(s.spans) < n.n {
		s.spans = make([]uint64, 0, n.n)
	}
	if cap(s.buf) < n.size {
		s.buf = make([]byte, 0, n.size)
	}
	s.buf, s.spans, s.from, s.to = s.buf[:0], s.spans[:0], from, to
}

func (s *sortedKeys) add(key []byte) {
	if b := firstByte(key); b < s.from || b >= s.to {
		return
	}
	start := len(s.buf)
	s.buf = append(s.buf, key...)
	s.spans = append(s.spans, uint64(start)<<32|uint64(len(s.buf)))
}

// key returns the key of span sp.
func (s *sortedKeys) key(sp uint64) []byte { return s.buf[sp>>32 : uint32(sp) : uint32(sp)] }

// sort orders the spans by key, each key once.
func (s *sortedKeys) sort() {
	slices.SortFunc(s.spans, func(x, y uint64) int { return bytes.Compare(s.key(x), s.key(y)) })
	s.spans = slices.CompactFunc(s.spans, func(x, y uint64) bool { return bytes.Equal(s.key(x), s.key(y)) })
}

// keyRanges splits the first bytes 0-255 into ranges [from, to) whose
// keys, over every keyspace of plan, take at most bound bytes with their
// spans (a range of one first byte may take more).
func keyRanges(plan map[ckptTarget]*sortedKeys, bound int) [][2]int {
	var ranges [][2]int
	from, acc := 0, 0
	for b := range 256 {
		need := 0
		for _, keys := range plan {
			need += keys.hist[b].size + 8*keys.hist[b].n
		}
		if b > from && acc+need > bound {
			ranges = append(ranges, [2]int{from, b})
			from, acc = b, 0
		}
		acc += need
	}
	return append(ranges, [2]int{from, 256})
}

// scanOp reads one operation from d and returns its op, its space and
// keyspace (sub, 0 for a create or drop) and its key (puts and deletes).
func scanOp(d *recordDecoder) (op byte, id []byte, sub byte, key []byte) {
	op = d.byte()
	switch op {
	case opCreateSpace, opDropSpace:
		id = d.bytes()
	case opPut:
		id, sub = d.bytes(), d.byte()
		klen, vlen := d.uvarint(), d.uvarint()
		key = d.take(klen)
		d.take(vlen)
	case opDelete:
		id, sub = d.bytes(), d.byte()
		key = d.bytes()
	case opSequence:
		id, sub = d.bytes(), d.byte()
		d.uvarint()
	default:
		d.fail()
	}
	return op, id, sub, key
}

// planSorted reads segment name and returns the keyspaces to checkpoint
// sorted: those with min puts and deletes or more, in spaces the segment
// neither creates nor drops. A corrupt record ends the plan with what it
// has (the record pass reports it).
func (c *checkpointer) planSorted(name string) (map[ckptTarget]*sortedKeys, error) {
	f, err := c.fs.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("store: checkpoint: %w", err)
	}
	defer f.Close()
	type count struct {
		ops  int
		hist [256]keyCount
	}
	ops := map[ckptTarget]*count{}
	reset := map[string]bool{}
	_, err = readRecords(f, func(body []byte) error {
		c.pace.tickRecord(len(body))
		d := recordDecoder{b: body}
		for len(d.b) > 0 && d.err == nil {
			op, id, sub, key := scanOp(&d)
			switch {
			case d.err != nil:
			case op == opCreateSpace || op == opDropSpace:
				reset[string(id)] = true
			case (op == opPut || op == opDelete) && sub != catalogSub:
				n := ops[ckptTarget{string(id), sub}]
				if n == nil {
					n = &count{}
					ops[ckptTarget{string(id), sub}] = n
				}
				n.ops++
				h := &n.hist[firstByte(key)]
				h.n, h.size = h.n+1, h.size+len(key)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: checkpoint: %w", err)
	}
	var plan map[ckptTarget]*sortedKeys
	for t, n := range ops {
		if n.ops >= c.sortedMin && !reset[t.id] && int(t.sub) < subCount && c.mem.holdsAtLeast(t, c.sortedTable) {
			if plan == nil {
				plan = map[ckptTarget]*sortedKeys{}
			}
			plan[t] = &sortedKeys{hist: n.hist}
		}
	}
	return plan, nil
}

// applyExcept applies a record's operations to t, except the puts and
// deletes of the keyspaces in plan, whose keys it collects. Runs of
// operations applied are handed whole to applyRecord, the plain path.
func applyExcept(t txn, body []byte, plan map[ckptTarget]*sortedKeys) error {
	d := recordDecoder{b: body}
	run := 0 // where the run of operations to apply begins in body
	var (
		looked  bool // last and lastSub are the last target looked up in plan
		last    []byte
		lastSub byte
		keys    *sortedKeys // its keys, nil if it is not sorted
	)
	for len(d.b) > 0 && d.err == nil {
		at := len(body) - len(d.b)
		op, id, sub, key := scanOp(&d)
		if d.err != nil || op != opPut && op != opDelete {
			continue
		}
		if !looked || sub != lastSub || !bytes.Equal(id, last) {
			looked, last, lastSub, keys = true, id, sub, plan[ckptTarget{string(id), sub}]
		}
		if keys == nil {
			continue
		}
		if err := applyRecord(t, body[run:at]); err != nil {
			return err
		}
		keys.add(key)
		run = len(body) - len(d.b)
	}
	if d.err != nil {
		return d.err
	}
	return applyRecord(t, body[run:])
}

// checkpointSorted is checkpoint with the keyspaces of plan written sorted
// (see above): the record pass, which collects the keys of the first
// range of first bytes (keyRanges), then each keyspace's keys of that
// range in key order; then, for each later range, a pass over the segment
// that only collects its keys, and those written. The segment is recorded
// as applied in the last transaction.
func (c *checkpointer) checkpointSorted(seg uint64, plan map[ckptTarget]*sortedKeys) error {
	name := segmentName(c.path, seg)
	targets := make([]ckptTarget, 0, len(plan))
	for tg := range plan {
		targets = append(targets, tg)
	}
	slices.SortFunc(targets, cmpTarget)
	var w sortedWriter
	for i, r := range keyRanges(plan, c.sortedKeyBytes) {
		for _, keys := range plan {
			keys.collect(r[0], r[1])
		}
		if i == 0 {
			t, n, err := c.recordPass(name, plan)
			if err != nil {
				return err
			}
			w = sortedWriter{c: c, t: t, n: n}
		} else if err := c.collectPass(name, plan); err != nil {
			return w.abort(err)
		}
		for _, tg := range targets {
			keys := plan[tg]
			keys.sort()
			if err := w.write(tg, keys); err != nil {
				return w.abort(fmt.Errorf("store: checkpoint %s: %w", name, err))
			}
		}
		w.root = nil // read a fresh state for the next range
	}
	if err := setApplied(boltTxn{w.t}, seg); err != nil {
		return w.abort(fmt.Errorf("store: checkpoint %s: %w", name, err))
	}
	cost := w.cost()
	if err := c.commit(w.t.Commit); err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", name, err)
	}
	c.overBudget(cost)
	return nil
}

// collectPass reads segment name again and collects the keys of the
// keyspaces of plan (those in their range), applying nothing.
func (c *checkpointer) collectPass(name string, plan map[ckptTarget]*sortedKeys) error {
	f, err := c.fs.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("store: checkpoint: %w", err)
	}
	defer f.Close()
	_, err = readRecords(f, func(body []byte) error {
		c.pace.tickRecord(len(body))
		d := recordDecoder{b: body}
		for len(d.b) > 0 && d.err == nil {
			op, id, sub, key := scanOp(&d)
			if d.err == nil && (op == opPut || op == opDelete) {
				if keys := plan[ckptTarget{string(id), sub}]; keys != nil {
					keys.add(key)
				}
			}
		}
		return d.err
	})
	if err != nil {
		return fmt.Errorf("store: checkpoint %s: %w", name, err)
	}
	return nil
}

func cmpTarget(x, y ckptTarget) int {
	if n := strings.Compare(x.id, y.id); n != 0 {
		return n
	}
	return int(x.sub) - int(y.sub)
}

// recordPass applies segment name, a chunk of records per transaction,
// except the keyspaces of plan, whose keys it collects. It returns the
// last transaction, open, and the bytes of records applied in it.
func (c *checkpointer) recordPass(name string, plan map[ckptTarget]*sortedKeys) (*bolt.Tx, int, error) {
	f, err := c.fs.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("store: checkpoint: %w", err)
	}
	defer f.Close()
	t, err := c.b.db.Begin(true)
	if err != nil {
		return nil, 0, mapErr(err)
	}
	var chunk int
	_, err = readRecords(f, func(body []byte) error {
		if chunk >= c.chunk {
			var cerr error
			if t, cerr = c.commitStep(t, chunk, "chunk committed"); cerr != nil {
				return cerr
			}
			chunk = 0
		}
		chunk += len(body)
		c.pace.tickRecord(len(body))
		return applyExcept(boltTxn{t}, body, plan)
	})
	if err != nil {
		if t != nil {
			_ = t.Rollback()
		}
		return nil, 0, fmt.Errorf("store: checkpoint %s: %w", name, err)
	}
	return t, chunk, nil
}

// commitStep commits t, which wrote n bytes, gives back the pages it read,
// tells a test, and begins the next transaction, unless close has spent
// its budget (errCloseBudget). t is finished either way.
func (c *checkpointer) commitStep(t *bolt.Tx, n int, step string) (*bolt.Tx, error) {
	if err := c.commit(t.Commit); err != nil {
		return nil, mapErr(err)
	}
	dropMapped(c.b.db)
	c.step(step)
	if c.overBudget(n) {
		return nil, errCloseBudget
	}
	t, err := c.b.db.Begin(true)
	return t, mapErr(err)
}

// sortedWriter writes sorted keyspaces, a bounded transaction at a time.
type sortedWriter struct {
	c    *checkpointer
	t    *bolt.Tx // nil after a failed commit
	n    int      // bytes written in t
	root *memRoot // the memory engine's state t writes from; nil: read one
}

// write writes the keys of keyspace tg (sorted, each once) with their
// values in the memory engine, committing whenever the transaction is
// full.
func (w *sortedWriter) write(tg ckptTarget, keys *sortedKeys) error {
	var (
		m    *kvMap
		d    *bolt.Bucket
		hint memHint
	)
	for i, sp := range keys.spans {
		key := keys.key(sp)
		if i%64 == 0 && w.full() {
			var err error
			if w.t, err = w.c.commitStep(w.t, w.cost(), "sorted committed"); err != nil {
				return err
			}
			w.n, w.root = 0, nil
		}
		if w.root == nil || d == nil {
			if err := w.open(tg, &m, &d); err != nil {
				return err
			}
			hint = memHint{}
		}
		if err := w.put(d, m, key, &hint); err != nil {
			return err
		}
		w.c.pace.tick(1)
	}
	return nil
}

// cost is what the transaction counts against close's budget (closeBytes):
// the data it writes, or the pages it rewrites if more. A sorted
// transaction of keys spread over a large table rewrites a page for every
// few keys, so counting its data alone let a close rewrite the whole
// table (4 s after a 1,000,000-item load).
func (w *sortedWriter) cost() int {
	st := w.t.Stats()
	return max(w.n, int(st.GetNodeCount())*w.c.b.db.Info().PageSize)
}

// full reports whether the transaction holds its bound of nodes or data.
func (w *sortedWriter) full() bool {
	if w.n >= w.c.sortedBytes {
		return true
	}
	st := w.t.Stats()
	return st.GetNodeCount() >= int64(w.c.sortedNodes)
}

// open reads the memory engine's state, if the transaction has none yet,
// and resolves keyspace tg in it (m, nil if its space is gone) and in bbolt
// (d).
func (w *sortedWriter) open(tg ckptTarget, m **kvMap, d **bolt.Bucket) error {
	if w.root == nil {
		w.c.pace.free() // durableRoot may wait for a sync
		root, err := w.c.mem.durableRoot()
		w.c.pace.hold()
		if err != nil {
			return err
		}
		w.root = root
	}
	*m = nil
	if sp, ok := w.root.spaces.Get(tg.id); ok {
		*m = sp.kv[tg.sub]
	}
	sp := w.t.Bucket([]byte(spacesBucket)).Bucket([]byte(tg.id))
	if sp == nil {
		return fmt.Errorf("%w: no space %q in bbolt", errCorruptRecord, tg.id)
	}
	if *d = sp.Bucket(subNames[tg.sub]); *d == nil {
		return fmt.Errorf("%w: no keyspace %d of space %q in bbolt", errCorruptRecord, tg.sub, tg.id)
	}
	return nil
}

// put writes key's value in m to d, or deletes key from d where m has none.
func (w *sortedWriter) put(d *bolt.Bucket, m *kvMap, key []byte, hint *memHint) error {
	val, ok := m.get(&w.c.mem.probes, key, hint)
	w.n += len(key) + len(val)
	if !ok {
		return mapErr(d.Delete(key))
	}
	return mapErr(d.Put(key, val))
}

// abort rolls back the open transaction, if any, and returns err.
func (w *sortedWriter) abort(err error) error {
	if w.t != nil {
		_ = w.t.Rollback()
	}
	return err
}

// durableRoot returns the memory engine's published state once every
// record it includes is in the log as durably as the sync mode promises.
// The state includes every record of the segments handed to the
// checkpointer. With a pipeline (SyncAlways) only synced commits are
// published. Otherwise a commit's state is published after its record is
// written (and, when it fills a segment, after the segment is handed
// over), so the state is read under the writer's lock, with the log
// position it reaches, and, with the background syncer, returned once
// that position is synced. A failed log returns its failure.
func (e *memEngine) durableRoot() (*memRoot, error) {
	w := e.wal
	if err := w.failure(); err != nil {
		return nil, err
	}
	if w.pipe != nil {
		return e.cur.Load(), nil
	}
	e.writer.Lock()
	root, size := e.cur.Load(), w.size
	var f vfile
	if w.bg != nil && len(w.syncf) > 0 {
		f = w.syncf[0]
	}
	e.writer.Unlock()
	if w.bg != nil && f == nil {
		return nil, errNoSegment
	}
	if w.bg != nil {
		if err := w.bg.waitSynced(f, size); err != nil {
			return nil, err
		}
	}
	return root, nil
}

// waitSynced waits until the first size bytes of the segment that f
// syncs are synced (or the syncer has moved to a later segment, which it
// does only once f's is synced), or returns the sync's failure.
func (s *bgSyncer) waitSynced(f vfile, size int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.f == f && s.synced < size && s.err == nil {
		s.cond.Wait()
	}
	if s.f == f && s.synced < size {
		return fmt.Errorf("store: write-ahead log unusable: sync: %w", s.err)
	}
	return nil
}

// holdsAtLeast reports whether keyspace tg holds n entries or more now
// (counting stops at n).
func (e *memEngine) holdsAtLeast(tg ckptTarget, n int) bool {
	sp, ok := e.cur.Load().spaces.Get(tg.id)
	if !ok {
		return false
	}
	count := 0
	sp.kv[tg.sub].t.Scan(func(memEntry) bool {
		count++
		return count < n
	})
	return count >= n
}
