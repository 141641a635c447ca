package index

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/store"
)

func testDef(projection string, nonKey ...string) *Def {
	return &Def{Name: "ix", Global: true,
		Partition:      []KeyAttr{{"g", attr.TypeS}},
		Sort:           []KeyAttr{{"n", attr.TypeN}},
		ProjectionType: projection, NonKey: nonKey,
		TableKey: []KeyAttr{{"pk", attr.TypeS}}}
}

func num(s string) attr.Value { v, _ := attr.Number(s); return v }

func TestKeyAndProjection(t *testing.T) {
	d := testDef("INCLUDE", "x")
	item := attr.Item{"pk": attr.String("p"), "g": attr.String("G"), "n": num("5"), "x": attr.String("kept"), "y": attr.String("dropped")}
	tests := []struct {
		name string
		item attr.Item
		ok   bool
	}{
		{"all key attributes", item, true},
		{"missing sort attribute", attr.Item{"pk": attr.String("p"), "g": attr.String("G")}, false},
		{"wrong type", attr.Item{"pk": attr.String("p"), "g": attr.String("G"), "n": attr.String("5")}, false},
		{"empty partition string", attr.Item{"pk": attr.String("p"), "g": attr.String(""), "n": num("5")}, false},
		{"partition at 2048 bytes", attr.Item{"pk": attr.String("p"), "g": attr.String(strings.Repeat("g", 2048)), "n": num("5")}, true},
		{"partition over 2048 bytes", attr.Item{"pk": attr.String("p"), "g": attr.String(strings.Repeat("g", 2049)), "n": num("5")}, false},
	}
	for _, tt := range tests {
		if _, ok := d.Key(tt.item, []byte("t")); ok != tt.ok {
			t.Errorf("%s: Key ok got %v, want %v", tt.name, ok, tt.ok)
		}
	}
	k5, _ := d.Key(item, []byte("t1"))
	item6 := attr.Item{"pk": attr.String("q"), "g": attr.String("G"), "n": num("6")}
	k6, _ := d.Key(item6, []byte("t0"))
	if !bytes.HasPrefix(k5, PartitionPrefix([]attr.Value{attr.String("G")})) || bytes.Compare(k5, k6) >= 0 {
		t.Errorf("keys: want the partition prefix first and sort order n=5 < n=6 regardless of table key")
	}
	got := d.Project(item)
	if len(got) != 4 || got["x"].S != "kept" || got["y"].T != 0 {
		t.Errorf("Project INCLUDE: got %v", got)
	}
	if got := testDef("KEYS_ONLY").Project(item); len(got) != 3 {
		t.Errorf("Project KEYS_ONLY: got %v", got)
	}
}

func TestDiffApplyIdempotent(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := testDef("ALL")
	tkey := []byte("t")
	v1 := attr.Item{"pk": attr.String("p"), "g": attr.String("A"), "n": num("1")}
	v2 := attr.Item{"pk": attr.String("p"), "g": attr.String("B"), "n": num("1")}
	v3 := attr.Item{"pk": attr.String("p"), "g": attr.String("B"), "n": num("1"), "other": attr.Bool(true)}
	steps := []struct {
		old, new   attr.Item
		items      int64
		unchanged  bool
		wantKeyOfG string // "" = index empty
	}{
		{nil, v1, 1, false, "A"},
		{v1, v2, 1, false, "B"}, // key change: delete + put
		{v2, v2, 1, true, "B"},  // nothing the index stores changed
		{v2, v3, 1, false, "B"}, // same key, new content
		{v3, nil, 0, false, ""},
	}
	for i, st := range steps {
		c := d.Diff(tkey, st.old, st.new)
		if c.Unchanged != st.unchanged {
			t.Errorf("step %d: Unchanged got %v, want %v", i, c.Unchanged, st.unchanged)
		}
		for rep := 0; rep < 2; rep++ { // applying twice changes nothing more
			err := db.Update(context.Background(), func(tx *store.Tx) error {
				sp := tx.Space("ix")
				if sp == nil {
					if err := tx.CreateSpace("ix"); err != nil {
						return err
					}
					sp = tx.Space("ix")
				}
				return c.Apply(sp)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		db.View(func(tx *store.Tx) error {
			sp := tx.Space("ix")
			items, size := sp.Stats()
			var gs []string
			sp.Ascend(nil, nil, func(k, v []byte) bool {
				it, err := DecodeEntry(v)
				if err != nil {
					t.Fatal(err)
				}
				gs = append(gs, it["g"].S)
				return true
			})
			if items != st.items || int64(len(gs)) != items || (st.wantKeyOfG != "" && gs[0] != st.wantKeyOfG) {
				t.Errorf("step %d: got %d items %v (size %d), want %d with g=%q", i, items, gs, size, st.items, st.wantKeyOfG)
			}
			if items == 0 && size != 0 {
				t.Errorf("step %d: empty index with size %d", i, size)
			}
			return nil
		})
	}
}

// TestCheckKeyValue: the one set of index key rules, at each boundary.
func TestCheckKeyValue(t *testing.T) {
	str := func(n int) attr.Value { return attr.String(strings.Repeat("x", n)) }
	tests := []struct {
		name      string
		v         attr.Value
		want      attr.Type
		partition bool
		got       KeyViolation
	}{
		{"string", str(1), attr.TypeS, true, KeyFits},
		{"wrong type", attr.Value{T: attr.TypeN, S: "1"}, attr.TypeS, true, KeyWrongType},
		{"empty string", str(0), attr.TypeS, false, KeyEmpty},
		{"empty binary", attr.Binary(nil), attr.TypeB, true, KeyEmpty},
		{"partition at limit", str(2048), attr.TypeS, true, KeyFits},
		{"partition over limit", str(2049), attr.TypeS, true, KeyTooLarge},
		{"sort at limit", str(1024), attr.TypeS, false, KeyFits},
		{"sort over limit", str(1025), attr.TypeS, false, KeyTooLarge},
		{"number", attr.Value{T: attr.TypeN, S: "12"}, attr.TypeN, false, KeyFits},
	}
	for _, tt := range tests {
		if got := CheckKeyValue(tt.v, tt.want, tt.partition); got != tt.got {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.got)
		}
	}
}

// TestAppendEntryEncoded: an entry built from an item's storage encoding
// is AppendEntry's for the item: the same bytes when the item has one
// attribute (an encoding of several follows the map's order), and for any
// item the same size and decoded item.
func TestAppendEntryEncoded(t *testing.T) {
	for _, it := range []attr.Item{
		{"pk": attr.String("a")},
		{"pk": attr.String("a"), "n": num("12.5"), "ss": attr.Value{T: attr.TypeSS, SS: []string{"x", "y"}},
			"m": attr.Map(attr.Item{"b": attr.Binary([]byte{0, 1})})},
	} {
		size := it.Size()
		got := AppendEntryEncoded([]byte("junk")[:0], attr.AppendBinary(nil, it), size)
		if len(it) == 1 && !bytes.Equal(got, AppendEntry(nil, it, size)) {
			t.Errorf("%v: %x, AppendEntry %x", it, got, AppendEntry(nil, it, size))
		}
		n, err := EntrySize(got)
		back, derr := DecodeEntry(got)
		if err != nil || n != size || derr != nil || !attr.Equal(attr.Map(back), attr.Map(it)) {
			t.Errorf("%v: size %d (%v), decoded %v (%v); want %d", it, n, err, back, derr, size)
		}
	}
}
