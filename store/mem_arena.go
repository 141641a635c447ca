package store

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/tidwall/btree"
)

// The memory engine's entries hold no Go pointers: their bytes live in
// large chunks (an arena per keyspace) and an entry names its place by
// number. B-tree nodes are then pointer-free memory that the garbage
// collector neither scans nor marks entry by entry, and a node copied on
// write is a plain memmove. With one pointer per entry, marking a few
// hundred thousand entries and copying pointerful nodes (write barriers,
// typed allocation) was most of a batch of random inserts.
//
// A search key is not in the arena: a probe entry names a slot of the
// engine's probe table, where the searching goroutine has put the key for
// the length of the search.

// memEntry is one key and value. pre holds the key's first 24 bytes,
// zero-padded and big-endian, so that most comparisons in a search are
// decided without reading the key itself (a cache miss): a table key is an
// 8-byte partition hash, the partition key's encoding and the sort key's, so
// within one partition 16 bytes barely reach the sort key and 24 usually
// decide (BenchmarkGrowingInsert: about 10 % faster than 16).
type memEntry struct {
	pre  [3]uint64
	ref  uint64 // chunk<<32 | offset in the arena, or probeRef | probe slot
	n    uint32 // len(key) + len(value)
	klen uint32
}

// probeRef marks the ref of a probe entry.
const probeRef = 1 << 63

// prefixOf returns key's first 24 bytes as three big-endian numbers,
// zero-padded: prefixOf(a) < prefixOf(b) implies a < b in byte order, and
// a < b implies prefixOf(a) <= prefixOf(b).
func prefixOf(key []byte) [3]uint64 {
	var b [24]byte
	copy(b[:], key)
	return [3]uint64{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:16]), binary.BigEndian.Uint64(b[16:])}
}

// Arena chunk sizes: a keyspace's first chunk is small (most keyspaces of a
// space hold a few metadata records) and each next one doubles, up to
// maxChunk. An entry larger than a quarter of maxChunk gets a chunk of its
// own.
const (
	minChunk = 1 << 10
	maxChunk = 64 << 10
)

// compactMin is the dead space below which a keyspace is never compacted.
const compactMin = 1 << 20

// arena holds the bytes of one keyspace's entries: every version of the
// keyspace (each transaction's copy-on-write copy) shares it. Chunks are
// only appended to, and bytes once written never change, so a reader's
// entries stay valid for as long as it holds them; overwritten and deleted
// entries leave dead bytes behind until a compaction copies the live ones into
// a new arena.
type arena struct {
	dir atomic.Pointer[[][]byte] // the chunks, by number

	// The writer's bookkeeping; readers never touch it. A transaction that
	// rolls back leaves its bytes unused and the counts approximate, which
	// costs some space and moves compaction a little, nothing else.
	cur        int   // the chunk being filled, -1 before the first
	used       int   // bytes used in it
	live, dead int64 // bytes of reachable and of replaced entries
}

func newArena() *arena {
	a := &arena{cur: -1}
	a.dir.Store(&[][]byte{})
	return a
}

// alloc reserves n bytes and returns where they are and the slice to fill.
func (a *arena) alloc(n int) (uint64, []byte) {
	dir := *a.dir.Load()
	if n > maxChunk/4 {
		c := make([]byte, n)
		return uint64(a.add(c)) << 32, c
	}
	if a.cur < 0 || a.used+n > len(dir[a.cur]) {
		size := minChunk
		if a.cur >= 0 {
			size = min(2*len(dir[a.cur]), maxChunk)
		}
		a.cur, a.used = a.add(make([]byte, max(size, n))), 0
		dir = *a.dir.Load()
	}
	off := a.used
	a.used += n
	return uint64(a.cur)<<32 | uint64(off), dir[a.cur][off : off+n : off+n]
}

// add appends chunk c to the directory and returns its number. Readers hold
// shorter directories and never read the element being written.
func (a *arena) add(c []byte) int {
	dir := append(*a.dir.Load(), c)
	a.dir.Store(&dir)
	return len(dir) - 1
}

// bytes returns a stored entry's key and value, together.
func (a *arena) bytes(e memEntry) []byte { return a.view().bytes(e) }

// view returns the chunks as they are now: enough to resolve every entry
// stored so far, so an iteration loads the directory once.
func (a *arena) view() arenaView { return *a.dir.Load() }

// arenaView is an arena's chunk directory at one moment.
type arenaView [][]byte

func (v arenaView) bytes(e memEntry) []byte {
	off := uint32(e.ref)
	return v[e.ref>>32][off : off+e.n : off+e.n]
}

// yield calls fn with e's key and value, for an iteration over a. An entry
// stored by fn itself during the iteration may be in a chunk added since the
// view was taken, which is then taken again.
func (v *arenaView) yield(a *arena, e memEntry, fn func(k, v []byte) bool) bool {
	if int(e.ref>>32) >= len(*v) {
		*v = a.view()
	}
	kv := v.bytes(e)
	return fn(kv[:e.klen], kv[e.klen:])
}

