package s3export

import (
	"fmt"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// TestStoredDecoderIsDecodeBinary: item after item, whether the names
// repeat, shrink, grow or are too many to track, storedDecoder returns
// what attr.DecodeBinary returns, and its size; a corrupt item is an error
// for both.
func TestStoredDecoderIsDecodeBinary(t *testing.T) {
	many := attr.Item{}
	for i := range maxTracked + 6 {
		many[fmt.Sprintf("a%02d", i)] = attr.Int(int64(i))
	}
	nested := attr.Map(map[string]attr.Value{"x": attr.List([]attr.Value{attr.String("q"), attr.Binary([]byte{1})})})
	seq := []attr.Item{
		{"a": attr.Int(1), "b": attr.String("x")},
		{"a": attr.Int(2), "b": attr.String("y")},
		{"a": attr.Int(2), "b": attr.String("y")},                       // the same values again
		{"a": attr.Int(3)},                                              // fewer names
		{"b": attr.String("z")},                                         // another of them
		{"a": attr.Int(4), "b": attr.String("w"), "c": attr.Bool(true)}, // one more
		{"a": attr.Int(5), "c": nested, "ss": attr.StringSet("p", "q"), "bs": attr.BinarySet([]byte{2})},
		{"a": attr.Int(5), "c": attr.Null(), "ss": attr.StringSet("p"), "bs": attr.Binary(nil)}, // same names, other types
		{},
		{"a": attr.String("")},
		many,
		many,
		{"a": attr.Int(6), "b": attr.String("v")},
		{"a": attr.Int(7), "b": attr.String("u")},
		{"a": attr.Int(7), "b": attr.String("u"), "": attr.String("")}, // a name and a value of no bytes
		{"a": attr.Int(8), "": attr.Binary(nil)},
		{"a": attr.Int(9)},
	}
	var d storedDecoder
	for i, want := range seq {
		b := attr.AppendBinary(nil, want)
		plain, err := attr.DecodeBinary(b)
		if err != nil {
			t.Fatal(err)
		}
		got, size, err := d.decode(b)
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if size != plain.Size() || !sameItem(got, plain) {
			t.Fatalf("item %d: got %v (size %d), DecodeBinary %v (size %d)", i, got, size, plain, plain.Size())
		}
		if _, _, err := d.decode(b[:len(b)-1]); err == nil {
			t.Fatalf("item %d cut short: no error", i)
		}
	}
}

func sameItem(a, b attr.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !attr.Equal(v, w) {
			return false
		}
	}
	return true
}
