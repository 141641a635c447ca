package gsi

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ddblocal/ddblocal/store"
)

// TestCrashMidway stops after exactly one batch, then has a new applier (on
// the same store, or on the file reopened as after kill -9) finish: each
// record is applied once, so content and counters come out exact.
func TestCrashMidway(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		name := "same store"
		if reopen {
			name = "reopened file"
		}
		t.Run(name, func(t *testing.T) {
			g, hh := byG(), byH()
			h := newHarness(t, g, hh)
			path := filepath.Join(t.TempDir(), "db")
			if reopen {
				h.db.Close()
				db, err := store.Open(store.Options{Path: path, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				h.db = db
				h.update(func(tx *store.Tx) error {
					for _, id := range []string{tableID, spaceID(g.Name), spaceID(hh.Name)} {
						if err := tx.CreateSpace(id); err != nil {
							return err
						}
					}
					return nil
				})
			}
			h.built()
			var ops []op
			for i := range 1300 {
				ops = append(ops, op{string(rune('a' + i%40)), item("pk", string(rune('a'+i%40)), "g", string(rune('a'+i%3)), "s", i, "h", i%7)})
			}
			last, err := h.writeAll(ops)
			if err != nil {
				t.Fatal(err)
			}
			a := newApplier(h.options()) // no goroutine: one batch by hand
			res, err := a.step(context.Background())
			if err != nil {
				t.Fatalf("step: %v", err)
			}
			if res.applied != maxApply || !res.more {
				t.Errorf("first batch: got applied %d more %v, want %d true", res.applied, res.more, maxApply)
			}
			for _, d := range []string{g.Name, hh.Name} {
				if wm, ok, err := a.Watermark(d); err != nil || wm != maxApply || !ok {
					t.Errorf("Watermark(%s) after one batch: got %d %v %v, want %d true", d, wm, ok, err, maxApply)
				}
			}
			if reopen {
				if err := h.db.Close(); err != nil {
					t.Fatal(err)
				}
				db, err := store.Open(store.Options{Path: path, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				h.db = db
			}
			b := h.start(h.options())
			if err := b.WaitFor(context.Background(), last); err != nil {
				t.Fatal(err)
			}
			h.checkIndex(g)
			h.checkIndex(hh)
		})
	}
}
