package partiql

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// TestBagSorted checks that <<...>> literals come out in the member order of
// every other set (strings and binaries by bytes, numbers numerically), and
// that a set with duplicates (numbers compared as numbers) is refused with
// its members listed as written.
func TestBagSorted(t *testing.T) {
	s := func(v string) Expr { return &Literal{V: attr.String(v)} }
	n := func(v string) Expr { return &Literal{V: attr.Value{T: attr.TypeN, S: v}} }
	p := func(i int) Expr { return &Param{N: i} }
	params := []attr.Value{attr.Binary([]byte{0xff}), attr.Binary([]byte{0x01, 0x02}), attr.Binary([]byte{0x01})}
	const dup = "One or more parameter values were invalid: Input collection "
	for _, tc := range []struct {
		name    string
		elems   []Expr
		want    attr.Value
		wantErr string
	}{
		{"strings", []Expr{s("b"), s("a"), s("B"), s("é")}, attr.StringSet("B", "a", "b", "é"), ""},
		{"numbers", []Expr{n("10"), n("9"), n("-1.5"), n("1e2")}, attr.Value{T: attr.TypeNS, SS: []string{"-1.5", "9", "10", "100"}}, ""},
		{"binaries", []Expr{p(0), p(1), p(2)}, attr.BinarySet([]byte{0x01}, []byte{0x01, 0x02}, []byte{0xff}), ""},
		{"duplicates", []Expr{s("b"), s("a"), s("b")}, attr.Value{}, dup + "[b, a, b] contains duplicates."},
		{"equal numbers", []Expr{n("1"), n("1.0")}, attr.Value{}, "contains duplicates"}, // attr's number-set words
	} {
		b := &binder{params: params}
		got, err := b.value(&Bag{Elems: tc.elems}, "root")
		if tc.wantErr != "" {
			exact := strings.HasSuffix(tc.wantErr, " duplicates.")
			if err == nil || (exact && err.Error() != tc.wantErr) || (!exact && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("%s: got %v, %v, want %q", tc.name, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
