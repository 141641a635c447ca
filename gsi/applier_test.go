package gsi

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// op is one write in a scripted test: it nil deletes pk.
type op struct {
	pk string
	it attr.Item
}

// applierCase is a sequence of base-table writes and the index contents
// they must leave.
type applierCase struct {
	name       string
	ops        []op
	wantG      []string  // pks in byG
	wantH      []string  // pks in byH
	wantGItemA attr.Item // byG's projected item for pk a, if present
}

// applierBasicCases insert, update, delete and move index entries.
func applierBasicCases() []applierCase {
	return []applierCase{
		{
			name:       "insert",
			ops:        []op{{"a", item("pk", "a", "g", "x", "s", 1, "h", 7, "z", "zz")}},
			wantG:      []string{"a"},
			wantH:      []string{"a"},
			wantGItemA: item("pk", "a", "g", "x", "s", 1, "h", 7, "z", "zz"),
		},
		{
			name: "update non-key attribute",
			ops: []op{
				{"a", item("pk", "a", "g", "x", "s", 1, "z", "old")},
				{"a", item("pk", "a", "g", "x", "s", 1, "z", "new")},
			},
			wantG:      []string{"a"},
			wantGItemA: item("pk", "a", "g", "x", "s", 1, "z", "new"),
		},
		{
			name: "delete",
			ops: []op{
				{"a", item("pk", "a", "g", "x", "s", 1, "h", 7)},
				{"b", item("pk", "b", "g", "x", "s", 2, "h", 7)},
				{"a", nil},
			},
			wantG: []string{"b"},
			wantH: []string{"b"},
		},
		{
			name: "index key change moves the entry",
			ops: []op{
				{"a", item("pk", "a", "g", "x", "s", 1)},
				{"a", item("pk", "a", "g", "y", "s", 5)},
			},
			wantG:      []string{"a"},
			wantGItemA: item("pk", "a", "g", "y", "s", 5),
		},
	}
}

// applierSparseCases write items without (or losing) an index key, and
// items sharing one.
func applierSparseCases() []applierCase {
	return []applierCase{
		{
			name: "sparse: item without the index key",
			ops: []op{
				{"a", item("pk", "a", "h", 3)},
				{"b", item("pk", "b", "g", "x")}, // no sort key s
			},
			wantH: []string{"a"},
		},
		{
			name: "sparse: key attribute of another type",
			ops:  []op{{"a", item("pk", "a", "g", 5, "s", 1, "h", "not a number")}},
		},
		{
			name: "key attribute removed, then added back",
			ops: []op{
				{"a", item("pk", "a", "g", "x", "s", 1, "h", 1)},
				{"a", item("pk", "a", "h", 1)},
				{"b", item("pk", "b", "g", "x", "s", 1)},
				{"b", item("pk", "b", "g", "x", "s", 1, "h", 2)},
			},
			wantG: []string{"b"},
			wantH: []string{"a", "b"},
		},
		{
			name: "delete of an absent item writes nothing",
			ops:  []op{{"a", nil}},
		},
		{
			name: "same index key for two items",
			ops: []op{
				{"a", item("pk", "a", "g", "x", "s", 1, "h", 1)},
				{"b", item("pk", "b", "g", "x", "s", 1, "h", 1)},
			},
			wantG: []string{"a", "b"},
			wantH: []string{"a", "b"},
		},
	}
}

func TestApplierWrites(t *testing.T) {
	for _, tc := range append(applierBasicCases(), applierSparseCases()...) {
		t.Run(tc.name, func(t *testing.T) { checkApplierCase(t, tc) })
	}
}

