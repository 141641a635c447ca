package store

import "bytes"

// kvMap is one ordered keyspace in memory: a B-tree of entries over an
// arena. Published maps are never modified: a write transaction mutates a
// copy (copy-on-write, O(1) until a node is touched), and readers keep
// whichever version they started with.
type kvMap struct {
	t memTree // a field, not a pointer: a copy of the map is one allocation
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
	keys := func(x, y memEntry) int { return bytes.Compare(key(x), key(y)) }
	return &kvMap{t: *newMemTree(keys), a: a}
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

// get returns key's value in m (nil m: none), searching from hint h and
// leaving it on the path found: a read of a transaction, or the sorted
// checkpoint's key-order writes.
func (m *kvMap) get(p *probes, key []byte, h *memHint) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	pe, slot := p.probe(key)
	e, ok := m.t.GetHint(pe, h)
	slot.release()
	if !ok {
		return nil, false
	}
	return m.a.val(e), true
}

// copy returns a version of m that a write transaction may change.
func (m *kvMap) copy() *kvMap { return &kvMap{t: m.t.copyValue(), a: m.a} }

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
