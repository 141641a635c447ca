package gsi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// allDefs are indexes projecting every attribute, the ones storedDiff
// serves: one partition attribute and a sort key (byG), and a
// multi-attribute partition.
func allDefs() []*index.Def {
	gx := byGX()
	gx.ProjectionType, gx.NonKey = "ALL", nil
	return []*index.Def{byG(), gx}
}

// plainDiff is what the applier did before storedDiff: decode both images
// whole and Diff them.
func plainDiff(t *testing.T, def *index.Def, key, oldB, newB []byte) index.Change {
	t.Helper()
	im := images{key: key, oldB: oldB, newB: newB}
	old, new, err := im.items()
	if err != nil {
		t.Fatalf("decoding images: %v", err)
	}
	return def.Diff(key, old, new)
}

// checkSameChange fails unless fast, storedDiff's change, is plain's in
// keys and sizes, stores the same item, and is Unchanged only when plain is.
func checkSameChange(t *testing.T, what string, fast, plain index.Change) {
	t.Helper()
	if !bytes.Equal(fast.OldKey, plain.OldKey) || !bytes.Equal(fast.NewKey, plain.NewKey) {
		t.Fatalf("%s: keys got %x %x, want %x %x", what, fast.OldKey, fast.NewKey, plain.OldKey, plain.NewKey)
	}
	if fast.OldSize != plain.OldSize || fast.NewSize != plain.NewSize {
		t.Fatalf("%s: sizes got %d %d, want %d %d", what, fast.OldSize, fast.NewSize, plain.OldSize, plain.NewSize)
	}
	if fast.Unchanged && !plain.Unchanged {
		t.Fatalf("%s: Unchanged where Diff writes", what)
	}
	if fast.NewKey == nil {
		return
	}
	got, err := index.DecodeEntry(fast.Entry)
	if err != nil {
		t.Fatalf("%s: entry: %v", what, err)
	}
	if size, _, _ := index.SplitEntry(fast.Entry); size != plain.NewSize || !itemsEqual(got, plain.New) {
		t.Fatalf("%s: entry holds %v (size %d), want %v (size %d)", what, got, size, plain.New, plain.NewSize)
	}
}

// TestStoredDiffMatchesDiff: for random pairs of images (inserts, deletes,
// key changes, sparse items, the same item again in the same or another
// attribute order), storedDiff, the applier's fast path, gives Diff's keys
// and sizes and an entry holding Diff's item, and applying the changes one
// after another leaves an index equal to the plain path's, counters
// included.
func TestStoredDiffMatchesDiff(t *testing.T) {
	for _, def := range allDefs() {
		t.Run(def.Name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(def.Partition))))
			fastDB, plainDB := memDB(t), memDB(t)
			tgt := target{def: def}
			items := map[string][]byte{} // table key -> current image
			for i := range 3000 {
				pk := fmt.Sprintf("p%d", r.IntN(40))
				key := []byte("k" + pk)
				oldB := items[pk]
				var newB []byte
				switch n := r.IntN(10); {
				case n == 0: // delete
				case n == 1 && oldB != nil: // the same bytes again
					newB = oldB
				case n == 2 && oldB != nil: // the same item, re-encoded in map order
					old, _ := attr.DecodeBinary(oldB)
					newB = attr.AppendBinary(nil, old)
				default:
					newB = attr.AppendBinary(nil, randomItem(r, pk))
				}
				if oldB == nil && newB == nil {
					continue
				}
				im := images{seq: uint64(i + 1), key: key, oldB: oldB, newB: newB}
				fast, ok := storedDiff(&tgt, &im)
				if !ok {
					t.Fatalf("record %d: storedDiff refused images that decode", i)
				}
				plain := plainDiff(t, def, key, oldB, newB)
				checkSameChange(t, fmt.Sprintf("record %d", i), fast, plain)
				applyTo(t, fastDB, fast)
				applyTo(t, plainDB, plain)
				items[pk] = newB
			}
			f, p := indexContent(t, fastDB), indexContent(t, plainDB)
			if f.items != p.items || f.size != p.size || len(f.entries) != len(p.entries) {
				t.Fatalf("index: fast %d items %d bytes %d entries, plain %d, %d, %d", f.items, f.size, len(f.entries), p.items, p.size, len(p.entries))
			}
			for k, want := range p.entries {
				if got, ok := f.entries[k]; !ok || !itemsEqual(got, want) {
					t.Fatalf("entry %x: fast %v, plain %v", k, got, want)
				}
			}
		})
	}
}

