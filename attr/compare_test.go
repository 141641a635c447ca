package attr

import (
	"strconv"
	"testing"
)

func num(s string) Value {
	v, err := Number(s)
	if err != nil {
		panic(err)
	}
	return v
}

func TestEqual(t *testing.T) {
	big := make([]string, 40)
	bigRev := make([]string, 40)
	for i := range big {
		big[i] = strconv.Itoa(i)
		bigRev[len(big)-1-i] = big[i]
	}
	tests := []struct {
		a, b Value
		want bool
	}{
		{String("a"), String("a"), true},
		{String("a"), String("b"), false},
		{String("1"), num("1"), false},
		{num("1"), num("1.0"), true},
		{num("1"), Value{T: TypeN, S: "1E0"}, true},
		{num("-1"), num("1"), false},
		{Binary([]byte{1}), Binary([]byte{1}), true},
		{Binary(nil), Binary([]byte{}), true},
		{Binary([]byte{1}), Binary([]byte{2}), false},
		{Bool(true), Bool(true), true},
		{Bool(true), Bool(false), false},
		{Null(), Null(), true},
		{Null(), Bool(true), false},
		{StringSet("a", "b"), StringSet("b", "a"), true},
		{StringSet("a", "b"), StringSet("a", "c"), false},
		{StringSet("a"), StringSet("a", "b"), false},
		{StringSet(big...), StringSet(bigRev...), true},
		{StringSet(big...), StringSet(append(bigRev[1:], "x")...), false},
		{Value{T: TypeNS, SS: []string{"1", "2"}}, Value{T: TypeNS, SS: []string{"2", "1"}}, true},
		{Value{T: TypeNS, SS: []string{"1", "2"}}, StringSet("1", "2"), false},
		{BinarySet([]byte{1}, []byte{2}), BinarySet([]byte{2}, []byte{1}), true},
		{BinarySet([]byte{1}, []byte{2}), BinarySet([]byte{2}, []byte{3}), false},
		{List([]Value{num("1"), String("a")}), List([]Value{num("1"), String("a")}), true},
		{List([]Value{num("1"), String("a")}), List([]Value{String("a"), num("1")}), false},
		{List(nil), List([]Value{}), true},
		{Map(map[string]Value{"a": num("1"), "b": List(nil)}), Map(map[string]Value{"b": List(nil), "a": num("1.00")}), true},
		{Map(map[string]Value{"a": num("1")}), Map(map[string]Value{"b": num("1")}), false},
		{Map(map[string]Value{"a": num("1")}), Map(map[string]Value{"a": num("1"), "b": Null()}), false},
		{Map(nil), List(nil), false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%+v, %+v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Equal(tt.b, tt.a); got != tt.want {
			t.Errorf("Equal(%+v, %+v) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b   Value
		want   int
		wantOK bool
	}{
		{String("a"), String("b"), -1, true},
		{String("B"), String("a"), -1, true}, // bytewise: upper case first
		{String("ab"), String("a"), 1, true},
		{String("é"), String("z"), 1, true}, // UTF-8 bytes, not code points of UTF-16
		{String(""), String(""), 0, true},
		{num("10"), num("9"), 1, true},
		{num("-10"), num("-9"), -1, true},
		{num("1.5"), num("1.50"), 0, true},
		{Binary([]byte{0x80}), Binary([]byte{0x7f}), 1, true}, // unsigned
		{Binary([]byte{1}), Binary([]byte{1, 0}), -1, true},
		{String("1"), num("1"), 0, false},
		{Bool(false), Bool(true), 0, false},
		{Null(), Null(), 0, false},
		{StringSet("a"), StringSet("b"), 0, false},
		{List(nil), List(nil), 0, false},
	}
	for _, tt := range tests {
		got, ok := Compare(tt.a, tt.b)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Compare(%+v, %+v) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
		}
	}
}
