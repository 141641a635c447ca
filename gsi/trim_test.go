package gsi

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// TestTrim drives batches by hand with a fake clock and checks which log
// records survive each.
func TestTrim(t *testing.T) {
	type step struct {
		advance time.Duration // clock move before the writes
		writes  int           // items written (one record each)
		want    []uint64      // log records left after the batch
	}
	tests := []struct {
		name     string
		indexes  bool          // byG with a watermark
		retain   time.Duration // 0 = Options.Retain nil
		backfill uint64        // a backfill in progress started at this seq (0 = none)
		steps    []step
	}{
		{
			name:  "no indexes, no retention: everything goes",
			steps: []step{{writes: 3}, {writes: 2}},
		},
		{
			name:    "indexes, no retention: behind the watermark",
			indexes: true,
			steps:   []step{{writes: 3}, {writes: 2}},
		},
		{
			name:    "retention keeps young records",
			indexes: true,
			retain:  10 * time.Second,
			steps: []step{
				{writes: 2, want: []uint64{1, 2}},
				{advance: 5 * time.Second, writes: 2, want: []uint64{1, 2, 3, 4}},
				{advance: 5*time.Second - 1, want: []uint64{1, 2, 3, 4}}, // 1 ns younger than Retain: kept
				{advance: 1, want: []uint64{3, 4}},                       // exactly Retain old: no longer newer

				{advance: 5 * time.Second, writes: 1, want: []uint64{5}},
			},
		},
		{
			name:     "a backfill in progress keeps what it will replay",
			indexes:  true,
			backfill: 2,
			steps:    []step{{writes: 4, want: []uint64{3, 4}}, {writes: 1, want: []uint64{3, 4, 5}}},
		},
		{
			name:     "a backfill in progress without other indexes",
			backfill: 3,
			steps:    []step{{writes: 5, want: []uint64{4, 5}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if tc.indexes {
				h.addIndex(byG())
				h.built()
			}
			if tc.backfill > 0 {
				h.update(func(tx *store.Tx) error {
					return writeBackfills(tx.Space(tableID), []backfill{{name: "other", start: tc.backfill}})
				})
			}
			opts := h.options()
			if tc.retain > 0 {
				opts.Retain = func() time.Duration { return tc.retain }
			}
			a := newApplier(opts)
			for i, s := range tc.steps {
				h.clock.Advance(s.advance)
				for range s.writes {
					h.write("a", item("pk", "a", "g", "x", "s", i))
				}
				if _, err := a.step(context.Background()); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if got := h.logSeqs(); !slices.Equal(got, s.want) {
					t.Errorf("step %d: log records left: got %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

// TestTrimWaitsForSlowestIndex gives two indexes different watermarks.
func TestTrimWaitsForSlowestIndex(t *testing.T) {
	g, hh := byG(), byH()
	h := newHarness(t, g, hh)
	for i := range 6 {
		h.write("a", item("pk", "a", "h", i))
	}
	h.update(func(tx *store.Tx) error {
		tsp := tx.Space(tableID)
		if err := writeWatermark(tsp, g.Name, 6); err != nil {
			return err
		}
		return writeWatermark(tsp, hh.Name, 2)
	})
	a := newApplier(h.options())
	// The slow index catches up in the batch, then the log goes: trimming
	// uses the watermarks after the batch's apply.
	if _, err := a.step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := h.logSeqs(); len(got) != 0 {
		t.Errorf("log after catching up: got %v, want []", got)
	}
	h.checkIndex(hh)
	// A watermarked index whose space is gone neither blocks trimming nor
	// fails the batch.
	h.write("a", item("pk", "a", "h", 9))
	h.update(func(tx *store.Tx) error { return tx.DropSpace(spaceID(hh.Name)) })
	if _, err := a.step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := h.logSeqs(); len(got) != 0 {
		t.Errorf("log with a dropped index space: got %v, want []", got)
	}
	if wm, _, err := a.Watermark(hh.Name); err != nil || wm != 6 {
		t.Errorf("Watermark of the dropped index: got %d, %v, want 6 (untouched)", wm, err)
	}
}

// TestTrimKeepsHold: another consumer's hold (replication) keeps the log
// after it, whatever the indexes have applied.
func TestTrimKeepsHold(t *testing.T) {
	h := newHarness(t)
	h.addIndex(byG())
	h.built()
	opts := h.options()
	hold := uint64(2)
	opts.Hold = func(*store.Tx) (uint64, bool) { return hold, true }
	a := newApplier(opts)
	for i, s := range []struct {
		writes int
		hold   uint64
		want   []uint64
	}{{4, 2, []uint64{3, 4}}, {1, 2, []uint64{3, 4, 5}}, {0, 4, []uint64{5}}} {
		hold = s.hold
		for range s.writes {
			h.write("a", item("pk", "a", "g", "x", "s", i))
		}
		if _, err := a.step(context.Background()); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := h.logSeqs(); !slices.Equal(got, s.want) {
			t.Errorf("step %d: log records left: got %v, want %v", i, got, s.want)
		}
	}
}
