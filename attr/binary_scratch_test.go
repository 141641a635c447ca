package attr

import (
	"fmt"
	"testing"
)

// TestBinarySizeNamesReuse feeds one scratch map a sequence of items, as a
// filtered Scan does: each call must leave exactly that item's named
// attributes in it, whatever the previous item left.
func TestBinarySizeNamesReuse(t *testing.T) {
	names := []string{"f", "g", "f"}
	into := Item{"stale": Null(), "f": String("old")}
	for _, tc := range []struct {
		name string
		item Item
		want Item
	}{
		{"both names", Item{"f": num("1"), "g": String("x"), "h": Null()}, Item{"f": num("1"), "g": String("x")}},
		{"same value again", Item{"f": num("1"), "h": Null()}, Item{"f": num("1")}},
		{"other name only", Item{"g": Map(map[string]Value{"a": StringSet("p", "q")})}, Item{"g": Map(map[string]Value{"a": StringSet("p", "q")})}},
		{"none", Item{"h": Null()}, Item{}},
		{"string", Item{"f": String("1")}, Item{"f": String("1")}},
		{"number with the same text", Item{"f": num("1")}, Item{"f": num("1")}},
		{"binary", Item{"f": Binary([]byte("1")), "g": List([]Value{Bool(true)})}, Item{"f": Binary([]byte("1")), "g": List([]Value{Bool(true)})}},
		{"empty item", Item{}, Item{}},
	} {
		b := AppendBinary(nil, tc.item)
		size, err := BinarySizeNames(b, names, into)
		if err != nil || size != tc.item.Size() || !Equal(Map(into), Map(tc.want)) {
			t.Errorf("%s: got %d, %v, %v; want %d, %v", tc.name, size, into, err, tc.item.Size(), tc.want)
		}
	}
}

// TestBinarySizeNamesManyNames: more names than the found set tracks.
func TestBinarySizeNamesManyNames(t *testing.T) {
	var names []string
	for i := range 70 {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	into := Item{"stale": Null(), "n1": Null()}
	it := Item{"n68": String("x"), "n3": num("3"), "other": Null()}
	size, err := BinarySizeNames(AppendBinary(nil, it), names, into)
	want := Item{"n68": String("x"), "n3": num("3")}
	if err != nil || size != it.Size() || !Equal(Map(into), Map(want)) {
		t.Errorf("got %d, %v, %v; want %d, %v", size, into, err, it.Size(), want)
	}
}