func (a *arena) key(e memEntry) []byte { return a.bytes(e)[:e.klen] }
func (a *arena) val(e memEntry) []byte { return a.bytes(e)[e.klen:] }

// store copies key and val into the arena, together, and returns their
// entry.
func (a *arena) store(key, val []byte) memEntry {
	n := len(key) + len(val)
	ref, buf := a.alloc(n)
	copy(buf[copy(buf, key):], val)
	a.live += int64(n)
	return memEntry{pre: prefixOf(key), ref: ref, n: uint32(n), klen: uint32(len(key))}
}

// forget counts a replaced or deleted entry's bytes as dead.
func (a *arena) forget(e memEntry) {
	a.live -= int64(e.n)
	a.dead += int64(e.n)
}

// wasteful reports whether the arena is more dead than alive.
func (a *arena) wasteful() bool { return a.dead > compactMin && a.dead > a.live }

// probeSlots is the size of the probe table. A search holds one slot (an
// ascent with an end, two) while it runs; more concurrent searches than
// slots wait for one to free up.
const probeSlots = 1024

// probes is the engine's table of search keys.
type probes struct {
	next  atomic.Uint32
	slots [probeSlots]probeSlot
}

type probeSlot struct {
	busy atomic.Bool
	key  []byte
}

// probe returns the entry that stands for key in searches, and the slot to
// release when the search is over.
func (p *probes) probe(key []byte) (memEntry, *probeSlot) {
	for {
		i := p.next.Add(1) % probeSlots
		s := &p.slots[i]
		if s.busy.CompareAndSwap(false, true) {
			s.key = key
			return memEntry{pre: prefixOf(key), ref: probeRef | uint64(i), n: uint32(len(key)), klen: uint32(len(key))}, s
		}
		if i == probeSlots-1 {
			// A whole round found every slot busy: sleep rather than spin,
			// so that the searches holding them get the CPU.
			time.Sleep(20 * time.Microsecond)
		}
	}
}

func (s *probeSlot) release() {
	s.key = nil
	s.busy.Store(false)
}

// pivot is the probe slot of an ascent's or descent's starting key. The
// B-tree compares with its pivot only on the way down, before it visits
// anything, so the first visit frees the slot: visits that search again (an
// index read fetching its table's item) then never hold two slots, and busy
// slots cannot all be waiting for another. A slot is freed exactly once,
// since a freed slot may already serve another search.
type pivot struct{ slot *probeSlot }

func (p *pivot) free() {
	if p.slot != nil {
		p.slot.release()
		p.slot = nil
	}
}

// kvMap is one ordered keyspace in memory: a B-tree of entries over an
// arena. Published maps are never modified: a write transaction mutates a
// copy (copy-on-write, O(1) until a node is touched), and readers keep
// whichever version they started with.
type kvMap struct {
	t *btree.BTreeG[memEntry]
	a *arena
}

// newKVMap returns an empty keyspace whose searches resolve probes in p.
func newKVMap(p *probes) *kvMap {
	a := newArena()
	key := func(e memEntry) []byte {
		if e.ref&probeRef != 0 {
			return p.slots[e.ref&^probeRef].key
		}
		return a.key(e)
	}
	less := func(x, y memEntry) bool {
		if x.pre != y.pre {
			return lessPre(x.pre, y.pre)
		}
		return bytes.Compare(key(x), key(y)) < 0
	}
	return &kvMap{t: btree.NewBTreeGOptions(less, btree.Options{Degree: memDegree, NoLocks: true}), a: a}
}

func lessPre(x, y [3]uint64) bool {
	if x[0] != y[0] {
		return x[0] < y[0]
	}
	if x[1] != y[1] {
		return x[1] < y[1]
	}
	return x[2] < y[2]
}

// copy returns a version of m that a write transaction may change.
func (m *kvMap) copy() *kvMap { return &kvMap{t: m.t.Copy(), a: m.a} }

// bound is a key that iterated entries are compared with, its prefix
// computed once.
type bound struct {
	key []byte
	pre [3]uint64
}

func boundOf(key []byte) bound { return bound{key: key, pre: prefixOf(key)} }

// compare orders stored entry e against b.
func (v arenaView) compare(e memEntry, b bound) int {
	if e.pre != b.pre {
		if lessPre(e.pre, b.pre) {
			return -1
		}
		return 1
	}
	return bytes.Compare(v.bytes(e)[:e.klen], b.key)
}

// compacted returns m with its live entries copied, in order, into a new
// arena, which drops the dead ones.
func (m *kvMap) compacted(p *probes) *kvMap {
	c := newKVMap(p)
	m.t.Scan(func(e memEntry) bool {
		kv := m.a.bytes(e)
		c.t.Load(c.a.store(kv[:e.klen], kv[e.klen:]))
		return true
	})
	return c
}
