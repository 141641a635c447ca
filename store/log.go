package store

import (
	"encoding/binary"
	"math"
)

// The change log is keyed by big-endian 8-byte sequence numbers so that byte
// order is numeric order. The last sequence handed out lives in the log
// bucket's own sequence field, so it survives trimming every record.

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// AppendLog appends rec to the space's change log and returns its sequence
// number: 1 for the first record of a space, then increasing by one, never
// reused even after TrimLog. It copies rec. It returns ErrReadOnly or
// ErrTxClosed.
func (s *Space) AppendLog(rec []byte) (seq uint64, err error) {
	return s.appendLog(append(make([]byte, 0, len(rec)), rec...))
}

// AppendLogOwned is AppendLog without the copy of rec, for a record the
// caller has just built for this purpose: rec must not be modified
// afterwards. It returns what AppendLog returns.
func (s *Space) AppendLogOwned(rec []byte) (seq uint64, err error) {
	return s.appendLog(rec)
}

func (s *Space) appendLog(rec []byte) (seq uint64, err error) {
	if err := s.tx.write(); err != nil {
		return 0, err
	}
	l := s.logB()
	seq, err = l.nextSequence()
	if err != nil {
		return 0, err
	}
	if err := putOwned(l, seqKey(seq), rec); err != nil {
		return 0, err
	}
	return seq, nil
}

// AscendLog calls fn for each log record with sequence > after, in sequence
// order, until fn returns false. rec is valid only during fn and must not be
// modified. It returns ErrTxClosed if the transaction has ended.
func (s *Space) AscendLog(after uint64, fn func(seq uint64, rec []byte) bool) error {
	if s.tx.done {
		return ErrTxClosed
	}
	if after == math.MaxUint64 {
		return nil
	}
	s.logB().ascend(seqKey(after+1), nil, func(k, v []byte) bool {
		return fn(binary.BigEndian.Uint64(k), v)
	})
	return nil
}

// LastLogSeq returns the sequence number of the last record ever appended
// (even if trimmed since), or 0 if none has been.
func (s *Space) LastLogSeq() uint64 {
	if s.tx.done {
		return 0
	}
	return s.logB().sequence()
}

// TrimLog deletes the log records with sequence <= upTo. It returns
// ErrReadOnly or ErrTxClosed.
func (s *Space) TrimLog(upTo uint64) error {
	if err := s.tx.write(); err != nil {
		return err
	}
	// Collect first: deleting while iterating is undefined in both engines.
	l := s.logB()
	var to []byte // nil: no upper bound
	if upTo < math.MaxUint64 {
		to = seqKey(upTo + 1)
	}
	var doomed [][]byte
	l.ascend(nil, to, func(k, _ []byte) bool {
		doomed = append(doomed, append([]byte(nil), k...))
		return true
	})
	for _, k := range doomed {
		if err := l.delete(k); err != nil {
			return err
		}
	}
	return nil
}
