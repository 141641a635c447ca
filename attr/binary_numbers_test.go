package attr

import (
	"reflect"
	"testing"
)

// TestBinaryNumbers: the texts BinaryNumbers reports are those DecodeBinary
// decodes, and anything but a list of numbers is not one.
func TestBinaryNumbers(t *testing.T) {
	nums := Value{T: TypeL, L: []Value{Int(1), {T: TypeN, S: "-0.25"}, Int(300)}}
	item := Item{"a": String("x"), "v": nums, "m": Map(map[string]Value{"v": nums}),
		"mixed": {T: TypeL, L: []Value{Int(1), String("2")}}, "ns": {T: TypeNS, SS: []string{"1"}}, "empty": {T: TypeL, L: []Value{}}}
	b := AppendBinary(nil, item)
	cases := []struct {
		name string
		ok   bool
		want []string
	}{
		{"v", true, []string{"1", "-0.25", "300"}},
		{"empty", true, nil},
		{"mixed", false, []string{"1"}},
		{"ns", false, nil},
		{"a", false, nil},
		{"missing", false, nil},
	}
	for _, c := range cases {
		var got []string
		ok, err := BinaryNumbers(b, c.name, func(i int, text []byte) {
			if i != len(got) {
				t.Fatalf("%s: element %d out of order", c.name, i)
			}
			got = append(got, string(text))
		})
		if err != nil || ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, %v, %v; want %v, %v", c.name, got, ok, err, c.want, c.ok)
		}
	}
	if _, err := BinaryNumbers([]byte{9, 9}, "v", func(int, []byte) {}); err == nil {
		t.Error("corrupt input accepted")
	}
}
