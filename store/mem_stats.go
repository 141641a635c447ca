package store

import "encoding/binary"

// addStats is Space.AddStats over a memory space's meta keyspace in one
// search and without a heap allocation, where the plain twin
// (Space.addStatsPlain) gets the counters and puts new ones: the entry
// with the new counters is stored first, replaces the old one in the
// tree, and gets its value, the old counters plus items and bytes, written
// into its arena bytes, which nobody can read before this transaction
// publishes it. The log records the same put as the twin's.
func (b *memBucket) addStats(items, bytes int64) error {
	m, err := b.write()
	if err != nil {
		return err
	}
	var key [len(statsKey)]byte
	copy(key[:], statsKey)
	var zero [16]byte
	e := m.a.store(key[:], zero[:])
	var oldItems, oldBytes int64
	if prev, replaced := m.t.SetHint(e, &b.hint); replaced {
		oldItems, oldBytes = statsValue(m.a.val(prev))
		m.a.forget(prev)
	}
	val := m.a.val(e)
	binary.BigEndian.PutUint64(val[:8], uint64(oldItems+items))
	binary.BigEndian.PutUint64(val[8:], uint64(oldBytes+bytes))
	if r := b.t.rec; r != nil {
		id, sub := b.target()
		r.put(id, sub, key[:], val)
	}
	return nil
}

// getMeta is Space.GetMeta in a memory write transaction: the key, the
// prefix and name, is built in the one writer's scratch buffer rather
// than on the heap (a search holds its key only while it runs).
func (b *memBucket) getMeta(name string) []byte {
	e := b.t.e
	e.metaKey = append(append(e.metaKey[:0], metaPrefix...), name...)
	return b.get(e.metaKey)
}
