package gsi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

func TestBackfill(t *testing.T) {
	tests := []struct {
		name  string
		items int
		chunk int
	}{
		{"empty table", 0, 10},
		{"one chunk", 5, 10},
		{"exact multiple of the chunk", 30, 10},
		{"ragged last chunk", 31, 10},
		{"default chunk", 2500, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := byG()
			h := newHarness(t)
			var ops []op
			for i := range tc.items {
				pk := fmt.Sprint(i)
				ops = append(ops, op{pk, item("pk", pk, "g", "x", "s", i%9)})
			}
			if len(ops) > 0 {
				if _, err := h.writeAll(ops); err != nil {
					t.Fatal(err)
				}
			}
			h.addIndex(g)
			if err := Backfill(context.Background(), h.db, tableID, g, spaceID(g.Name), tc.chunk); err != nil {
				t.Fatalf("Backfill: %v", err)
			}
			h.checkIndex(g)
			a := newApplier(h.options())
			if wm, ok, err := a.Watermark(g.Name); err != nil || !ok || wm != uint64(tc.items) {
				t.Errorf("Watermark: got %d %v %v, want %d true", wm, ok, err, tc.items)
			}
			var left []backfill
			h.view(func(tx *store.Tx) error { left = readBackfills(tx.Space(tableID)); return nil })
			if len(left) != 0 {
				t.Errorf("backfills in progress after Backfill: got %v, want none", left)
			}
		})
	}
}

// TestBackfillResume interrupts a backfill after its first chunk, changes the
// table (deleting an item the first run indexed, moving another), and runs
// Backfill again: it must resume from the first run's S so that the replay
// removes what the first run wrote.
func TestBackfillResume(t *testing.T) {
	g := byG()
	h := newHarness(t)
	var ops []op
	for i := range 20 {
		pk := fmt.Sprintf("%02d", i)
		ops = append(ops, op{pk, item("pk", pk, "g", "x", "s", i)})
	}
	if _, err := h.writeAll(ops); err != nil {
		t.Fatal(err)
	}
	h.addIndex(g)
	// The interrupted first run: S recorded, one chunk of five done.
	start, err := beginBackfill(context.Background(), h.db, tableID, g.Name, spaceID(g.Name))
	if err != nil {
		t.Fatal(err)
	}
	h.update(func(tx *store.Tx) error {
		_, err := backfillChunk(tx, tableID, g, spaceID(g.Name), nil, 5, start)
		return err
	})
	if got := len(h.got(g).entries); got != 5 {
		t.Fatalf("entries after the interrupted backfill: got %d, want 5", got)
	}
	h.write("00", nil)                                    // indexed by the first run
	h.write("01", item("pk", "01", "g", "moved", "s", 1)) // indexed under g=x
	if err := Backfill(context.Background(), h.db, tableID, g, spaceID(g.Name), 5); err != nil {
		t.Fatalf("resumed Backfill: %v", err)
	}
	a := h.start(h.options())
	waitFor(t, a, h.lastSeq())
	h.checkIndex(g)
	if wm, _, err := a.Watermark(g.Name); err != nil || wm != h.lastSeq() {
		t.Errorf("Watermark: got %d, %v, want %d", wm, err, h.lastSeq())
	}
}

// TestBackfillDropped drops the index (DropWatermark) while it is built.
func TestBackfillDropped(t *testing.T) {
	g := byG()
	h := newHarness(t)
	for i := range 10 {
		h.write(fmt.Sprint(i), item("g", "x", "s", i))
	}
	h.addIndex(g)
	start, err := beginBackfill(context.Background(), h.db, tableID, g.Name, spaceID(g.Name))
	if err != nil {
		t.Fatal(err)
	}
	h.update(func(tx *store.Tx) error { return DropWatermark(tx, tableID, g.Name) })
	err = backfillFrom(context.Background(), h.db, tableID, g, spaceID(g.Name), 3, start, nil)
	if !errors.Is(err, ErrIndexNotFound) {
		t.Errorf("Backfill of a dropped index: got %v, want %v", err, ErrIndexNotFound)
	}
	if _, ok, err := newApplier(h.options()).Watermark(g.Name); ok || err != nil {
		t.Errorf("dropped index got a watermark (%v) or %v", ok, err)
	}
}

