package store

import (
	"bytes"
	"testing"
)

// TestOwnedWrites: PutOwned and AppendLogOwned store exactly what they are
// given, nil as a present empty value, like Put and AppendLog.
func TestOwnedWrites(t *testing.T) { forEngines(t, testOwnedWrites) }

func testOwnedWrites(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "s")
	for _, tc := range []struct {
		name string
		val  []byte
	}{
		{"value", []byte("v1")},
		{"empty", []byte{}},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seq uint64
			mustUpdate(t, db, func(tx *Tx) error {
				sp := tx.Space("s")
				if err := sp.PutOwned([]byte("k"), tc.val); err != nil {
					return err
				}
				var err error
				seq, err = sp.AppendLogOwned(tc.val)
				return err
			})
			mustView(t, db, func(tx *Tx) error {
				sp := tx.Space("s")
				if got := sp.Get([]byte("k")); got == nil || !bytes.Equal(got, tc.val) {
					t.Errorf("Get: got %q, want %q", got, tc.val)
				}
				var got []byte
				_ = sp.AscendLog(seq-1, func(s uint64, rec []byte) bool {
					got = append([]byte{}, rec...)
					return false
				})
				if !bytes.Equal(got, tc.val) {
					t.Errorf("log record: got %q, want %q", got, tc.val)
				}
				return nil
			})
		})
	}
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.Space("s").PutOwned(nil, []byte("v")); err != ErrKeyRequired {
			t.Errorf("empty key: got %v, want %v", err, ErrKeyRequired)
		}
		return nil
	})
}
