package store

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// logSeqs returns the sequence numbers > after in space t, checking records.
func logSeqs(t *testing.T, db *DB, after uint64, limit int) []uint64 {
	t.Helper()
	var got []uint64
	mustView(t, db, func(tx *Tx) error {
		return tx.Space("t").AscendLog(after, func(seq uint64, rec []byte) bool {
			if want := fmt.Sprintf("rec%d", seq); string(rec) != want {
				t.Errorf("record %d = %q, want %q", seq, rec, want)
			}
			got = append(got, seq)
			return limit == 0 || len(got) < limit
		})
	})
	return got
}

func TestLog(t *testing.T) { forEngines(t, testLog) }

func testLog(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	withSpace(t, db, "other")
	appendLog300(t, db)
	tests := []struct {
		name  string
		after uint64
		limit int
		want  []uint64
	}{
		{"all", 0, 0, seqRange(1, 300)},
		{"after 297", 297, 0, []uint64{298, 299, 300}},
		{"after last", 300, 0, nil},
		{"after max uint64", math.MaxUint64, 0, nil},
		{"limit", 10, 3, []uint64{11, 12, 13}},
		{"after crosses 255/256 byte boundary", 254, 3, []uint64{255, 256, 257}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := logSeqs(t, db, tt.after, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("AscendLog(%d) = %v, want %v", tt.after, got, tt.want)
			}
		})
	}

	mustView(t, db, func(tx *Tx) error {
		if got := tx.Space("other").LastLogSeq(); got != 0 {
			t.Errorf("other space LastLogSeq = %d, want 0 (sequences are per space)", got)
		}
		return nil
	})

	checkTrims(t, db)
	// Sequences are never reused after a full trim.
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if got := sp.LastLogSeq(); got != 300 {
			t.Errorf("LastLogSeq after trim = %d, want 300", got)
		}
		seq, err := sp.AppendLog([]byte("rec301"))
		if seq != 301 {
			t.Errorf("AppendLog after trim = %d, want 301", seq)
		}
		return err
	})
}

// appendLog300 appends records 1..300 to space t's log over several
// transactions (more than one bbolt page), checking each sequence.
func appendLog300(t *testing.T, db *DB) {
	t.Helper()
	for batch := 0; batch < 3; batch++ {
		mustUpdate(t, db, func(tx *Tx) error {
			sp := tx.Space("t")
			for i := 0; i < 100; i++ {
				want := sp.LastLogSeq() + 1
				seq, err := sp.AppendLog([]byte(fmt.Sprintf("rec%d", want)))
				if err != nil {
					return err
				}
				if seq != want {
					t.Errorf("AppendLog seq = %d, want %d", seq, want)
				}
			}
			return nil
		})
	}
}

// checkTrims trims space t's log of 300 records step by step, checking
// what is left after each.
func checkTrims(t *testing.T, db *DB) {
	t.Helper()
	trims := []struct {
		name string
		upTo uint64
		want []uint64
	}{
		{"trim nothing", 0, seqRange(1, 300)},
		{"trim 250", 250, seqRange(251, 300)},
		{"trim again below", 100, seqRange(251, 300)},
		{"trim all", 1000, nil},
	}
	for _, tt := range trims {
		t.Run(tt.name, func(t *testing.T) {
			mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").TrimLog(tt.upTo) })
			if got := logSeqs(t, db, 0, 0); !slices.Equal(got, tt.want) {
				t.Errorf("after TrimLog(%d): %v, want %v", tt.upTo, got, tt.want)
			}
		})
	}
}

func seqRange(from, to uint64) []uint64 {
	var r []uint64
	for i := from; i <= to; i++ {
		r = append(r, i)
	}
	return r
}
