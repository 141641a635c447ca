package store

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRangeModel compares Ascend and Descend with a sorted-slice model over
// random keys and random bounds drawn from a tiny alphabet, so that bounds
// often equal, prefix or fall between stored keys.
func TestRangeModel(t *testing.T) { forEngines(t, testRangeModel) }

func testRangeModel(t *testing.T, openMem func(testing.TB) *DB) {
	rng := rand.New(rand.NewPCG(1, 2))
	randKey := func() []byte {
		k := make([]byte, rng.IntN(4))
		for i := range k {
			k[i] = "\x00ab\xff"[rng.IntN(4)]
		}
		return k
	}
	db := openMem(t)
	withSpace(t, db, "t")
	model := map[string]bool{}
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		for range 200 {
			k := randKey()
			if len(k) == 0 {
				continue
			}
			if rng.IntN(4) == 0 {
				delete(model, string(k))
				if err := sp.Delete(k); err != nil {
					return err
				}
				continue
			}
			model[string(k)] = true
			if err := sp.Put(k, k); err != nil {
				return err
			}
		}
		return nil
	})
	var sorted []string
	for k := range model {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)

	for i := range 500 {
		var from, to []byte
		if rng.IntN(3) > 0 {
			from = randKey()
		}
		if rng.IntN(3) > 0 {
			to = randKey()
		}
		var want []string
		for _, k := range sorted {
			if (from == nil || k >= string(from)) && (to == nil || k < string(to)) {
				want = append(want, k)
			}
		}
		mustView(t, db, func(tx *Tx) error {
			var asc, desc []string
			sp := tx.Space("t")
			_ = sp.Ascend(from, to, func(k, v []byte) bool {
				if !bytes.Equal(k, v) {
					t.Errorf("key %q has value %q", k, v)
				}
				asc = append(asc, string(k))
				return true
			})
			_ = sp.Descend(from, to, func(k, v []byte) bool { desc = append(desc, string(k)); return true })
			if !slices.Equal(asc, want) {
				t.Errorf("case %d: Ascend(%q, %q) = %q, want %q", i, from, to, asc, want)
			}
			slices.Reverse(want)
			if !slices.Equal(desc, want) {
				t.Errorf("case %d: Descend(%q, %q) = %q, want %q", i, from, to, desc, want)
			}
			return nil
		})
	}
}
