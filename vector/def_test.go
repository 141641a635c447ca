package vector

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
)

func testDef() *Def {
	return &Def{Name: "emb", Attribute: "v", Dims: 2, Func: Cosine,
		Hash:    index.KeyAttr{Name: "tenant", Type: attr.TypeS},
		Filters: []index.KeyAttr{{Name: "kind", Type: attr.TypeS}, {Name: "year", Type: attr.TypeN}}}
}

func TestDefEntry(t *testing.T) {
	d := testDef()
	vec := list(t, "1", "0.5")
	cases := []struct {
		name string
		item attr.Item
		ok   bool
		want Entry
	}{
		{"all present", attr.Item{"v": vec, "tenant": attr.String("t1"), "kind": attr.String("doc"), "year": num(t, "2026")}, true,
			Entry{Key: "k", Partition: FilterValue(attr.String("t1")), Vector: []float32{1, 0.5},
				Filters: []string{FilterValue(attr.String("doc")), FilterValue(num(t, "2026"))}}},
		{"filters absent or of another type", attr.Item{"v": vec, "tenant": attr.String("t1"), "year": attr.String("2026")}, true,
			Entry{Key: "k", Partition: FilterValue(attr.String("t1")), Vector: []float32{1, 0.5}, Filters: []string{"", ""}}},
		{"no vector", attr.Item{"tenant": attr.String("t1")}, false, Entry{}},
		{"vector of wrong length", attr.Item{"v": list(t, "1"), "tenant": attr.String("t1")}, false, Entry{}},
		{"hash absent", attr.Item{"v": vec}, false, Entry{}},
		{"hash of another type", attr.Item{"v": vec, "tenant": num(t, "1")}, false, Entry{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := d.Entry("k", c.item, nil)
			if ok != c.ok || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Entry = %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestFilterValueEquality(t *testing.T) {
	same := [][2]attr.Value{
		{num(t, "1.50"), num(t, "1.5")},
		{num(t, "100"), num(t, "1E+2")},
	}
	for _, p := range same {
		if FilterValue(p[0]) != FilterValue(p[1]) {
			t.Errorf("%v and %v encode differently", p[0], p[1])
		}
	}
	differ := [][2]attr.Value{
		{attr.String("1"), num(t, "1")},
		{attr.String("a"), attr.Binary([]byte("a"))},
		{attr.String("a"), attr.String("a\x00")},
	}
	for _, p := range differ {
		if FilterValue(p[0]) == FilterValue(p[1]) {
			t.Errorf("%v and %v encode alike", p[0], p[1])
		}
	}
	if FilterValue(attr.Bool(true)) != "" || FilterValue(list(t, "1")) != "" {
		t.Error("non-scalar values encode")
	}
}

func TestDefCheck(t *testing.T) {
	d := testDef()
	cases := []struct {
		name string
		item attr.Item
		err  error
	}{
		{"valid", attr.Item{"v": list(t, "1", "2"), "tenant": attr.String("t"), "kind": attr.String("k")}, nil},
		{"nothing indexed", attr.Item{"other": attr.String("x")}, nil},
		{"vector too short", attr.Item{"v": list(t, "1")}, &ParseError{Reason: Length, Expected: 2, Actual: 1}},
		{"vector as a number set", attr.Item{"v": {T: attr.TypeNS, SS: []string{"1", "2"}}}, &ParseError{Reason: NotList}},
		{"vector beyond float32", attr.Item{"v": list(t, "1", "1E+39")}, &ParseError{Reason: Range, Index: 1}},
		{"hash of another type", attr.Item{"tenant": num(t, "1")}, &SchemaError{Attribute: "tenant", Want: attr.TypeS, Got: attr.TypeN}},
		{"empty hash", attr.Item{"tenant": attr.String("")}, &SchemaError{Attribute: "tenant", Want: attr.TypeS, Got: attr.TypeS, Empty: true}},
		{"filter of another type", attr.Item{"year": attr.String("x")}, &SchemaError{Attribute: "year", Want: attr.TypeN, Got: attr.TypeS}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := d.Check(c.item)
			if c.err == nil {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				return
			}
			var pe *ParseError
			var se *SchemaError
			switch want := c.err.(type) {
			case *ParseError:
				if !errors.As(err, &pe) || *pe != *want {
					t.Fatalf("Check = %v, want %v", err, want)
				}
			case *SchemaError:
				if !errors.As(err, &se) || *se != *want {
					t.Fatalf("Check = %v, want %v", err, want)
				}
			}
		})
	}
}
