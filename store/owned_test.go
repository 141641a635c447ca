package store

import (
	"bytes"
	"errors"
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

func TestPutOwnedValues(t *testing.T) { forEngines(t, testPutOwnedValues) }

// testPutOwnedValues: PutOwned stores a value and an empty value (present),
// refuses an empty key, and is refused in a View.
func testPutOwnedValues(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "s")
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("s")
		if err := sp.PutOwned([]byte("key"), []byte("value")); err != nil {
			return err
		}
		if err := sp.PutOwned([]byte("k2"), []byte{}); err != nil { // empty value
			return err
		}
		if err := sp.PutOwned([]byte{}, []byte("value")); !errors.Is(err, ErrKeyRequired) {
			t.Errorf("empty key: err = %v, want ErrKeyRequired", err)
		}
		return nil
	})
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("s")
		if got := sp.Get([]byte("key")); string(got) != "value" {
			t.Errorf("Get(key) = %q, want value", got)
		}
		if got := sp.Get([]byte("k2")); got == nil || len(got) != 0 {
			t.Errorf("Get(k2) = %q (nil %v), want empty and present", got, got == nil)
		}
		if got := dump(sp); got != "k2= key=value" {
			t.Errorf("dump = %q", got)
		}
		return nil
	})
	if err := db.View(func(tx *Tx) error { return tx.Space("s").PutOwned([]byte("a"), []byte("b")) }); !errors.Is(err, ErrReadOnly) {
		t.Errorf("in View: err = %v, want ErrReadOnly", err)
	}
}

func TestSwapOwned(t *testing.T) { forEngines(t, testSwapOwned) }

// testSwapOwned: the swap returns nil for a new key and the value it
// replaced otherwise, and the replaced value stays readable in the
// transaction.
func testSwapOwned(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "s")
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("s")
		old, err := sp.SwapOwned([]byte("k"), []byte("one"))
		if err != nil || old != nil {
			t.Errorf("first swap = %q, %v; want nil, nil", old, err)
		}
		old, err = sp.SwapOwned([]byte("k"), []byte("two"))
		if err != nil || string(old) != "one" {
			t.Errorf("second swap = %q, %v; want one, nil", old, err)
		}
		if _, err := sp.SwapOwned(nil, []byte("k")); !errors.Is(err, ErrKeyRequired) {
			t.Errorf("empty key: err = %v, want ErrKeyRequired", err)
		}
		return nil
	})
	mustView(t, db, func(tx *Tx) error {
		if got := dump(tx.Space("s")); got != "k=two" {
			t.Errorf("dump = %q, want k=two", got)
		}
		return nil
	})
}