// checkApplierCase applies tc's writes and checks both indexes' entries,
// projections and watermarks.
func checkApplierCase(t *testing.T, tc applierCase) {
	t.Helper()
	g, hh := byG(), byH()
	h := newHarness(t, g, hh)
	h.built()
	a := h.start(h.options())
	var seq uint64
	for _, o := range tc.ops {
		seq = h.write(o.pk, o.it)
		a.Notify()
	}
	waitFor(t, a, seq)
	if got := h.pks(g); !slices.Equal(got, tc.wantG) {
		t.Errorf("byG pks: got %v, want %v", got, tc.wantG)
	}
	if got := h.pks(hh); !slices.Equal(got, tc.wantH) {
		t.Errorf("byH pks: got %v, want %v", got, tc.wantH)
	}
	if tc.wantGItemA != nil {
		var got attr.Item
		for _, it := range h.got(g).entries {
			if it["pk"].S == "a" {
				got = it
			}
		}
		if !itemsEqual(got, tc.wantGItemA) {
			t.Errorf("byG item a: got %v, want %v", got, tc.wantGItemA)
		}
	}
	for _, it := range h.got(hh).entries {
		if len(it) != 2 { // KEYS_ONLY: pk and h
			t.Errorf("byH projected %v, want only pk and h", it)
		}
	}
	h.checkIndex(g)
	h.checkIndex(hh)
	for _, d := range []string{"byG", "byH"} {
		if wm, ok, err := a.Watermark(d); err != nil || !ok || wm != seq {
			t.Errorf("Watermark(%s): got %d, %v, %v, want %d, true", d, wm, ok, err, seq)
		}
	}
}

func TestWaitFor(t *testing.T) {
	t.Run("returns after catching up", func(t *testing.T) {
		h := newHarness(t, byG(), byGX())
		h.built()
		a := h.start(h.options())
		var seq uint64
		for i := range 1500 { // three batches
			seq = h.write(string(rune('a'+i%26))+string(rune('a'+i/26)), item("g", "x", "s", i, "x", "q", "y", i))
		}
		a.Notify()
		waitFor(t, a, seq)
		for _, d := range h.indexes() {
			if wm, _, err := a.Watermark(d.Name); err != nil || wm < seq {
				t.Errorf("Watermark(%s) after WaitFor(%d): got %d, %v", d.Name, seq, wm, err)
			}
			h.checkIndex(d)
		}
	})
	t.Run("no indexes", func(t *testing.T) {
		h := newHarness(t)
		a := h.start(h.options())
		waitFor(t, a, h.write("a", item("g", "x")))
	})
	t.Run("index being backfilled is not waited for", func(t *testing.T) {
		h := newHarness(t, byG()) // no watermark
		a := h.start(h.options())
		waitFor(t, a, h.write("a", item("g", "x", "s", 1)))
		if _, ok, err := a.Watermark("byG"); ok || err != nil {
			t.Errorf("Watermark(byG): got one (%v) or %v, want none", ok, err)
		}
	})
	t.Run("context ends", func(t *testing.T) {
		h := newHarness(t, byG())
		h.built()
		a := h.start(h.options())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := a.WaitFor(ctx, h.lastSeq()+1); !errors.Is(err, context.Canceled) {
			t.Errorf("WaitFor(future seq): got %v, want %v", err, context.Canceled)
		}
	})
	t.Run("closed", func(t *testing.T) {
		h := newHarness(t, byG())
		h.built()
		a := Start(context.Background(), h.options())
		a.Close()
		a.Close() // idempotent
		if err := a.WaitFor(context.Background(), h.lastSeq()+1); !errors.Is(err, ErrClosed) {
			t.Errorf("WaitFor after Close: got %v, want %v", err, ErrClosed)
		}
	})
	t.Run("store closed", func(t *testing.T) {
		h := newHarness(t, byG())
		h.built()
		a := h.start(h.options())
		if err := h.db.Close(); err != nil {
			t.Fatal(err)
		}
		if err := a.WaitFor(context.Background(), 1); !errors.Is(err, ErrClosed) {
			t.Errorf("WaitFor after the store closed: got %v, want %v", err, ErrClosed)
		}
	})
}

func TestIndexesComeAndGo(t *testing.T) {
	g, x := byG(), byGX()
	h := newHarness(t, g)
	h.built()
	a := h.start(h.options())
	for i := range 300 {
		h.write(string(rune('a'+i%26))+string(rune('A'+i/26)), item("g", "v", "s", i, "x", "w", "y", 1))
	}
	// A second index arrives: Backfill while the applier runs, then catch up.
	h.addIndex(x)
	if err := Backfill(context.Background(), h.db, tableID, x, spaceID(x.Name), 7); err != nil {
		t.Fatalf("Backfill: %v", err)
	}
	a.Notify()
	seq := h.write("zz", item("g", "v", "s", 1, "x", "w"))
	waitFor(t, a, seq)
	h.checkIndex(g)
	h.checkIndex(x)
}
