package store

import "encoding/binary"

// Keys in a space's meta bucket. Counters and user metadata share the bucket,
// so user names get a prefix that the counters' keys cannot start with.
const (
	// statsKey holds items ‖ bytes, two big-endian int64s. Over etcd each
	// process adds to a shard of its own, statsKey followed by its slot
	// (etcd_shard.go), so that two front-ends' writes to one table do not
	// conflict on its counters; the counters are the sum of every key
	// from statsKey to statsEnd.
	statsKey   = "\x00stats"
	statsEnd   = "\x00stats\x01"
	metaPrefix = "\x01"
)

// AddStats adds items and bytes (either may be negative) to the space's
// counters, in the same transaction as the data change they describe. It
// reads and writes only this process's shard of them. It returns
// ErrReadOnly or ErrTxClosed.
func (s *Space) AddStats(items, bytes int64) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	if b, ok := s.metaB().(*memBucket); ok {
		return b.addStats(items, bytes)
	}
	return s.addStatsPlain(items, bytes)
}

// addStatsPlain is AddStats as a get and a put: every engine's but
// memory's, and the plain twin of memBucket.addStats
// (TestAddStatsMatchesPlain).
func (s *Space) addStatsPlain(items, bytes int64) error {
	key := []byte(statsKey)
	if t, ok := s.tx.t.(*etcdTxn); ok {
		key = append(key, t.e.shard...)
	}
	oldItems, oldBytes := statsValue(s.metaB().get(key))
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(oldItems+items))
	binary.BigEndian.PutUint64(buf[8:], uint64(oldBytes+bytes))
	return putCopy(s.metaB(), key, buf[:])
}

// Stats returns the space's counters as of this transaction (zero for a new
// space or an ended transaction): the sum of its shards. Read in a write
// transaction over etcd, it makes the commit depend on every shard.
func (s *Space) Stats() (items, bytes int64) {
	if s.tx.done {
		return 0, 0
	}
	s.metaB().ascend([]byte(statsKey), []byte(statsEnd), func(_, v []byte) bool {
		i, b := statsValue(v)
		items, bytes = items+i, bytes+b
		return true
	})
	return items, bytes
}

// statsValue decodes one counters key's value (zero when absent).
func statsValue(v []byte) (items, bytes int64) {
	if len(v) != 16 {
		return 0, 0
	}
	return int64(binary.BigEndian.Uint64(v[:8])), int64(binary.BigEndian.Uint64(v[8:]))
}

// GetMeta returns the metadata value stored under name, or nil if there is
// none. The slice is valid until the transaction ends and must not be modified.
func (s *Space) GetMeta(name string) []byte {
	if s.tx.done {
		return nil
	}
	if b, ok := s.metaB().(*memBucket); ok && b.t.rw {
		return b.getMeta(name)
	}
	return s.getMetaPlain(name)
}

// getMetaPlain is GetMeta with the key built on the heap: every engine's
// but a memory write transaction's, and the plain twin of
// memBucket.getMeta (TestGetMetaMatchesPlain).
func (s *Space) getMetaPlain(name string) []byte {
	return s.metaB().get([]byte(metaPrefix + name))
}

// PutMeta stores val under name, in the same transaction as the data. It
// copies val. It returns ErrKeyTooLarge, ErrValueTooLarge, ErrReadOnly or
// ErrTxClosed.
func (s *Space) PutMeta(name string, val []byte) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	return putCopy(s.metaB(), []byte(metaPrefix+name), val)
}