// TestStoredDiffLeavesOtherProjections: storedDiff serves only indexes that
// project every attribute; the others take Diff.
func TestStoredDiffLeavesOtherProjections(t *testing.T) {
	newB := attr.AppendBinary(nil, item("pk", "p", "g", "a", "h", 3, "x", "b", "y", "kept"))
	for _, def := range []*index.Def{byH(), byGX()} {
		tgt := target{def: def}
		if _, ok := storedDiff(&tgt, &images{key: []byte("kp"), newB: newB}); ok {
			t.Errorf("%s (%s): storedDiff took it", def.Name, def.ProjectionType)
		}
	}
}

// FuzzStoredDiff: for any bytes as the images, storedDiff either refuses
// them or gives what decoding them and Diff give; it never accepts images
// that do not decode (the applier stops at such a record instead).
func FuzzStoredDiff(f *testing.F) {
	f.Add(attr.AppendBinary(nil, item("pk", "p", "g", "a", "s", 1)), attr.AppendBinary(nil, item("pk", "p", "g", "b", "s", 2, "v", "x")))
	f.Add([]byte{}, attr.AppendBinary(nil, item("pk", "p", "g", "a", "x", "c", "s", attr.Value{T: attr.TypeN, S: "1e3"})))
	f.Add(attr.AppendBinary(nil, item("pk", "p")), []byte{3, 1, 0x8a, 1, 1, 'g', 1, 1, 'a'})
	f.Add([]byte{1, 0}, []byte{2, 5, 1, 1, 'g', 3, 2, '1', '2'})
	f.Fuzz(func(t *testing.T, oldB, newB []byte) {
		if len(oldB) == 0 {
			oldB = nil
		}
		if len(newB) == 0 {
			newB = nil
		}
		for _, def := range allDefs() {
			tgt := target{def: def}
			im := images{key: []byte("kp"), oldB: oldB, newB: newB}
			fast, ok := storedDiff(&tgt, &im)
			if !ok {
				continue
			}
			old, new, err := im.items()
			if err != nil {
				t.Fatalf("%s: storedDiff accepted images that do not decode: %v", def.Name, err)
			}
			if !sizeRecorded(oldB, old) || !sizeRecorded(newB, new) {
				// No writer stores an item under a wrong recorded size; the
				// fast paths trust it (attr.BinarySize), Diff measures.
				continue
			}
			checkSameChange(t, def.Name, fast, plainDiff(t, def, im.key, oldB, newB))
		}
	})
}

// sizeRecorded reports whether encoding b of item it (nil: none) records
// its size right.
func sizeRecorded(b []byte, it attr.Item) bool {
	if b == nil {
		return true
	}
	n, err := attr.BinarySize(b)
	return err == nil && n == it.Size()
}

func memDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Update(t.Context(), func(tx *store.Tx) error { return tx.CreateSpace("ix") }); err != nil {
		t.Fatal(err)
	}
	return db
}

// applyTo applies c to space "ix" of db as the applier does.
func applyTo(t *testing.T, db *store.DB, c index.Change) {
	t.Helper()
	if err := db.Update(t.Context(), func(tx *store.Tx) error {
		tg := []target{{sp: tx.Space("ix"), def: &index.Def{Name: "ix"}}}
		if err := applyRecord(tg, []index.Change{c}, 1); err != nil {
			return err
		}
		return addCounts(tg)
	}); err != nil {
		t.Fatal(err)
	}
}

// indexContent reads space "ix" of db: its entries' items and counters.
func indexContent(t *testing.T, db *store.DB) content {
	t.Helper()
	c := content{entries: map[string]attr.Item{}}
	if err := db.View(func(tx *store.Tx) error {
		sp := tx.Space("ix")
		c.items, c.size = sp.Stats()
		var err error
		aerr := sp.Ascend(nil, nil, func(k, v []byte) bool {
			var it attr.Item
			it, err = index.DecodeEntry(v)
			c.entries[string(k)] = it
			return err == nil
		})
		if err != nil {
			return err
		}
		return aerr
	}); err != nil {
		t.Fatal(err)
	}
	return c
}
