package vector

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// Meta names in the TABLE's space.
const (
	// stateMeta holds the State the table's owner published.
	stateMeta = "vector-state"
	// settledMeta holds the latest Settle any process asked for (Unix
	// nanoseconds, 8 bytes big-endian): the owner treats every record
	// committed by then as due.
	settledMeta = "vector-settled"
)

// State is what the one owner of a table's vector indexes decided and
// published in the table's space: every process's copy of the indexes
// (Follower) holds exactly the change log up to Seq, and an index listed
// in Indexes has been built (backfilled) and holds Count items.
type State struct {
	Seq     uint64               `json:"Seq"`
	Indexes map[string]Published `json:"Indexes,omitempty"`
}

// Published is one built index in a State: the creation time of the
// definition it was built for (an index deleted and created again under
// the same name is another index) and how many items it holds at Seq.
type Published struct {
	Created int64 `json:"Created"`
	Count   int64 `json:"Count"`
}

// Built reports whether index name, created at created, is built in s, and
// its count.
func (s State) Built(name string, created int64) (int64, bool) {
	p, ok := s.Indexes[name]
	if !ok || p.Created != created {
		return 0, false
	}
	return p.Count, true
}

// ReadState returns the State published in table space sp, and false when
// none has been (or it does not decode: the next publication replaces it).
func ReadState(sp *store.Space) (State, bool) {
	var s State
	raw := sp.GetMeta(stateMeta)
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return State{}, false
	}
	return s, true
}

// WriteState publishes s in table space sp, in the caller's transaction.
func WriteState(sp *store.Space, s State) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return sp.PutMeta(stateMeta, raw)
}

// Floor returns the published watermark of table space sp: the log after
// it is still needed (by Followers building at it, and by the owner's next
// decision) and must not be trimmed. False when nothing is published.
func Floor(sp *store.Space) (uint64, bool) {
	s, ok := ReadState(sp)
	return s.Seq, ok
}

// ReadSettled returns the latest settle time recorded in table space sp (0
// when none).
func ReadSettled(sp *store.Space) int64 {
	raw := sp.GetMeta(settledMeta)
	if len(raw) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(raw))
}

// WriteSettled records a settle at t (Unix nanoseconds) in table space sp,
// unless a later one is recorded.
func WriteSettled(sp *store.Space, t int64) error {
	if ReadSettled(sp) >= t {
		return nil
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(t))
	return sp.PutMeta(settledMeta, b[:])
}

// Decide returns the owner's next watermark for table space sp: the last
// record after from such that it and every record before it are due (due
// nil: all are), from itself when the first record after it is not. A
// record not due holds back the ones after it, as it does a global index's
// applier. Records trimmed from the log were due (the log keeps every
// record not yet applied, and those a lag may still hold back).
func Decide(sp *store.Space, from uint64, due func(seq uint64, t int64) bool) (uint64, error) {
	last := sp.LastLogSeq()
	if due == nil || last <= from {
		return max(from, last), nil
	}
	held := uint64(0)
	var err error
	aerr := sp.AscendLog(from, func(seq uint64, raw []byte) bool {
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("vector: log record %d: %w", seq, err)
			return false
		}
		if !due(seq, rec.Time) {
			held = seq
			return false
		}
		return true
	})
	if err = errors.Join(aerr, err); err != nil {
		return 0, err
	}
	if held == 0 {
		return last, nil
	}
	return max(from, held-1), nil
}
