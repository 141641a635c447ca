package gsi

import (
	"testing"

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
