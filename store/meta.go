package store

import "encoding/binary"

// Keys in a space's meta bucket. Counters and user metadata share the bucket,
// so user names get a prefix that the counters' key cannot start with.
const (
	statsKey   = "\x00stats" // items ‖ bytes, two big-endian int64s
	metaPrefix = "\x01"
)

// AddStats adds items and bytes (either may be negative) to the space's
// counters, in the same transaction as the data change they describe. It
// returns ErrReadOnly or ErrTxClosed.
func (s *Space) AddStats(items, bytes int64) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	oldItems, oldBytes := s.Stats()
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(oldItems+items))
	binary.BigEndian.PutUint64(buf[8:], uint64(oldBytes+bytes))
	return putCopy(s.metaB(), []byte(statsKey), buf[:])
}

// Stats returns the space's counters as of this transaction (zero for a new
// space or an ended transaction).
func (s *Space) Stats() (items, bytes int64) {
	if s.tx.done {
		return 0, 0
	}
	v := s.metaB().get([]byte(statsKey))
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