func TestDropWatermark(t *testing.T) {
	g, hh := byG(), byH()
	h := newHarness(t, g, hh)
	h.built()
	h.update(func(tx *store.Tx) error {
		return writeBackfills(tx.Space(tableID), []backfill{{"a", 1}, {g.Name, 2}, {"z", 3}})
	})
	h.update(func(tx *store.Tx) error { return DropWatermark(tx, tableID, g.Name) })
	a := newApplier(h.options())
	if _, ok, err := a.Watermark(g.Name); ok || err != nil {
		t.Errorf("Watermark(%s) after DropWatermark: got one (%v) or %v, want none", g.Name, ok, err)
	}
	if _, ok, err := a.Watermark(hh.Name); !ok || err != nil {
		t.Errorf("Watermark(%s) of the other index: got none, %v, want one", hh.Name, err)
	}
	var got []backfill
	h.view(func(tx *store.Tx) error { got = readBackfills(tx.Space(tableID)); return nil })
	if want := []backfill{{"a", 1}, {"z", 3}}; !slices.Equal(got, want) {
		t.Errorf("backfills after DropWatermark: got %v, want %v", got, want)
	}
	// Dropping again, or on a deleted table, is not an error.
	h.update(func(tx *store.Tx) error { return DropWatermark(tx, tableID, g.Name) })
	h.update(func(tx *store.Tx) error { return DropWatermark(tx, "gone", g.Name) })
}

func TestBackfillErrors(t *testing.T) {
	g := byG()
	tests := []struct {
		name    string
		setup   func(h *harness)
		wantErr error
	}{
		{"table missing", func(h *harness) {
			h.update(func(tx *store.Tx) error { return tx.DropSpace(tableID) })
		}, ErrTableNotFound},
		{"index space missing", func(h *harness) {
			h.update(func(tx *store.Tx) error { return tx.DropSpace(spaceID(g.Name)) })
		}, ErrIndexNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, g)
			tc.setup(h)
			err := Backfill(context.Background(), h.db, tableID, g, spaceID(g.Name), 0)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Backfill: got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// TestBackfillKeyViolations backfills over items stored before the index
// existed whose index key values writes would now refuse (over 2048 bytes
// for a partition value, 1024 for a sort value, empty, or of another type).
// As DynamoDB documents for index key violations, the backfill completes and
// those items stay in the table but get no index entry.
func TestBackfillKeyViolations(t *testing.T) {
	g := &index.Def{Name: "byGT", Global: true, TableKey: tableKey,
		Partition:      []index.KeyAttr{{Name: "g", Type: attr.TypeS}},
		Sort:           []index.KeyAttr{{Name: "t", Type: attr.TypeS}},
		ProjectionType: "ALL"}
	long := func(n int) string { return strings.Repeat("x", n) }
	ops := []op{
		{"ok", item("pk", "ok", "g", "a", "t", "b")},
		{"pk-at-limit", item("pk", "pk-at-limit", "g", long(2048), "t", "b")},
		{"pk-over", item("pk", "pk-over", "g", long(2049), "t", "b")},
		{"sk-at-limit", item("pk", "sk-at-limit", "g", "a", "t", long(1024))},
		{"sk-over", item("pk", "sk-over", "g", "a", "t", long(1025))},
		{"pk-empty", item("pk", "pk-empty", "g", "", "t", "b")},
		{"sk-binary", item("pk", "sk-binary", "g", "a", "t", attr.Binary([]byte("b")))},
		{"pk-number", item("pk", "pk-number", "g", 7, "t", "b")},
	}
	h := newHarness(t)
	if _, err := h.writeAll(ops); err != nil {
		t.Fatal(err)
	}
	h.addIndex(g)
	if err := Backfill(context.Background(), h.db, tableID, g, spaceID(g.Name), 3); err != nil {
		t.Fatalf("Backfill: got %v, want nil", err)
	}
	if got, want := h.pks(g), []string{"ok", "pk-at-limit", "sk-at-limit"}; !slices.Equal(got, want) {
		t.Errorf("indexed items: got %v, want %v", got, want)
	}
	h.checkIndex(g)
	if got := h.got(g).items; got != 3 {
		t.Errorf("index item count: got %d, want 3", got)
	}
}
