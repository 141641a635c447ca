package attr

import (
	"strings"
	"testing"
)

func TestNumberSize(t *testing.T) {
	tests := []struct {
		n    string
		want int
	}{
		{"0", 1},
		{"1", 2},
		{"27", 2},
		{"-27", 3},
		{"461", 3},
		{"100", 2},
		{"1000000", 2},
		{"1E125", 2},
		{"1.5", 3},
		{"10.5", 3},
		{"100.5", 4},
		{"0.5", 2},
		{"0.05", 2},
		{"0.0012345", 4},
		{"1786461547", 6},
		{"-1.5", 4},
		{strings.Repeat("9", 38), 20},
		{"-" + strings.Repeat("9", 38), 21},
		{"9." + strings.Repeat("9", 37), 21},
	}
	for _, tt := range tests {
		if got := num(tt.n).Size(); got != tt.want {
			t.Errorf("Size(N %s) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

func TestSize(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want int
	}{
		{"S", String("héllo"), 6},
		{"empty S", String(""), 0},
		{"B", Binary([]byte{1, 2, 3}), 3},
		{"BOOL", Bool(false), 1},
		{"NULL", Null(), 1},
		{"empty M", Map(nil), 3},
		{"empty L", List(nil), 3},
		// 3 + (1 + 1 byte "a" + 1 byte "x") + (1 + 2 bytes "bb" + 2 bytes N 12)
		{"M", Map(map[string]Value{"a": String("x"), "bb": num("12")}), 3 + 3 + 5},
		// 3 + (1+1 BOOL) + (1 + (3 + (1+1 NULL)))
		{"L", List([]Value{Bool(true), List([]Value{Null()})}), 3 + 2 + 1 + 5},
		{"SS", StringSet("ab", "c"), 3},
		{"NS", Value{T: TypeNS, SS: []string{"1", "-27", "1.5"}}, 2 + 3 + 3},
		{"BS", BinarySet([]byte{1}, []byte{1, 2}), 3},
		// M in L in M: 3 + (1 + 1 "l" + (3 + (1 + (3 + (1 + 1 "k" + 1 "v")))))
		{"nested", Map(map[string]Value{"l": List([]Value{Map(map[string]Value{"k": String("v")})})}),
			3 + 1 + 1 + 3 + 1 + 3 + 1 + 1 + 1},
	}
	for _, tt := range tests {
		if got := tt.v.Size(); got != tt.want {
			t.Errorf("%s: Size() = %d, want %d", tt.name, got, tt.want)
		}
	}
	it := Item{"id": String("abc"), "count": num("-27"), "tags": StringSet("x", "yz")}
	if got, want := it.Size(), (2+3)+(5+3)+(4+3); got != want {
		t.Errorf("Item.Size() = %d, want %d", got, want)
	}
	if got := Item(nil).Size(); got != 0 {
		t.Errorf("Item(nil).Size() = %d, want 0", got)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"ok", Map(map[string]Value{"a": StringSet("x", "y"), "b": num("1")}), ""},
		{"empty", Value{}, msgEmptyValue},
		{"null without Bool", Value{T: TypeNULL}, ""},
		{"non-canonical N", Value{T: TypeN, S: "1.50"}, msgNotNumber},
		{"bad N", Value{T: TypeN, S: "x"}, msgUnconvertible + ": x"},
		{"empty SS", StringSet(), msgEmptySS},
		{"empty BS", BinarySet(), msgEmptyBS},
		{"empty NS", Value{T: TypeNS}, msgEmptyNS},
		{"dup SS", StringSet("a", "a"), "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{"nested bad", List([]Value{Map(map[string]Value{"x": {}})}), msgEmptyValue},
		{"too deep", mustDeep(MaxNestingDepth + 1), msgNesting},
		{"deep ok", mustDeep(MaxNestingDepth), ""},
	}
	for _, tt := range tests {
		err := tt.v.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: Validate() = %q, want %q", tt.name, got, tt.want)
		}
	}
	if err := (Item{"a": String("x"), "b": {}}).Validate(); err == nil {
		t.Errorf("Item.Validate() = nil, want error")
	}
}

// mustDeep returns n nested L containers around a string.
func mustDeep(n int) Value {
	v := String("x")
	for range n {
		v = List([]Value{v})
	}
	return v
}
