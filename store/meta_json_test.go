package store

import (
	"testing"
)

func TestMetaJSON(t *testing.T) { forEngines(t, testMetaJSON) }

func testMetaJSON(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	type doc struct {
		A string
		N []int
	}
	mustView(t, db, func(tx *Tx) error {
		got := doc{A: "kept"}
		if err := tx.Space("t").GetMetaJSON("doc", &got); err != nil || got.A != "kept" || got.N != nil {
			t.Errorf("absent: got %+v, %v; want v untouched and no error", got, err)
		}
		return nil
	})
	mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").PutMetaJSON("doc", doc{A: "x", N: []int{1, 2}}) })
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if raw := string(sp.GetMeta("doc")); raw != `{"A":"x","N":[1,2]}` {
			t.Errorf("stored bytes = %s", raw)
		}
		var got doc
		if err := sp.GetMetaJSON("doc", &got); err != nil || got.A != "x" || len(got.N) != 2 || got.N[1] != 2 {
			t.Errorf("round trip: got %+v, %v", got, err)
		}
		return nil
	})
	mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").PutMeta("doc", []byte("{not json")) })
	mustView(t, db, func(tx *Tx) error {
		var got doc
		if err := tx.Space("t").GetMetaJSON("doc", &got); err == nil {
			t.Errorf("corrupt value: got %+v and no error", got)
		}
		return nil
	})
}
