package partiql

import (
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// TestBagSorted checks that <<...>> literals come out in the member order of
// every other set (strings and binaries by bytes, numbers numerically), and
// that a set with duplicates is left as written for DynamoDB's message.
func TestBagSorted(t *testing.T) {
	s := func(v string) Expr { return &Literal{V: attr.String(v)} }
	n := func(v string) Expr { return &Literal{V: attr.Value{T: attr.TypeN, S: v}} }
	p := func(i int) Expr { return &Param{N: i} }
	params := []attr.Value{attr.Binary([]byte{0xff}), attr.Binary([]byte{0x01, 0x02}), attr.Binary([]byte{0x01})}
	for _, tc := range []struct {
		name  string
		elems []Expr
		want  attr.Value
	}{
		{"strings", []Expr{s("b"), s("a"), s("B"), s("é")}, attr.StringSet("B", "a", "b", "é")},
		{"numbers", []Expr{n("10"), n("9"), n("-1.5"), n("1e2")}, attr.Value{T: attr.TypeNS, SS: []string{"-1.5", "9", "10", "100"}}},
		{"binaries", []Expr{p(0), p(1), p(2)}, attr.BinarySet([]byte{0x01}, []byte{0x01, 0x02}, []byte{0xff})},
		{"duplicates as written", []Expr{s("b"), s("a"), s("b")}, attr.StringSet("b", "a", "b")},
	} {
		b := &binder{params: params}
		got, err := b.value(&Bag{Elems: tc.elems}, "root")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
