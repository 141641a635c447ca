package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/store"
)

// prefixKey is Key's plain twin: PartitionPrefix of the partition values,
// then each sort value's encoding, then the table key.
func prefixKey(d *Def, item attr.Item, tkey []byte) ([]byte, bool) {
	var vals []attr.Value
	for _, ka := range d.Partition {
		v, ok := item[ka.Name]
		if !ok || CheckKeyValue(v, ka.Type, true) != KeyFits {
			return nil, false
		}
		vals = append(vals, v)
	}
	key := PartitionPrefix(vals)
	for _, ka := range d.Sort {
		v, ok := item[ka.Name]
		if !ok || CheckKeyValue(v, ka.Type, false) != KeyFits {
			return nil, false
		}
		key = attr.AppendKey(key, v)
	}
	return append(key, tkey...), true
}

// keyDefs are index shapes of every kind Key builds: one or two partition
// attributes of each key type, with no, one or two sort attributes.
func keyDefs() []*Def {
	tk := []KeyAttr{{"pk", attr.TypeS}}
	return []*Def{
		{Name: "s", Partition: []KeyAttr{{"a", attr.TypeS}}, TableKey: tk},
		{Name: "n-b", Partition: []KeyAttr{{"n", attr.TypeN}}, Sort: []KeyAttr{{"b", attr.TypeB}}, TableKey: tk},
		{Name: "b-s-n", Partition: []KeyAttr{{"b", attr.TypeB}}, Sort: []KeyAttr{{"a", attr.TypeS}, {"n", attr.TypeN}}, TableKey: tk},
		{Name: "s+n", Partition: []KeyAttr{{"a", attr.TypeS}, {"n", attr.TypeN}}, Sort: []KeyAttr{{"b", attr.TypeB}}, TableKey: tk},
	}
}

// randomKeyItem returns an item whose attributes a (S), n (N) and b (B) are
// each sometimes absent, of another type, empty or holding 0x00 bytes.
func randomKeyItem(r *rand.Rand) attr.Item {
	it := attr.Item{"pk": attr.String("p")}
	strs := []string{"x", "", "a\x00b", "\x00", "long-" + fmt.Sprint(r.Int())}
	nums := []string{"0", "-1", "3.25", "1e10", "-0.000001", "12345678901234567890123456789012345678"}
	if r.IntN(6) > 0 {
		it["a"] = attr.String(strs[r.IntN(len(strs))])
	}
	if r.IntN(6) > 0 {
		v, _ := attr.Number(nums[r.IntN(len(nums))])
		it["n"] = v
	}
	switch r.IntN(6) {
	case 0:
	case 1:
		it["b"] = attr.String("not binary")
	default:
		it["b"] = attr.Binary([]byte(strs[r.IntN(len(strs))]))
	}
	return it
}

// TestKeyMatchesPrefix: Key, which builds the usual key in one buffer,
// gives its plain twin's bytes and verdict for every shape and value.
func TestKeyMatchesPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range keyDefs() {
		for i := range 2000 {
			it := randomKeyItem(r)
			tkey := []byte(fmt.Sprintf("t%d\x00", i))
			got, gok := d.Key(it, tkey)
			want, wok := prefixKey(d, it, tkey)
			if gok != wok || !bytes.Equal(got, want) {
				t.Fatalf("%s, %v: Key %x %v, want %x %v", d.Name, it, got, gok, want, wok)
			}
		}
	}
}

// TestDiffSizedMatchesDiff: given the items' sizes, DiffSized returns
// Diff's change for every projection.
func TestDiffSizedMatchesDiff(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	defs := []*Def{testDef("ALL"), testDef("KEYS_ONLY"), testDef("INCLUDE", "x")}
	pick := func() attr.Item {
		if r.IntN(5) == 0 {
			return nil
		}
		it := attr.Item{"pk": attr.String("p"), "g": attr.String(fmt.Sprint(r.IntN(2))), "n": num(fmt.Sprint(r.IntN(2)))}
		if r.IntN(2) == 0 {
			it["x"] = attr.String(fmt.Sprint(r.IntN(2)))
		}
		if r.IntN(4) == 0 {
			delete(it, "g")
		}
		return it
	}
	size := func(it attr.Item) int {
		if it == nil {
			return -1
		}
		return it.Size()
	}
	for _, d := range defs {
		for range 500 {
			old, new := pick(), pick()
			got, want := d.DiffSized([]byte("t"), old, new, size(old), size(new)), d.Diff([]byte("t"), old, new)
			if !bytes.Equal(got.OldKey, want.OldKey) || !bytes.Equal(got.NewKey, want.NewKey) || got.OldSize != want.OldSize ||
				got.NewSize != want.NewSize || got.Unchanged != want.Unchanged || !attr.Equal(attr.Map(got.New), attr.Map(want.New)) {
				t.Fatalf("%s: %v -> %v: DiffSized %+v, Diff %+v", d.ProjectionType, old, new, got, want)
			}
		}
	}
}

// TestApplyReplacesInPlace: a change that keeps the entry's key replaces
// it (one search) and counts it once; Entry, when set, is stored as given.
func TestApplyReplacesInPlace(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := testDef("ALL")
	a := attr.Item{"pk": attr.String("p"), "g": attr.String("G"), "n": num("1"), "v": attr.String("one")}
	b := attr.Item{"pk": attr.String("p"), "g": attr.String("G"), "n": num("1"), "v": attr.String("three")}
	steps := []struct {
		name        string
		change      func() Change
		items, size int64
	}{
		{"insert", func() Change { return d.Diff([]byte("t"), nil, a) }, 1, int64(a.Size())},
		{"replace", func() Change { return d.Diff([]byte("t"), a, b) }, 1, int64(b.Size())},
		{"replace with an encoded entry", func() Change {
			c := d.Diff([]byte("t"), b, a)
			c.Entry, c.New = AppendEntry(nil, a, a.Size()), nil
			return c
		}, 1, int64(a.Size())},
		{"the same insert again (a backfill overlapping the log)", func() Change { return d.Diff([]byte("t"), nil, a) }, 1, int64(a.Size())},
		{"delete", func() Change { return d.Diff([]byte("t"), a, nil) }, 0, 0},
	}
	for _, st := range steps {
		var items, size int64
		var stored attr.Item
		err := db.Update(t.Context(), func(tx *store.Tx) error {
			if err := tx.CreateSpace("ix"); err != nil && err != store.ErrSpaceExists {
				return err
			}
			sp := tx.Space("ix")
			if err := st.change().Apply(sp); err != nil {
				return err
			}
			items, size = sp.Stats()
			k, _ := d.Key(a, []byte("t"))
			if v := sp.Get(k); v != nil {
				stored, err = DecodeEntry(v)
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if items != st.items || size != st.size {
			t.Errorf("%s: counters %d items %d bytes, want %d, %d", st.name, items, size, st.items, st.size)
		}
		if st.items == 1 && stored == nil {
			t.Errorf("%s: no entry stored", st.name)
		}
	}
}
