package store

import (
	"encoding/binary"
	"sync/atomic"
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
//
// One idea per file: mem_arena.go holds the bytes, mem_probe.go the search
// keys, mem_map.go the copy-on-write B-tree of one keyspace over an arena.

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
func (a *arena) store(key, val []byte) memEntry { return a.storeJoined(key, nil, val) }

// storeJoined is store of the value head‖val, copied from its parts.
func (a *arena) storeJoined(key, head, val []byte) memEntry {
	n := len(key) + len(head) + len(val)
	ref, buf := a.alloc(n)
	o := copy(buf, key)
	o += copy(buf[o:], head)
	copy(buf[o:], val)
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
