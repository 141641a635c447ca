package lsi

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

func TestSizeEstimateRangeGB(t *testing.T) {
	for _, tc := range []struct {
		size   int64
		lo, hi float64
	}{{0, 0, 1}, {1 << 30, 1, 2}, {(1 << 30) - 1, 0, 1}, {10<<30 + 5, 10, 11}} {
		got := SizeEstimateRangeGB(tc.size)
		if got[0] != tc.lo || got[1] != tc.hi {
			t.Errorf("SizeEstimateRangeGB(%d) = %v, want [%v %v]", tc.size, got, tc.lo, tc.hi)
		}
	}
}

// TestPlanAndApply plans writes to a collection with one local index,
// applies them, and checks the kept size and the limit.
func TestPlanAndApply(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	def := &index.Def{Name: "byV", Partition: []index.KeyAttr{{Name: "pk", Type: attr.TypeS}},
		Sort: []index.KeyAttr{{Name: "v", Type: attr.TypeS}}, ProjectionType: "ALL",
		TableKey: []index.KeyAttr{{Name: "pk", Type: attr.TypeS}, {Name: "sk", Type: attr.TypeS}}}
	defs := []*index.Def{def}
	item := attr.Item{"pk": attr.String("p"), "sk": attr.String("a"), "v": attr.String("x")}
	key := []byte("tablekey")
	sizeKey := SizeKey([]byte("p"))
	var first Write
	err = db.Update(t.Context(), func(tx *store.Tx) error {
		for _, id := range []string{"t", "t/byV"} {
			if err := tx.CreateSpace(id); err != nil {
				return err
			}
		}
		sp, isp := tx.Space("t"), tx.Space("t/byV")
		var err error
		if first, err = Plan(sp, defs, key, nil, item, 0, item.Size(), sizeKey, 1<<20); err != nil {
			return err
		}
		if err := first.Apply(sp, defs, func(string) *store.Space { return isp }); err != nil {
			return err
		}
		if got := Size(sp, sizeKey); got != first.Size || got <= int64(item.Size()) {
			t.Errorf("kept size %d, planned %d, want more than the item's %d (its index entry counts)", got, first.Size, item.Size())
		}
		_, err = Plan(sp, defs, key, item, attr.Item{"pk": attr.String("p"), "sk": attr.String("a"), "v": attr.String("yyyyyyyy")}, item.Size(), item.Size()+7, sizeKey, first.Size)
		var tl *TooLarge
		if !errors.As(err, &tl) || tl.Limit != first.Size {
			t.Errorf("growing past the limit: got %v, want *TooLarge", err)
		}
		if _, err := Plan(sp, defs, key, item, nil, item.Size(), 0, sizeKey, 1); err != nil {
			t.Errorf("a delete never exceeds the limit: got %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
