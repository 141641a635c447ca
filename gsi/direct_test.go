package gsi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// TestDirect: a writer may change the indexes itself only while every index
// has a watermark at the table's last log sequence and its space; Advance
// moves the watermarks to a record the writer applied itself, and the
// Applier then finds nothing to apply.
func TestDirect(t *testing.T) {
	tests := []struct {
		name  string
		setup func(h *harness)
		want  bool
	}{
		{"built, empty log", func(h *harness) { h.built() }, true},
		{"being backfilled: no watermark", func(*harness) {}, false},
		{"one index still backfilled", func(h *harness) {
			h.built()
			h.addIndex(byGX())
		}, false},
		{"a record waits for the applier", func(h *harness) {
			h.built()
			h.write("a", item("pk", "a", "g", "x"))
		}, false},
		{"caught up after a record", func(h *harness) {
			h.built()
			waitFor(t, h.start(h.options()), h.write("a", item("pk", "a", "g", "x")))
		}, true},
		{"an index space dropped", func(h *harness) {
			h.built()
			h.update(func(tx *store.Tx) error { return tx.DropSpace(spaceID("byH")) })
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, byG(), byH())
			tt.setup(h)
			defs := h.indexes()
			h.view(func(tx *store.Tx) error {
				sps, ok := Direct(tx, tx.Space(tableID), defs, spaceID)
				if ok != tt.want || ok && len(sps) != len(defs) {
					t.Errorf("Direct = %d spaces, %v; want %v", len(sps), ok, tt.want)
				}
				return nil
			})
		})
	}
}

// TestAdvance: after Advance to a record's sequence, the indexes' watermarks
// are there and Direct allows the next write; the Applier leaves the record
// alone (its change is the writer's).
func TestAdvance(t *testing.T) {
	h := newHarness(t, byG(), byH())
	h.built()
	seq := h.write("a", item("pk", "a", "g", "x")) // not applied: the indexes stay empty
	h.update(func(tx *store.Tx) error { return Advance(tx.Space(tableID), h.indexes(), seq) })
	h.view(func(tx *store.Tx) error {
		for _, d := range h.indexes() {
			if wm, ok := Watermark(tx, tableID, d.Name); !ok || wm != seq {
				t.Errorf("%s watermark = %d, %v; want %d", d.Name, wm, ok, seq)
			}
		}
		if _, ok := Direct(tx, tx.Space(tableID), h.indexes(), spaceID); !ok {
			t.Error("Direct after Advance = false")
		}
		return nil
	})
	waitFor(t, h.start(h.options()), seq)
	if pks := h.pks(byG()); len(pks) != 0 {
		t.Errorf("the applier applied an advanced record: byG holds %v", pks)
	}
}

// TestApplyEncodedMatchesApply applies the same random changes of an
// index projecting ALL to two spaces: through ApplyEncoded (the entry's
// size and the item's encoding stored from their parts) and through its
// plain twin, Apply with the entry built by index.AppendEntryEncoded.
// Changes insert, replace under the same key, move an entry to another
// key (whose old key may be absent), or leave it; after every transaction
// both spaces must hold the same entries and counters.
func TestApplyEncodedMatchesApply(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	if err := db.Update(ctx, func(tx *store.Tx) error {
		return errors.Join(tx.CreateSpace("fast"), tx.CreateSpace("plain"))
	}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 8))
	key := func() []byte { return fmt.Appendf(nil, "g%02d", rng.IntN(40)) }
	for step := range 300 {
		err := db.Update(ctx, func(tx *store.Tx) error {
			fast, plain := tx.Space("fast"), tx.Space("plain")
			for range 1 + rng.IntN(4) {
				item := attr.Item{"pk": attr.Value{T: attr.TypeS, S: fmt.Sprint("p", step)}, "v": attr.Value{T: attr.TypeS, S: strings.Repeat("v", rng.IntN(200))}}
				size := item.Size()
				enc := attr.AppendBinarySized(nil, item, size)
				c := index.Change{NewKey: key(), NewSize: size, OldSize: rng.IntN(300)}
				switch rng.IntN(4) {
				case 0: // a new entry
				case 1:
					c.OldKey = c.NewKey // replaced in place
				case 2:
					c.OldKey = key() // moved, maybe from an absent key
				case 3:
					c.OldKey, c.Unchanged = c.NewKey, true
				}
				if err := ApplyEncoded(fast, c, enc); err != nil {
					return err
				}
				c.Entry = index.AppendEntryEncoded(nil, enc, size)
				if err := c.Apply(plain); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if err := db.View(func(tx *store.Tx) error {
			f, p := dumpSpace(tx.Space("fast")), dumpSpace(tx.Space("plain"))
			if f != p || f == "" {
				t.Fatalf("step %d: spaces differ:\nfast  %s\nplain %s", step, f, p)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpSpace renders sp's entries and counters.
func dumpSpace(sp *store.Space) string {
	var b strings.Builder
	_ = sp.Ascend(nil, nil, func(k, v []byte) bool {
		fmt.Fprintf(&b, "%q=%x;", k, v)
		return true
	})
	items, bytes := sp.Stats()
	fmt.Fprintf(&b, " stats %d %d", items, bytes)
	return b.String()
}
