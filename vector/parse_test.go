package vector

import (
	"errors"
	"math"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func num(t testing.TB, s string) attr.Value {
	t.Helper()
	v, err := attr.Number(s)
	if err != nil {
		t.Fatalf("attr.Number(%q): %v", s, err)
	}
	return v
}

func list(t testing.TB, ss ...string) attr.Value {
	t.Helper()
	l := make([]attr.Value, len(ss))
	for i, s := range ss {
		l[i] = num(t, s)
	}
	return attr.Value{T: attr.TypeL, L: l}
}

func TestParse(t *testing.T) {
	maxF32 := "3.4028234663852886E+38" // math.MaxFloat32 exactly
	cases := []struct {
		name string
		v    attr.Value
		dims int
		want []float32
		err  *ParseError
	}{
		{"ints", list(t, "1", "-2", "0"), 3, []float32{1, -2, 0}, nil},
		{"rounds to nearest float32", list(t, "0.1", "1.00000001"), 2, []float32{0.1, 1}, nil},
		{"largest float32", list(t, maxF32), 1, []float32{math.MaxFloat32}, nil},
		{"rounds down to largest", list(t, "3.40282356E+38"), 1, []float32{math.MaxFloat32}, nil},
		{"too large", list(t, "1", "3.5E+38"), 2, nil, &ParseError{Reason: Range, Index: 1}},
		{"too large negative", list(t, "-1E+125"), 1, nil, &ParseError{Reason: Range}},
		{"underflows to zero", list(t, "1E-130", "-1E-50"), 2, []float32{0, float32(math.Copysign(0, -1))}, nil},
		{"subnormal", list(t, "1E-45"), 1, []float32{math.SmallestNonzeroFloat32}, nil},
		{"short", list(t, "1", "2"), 3, nil, &ParseError{Reason: Length, Expected: 3, Actual: 2}},
		{"long", list(t, "1", "2"), 1, nil, &ParseError{Reason: Length, Expected: 1, Actual: 2}},
		{"empty list", list(t), 1, nil, &ParseError{Reason: Length, Expected: 1, Actual: 0}},
		{"number set", attr.Value{T: attr.TypeNS, SS: []string{"1", "2"}}, 2, nil, &ParseError{Reason: NotList}},
		{"string", attr.String("[1,2]"), 2, nil, &ParseError{Reason: NotList}},
		{"string element", attr.Value{T: attr.TypeL, L: []attr.Value{num(t, "1"), attr.String("2")}}, 2, nil, &ParseError{Reason: NotNumber, Index: 1}},
		{"nested list", attr.Value{T: attr.TypeL, L: []attr.Value{list(t, "1")}}, 1, nil, &ParseError{Reason: NotNumber}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse(c.v, c.dims, nil)
			if c.err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || *pe != *c.err {
					t.Fatalf("err = %v, want %+v", err, *c.err)
				}
				if got != nil {
					t.Fatalf("got %v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(c.want[i]) {
					t.Fatalf("got[%d] = %g, want %g", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestParseReusesBuffer(t *testing.T) {
	buf := make([]float32, 0, 8)
	got, err := Parse(list(t, "1", "2"), 2, buf)
	if err != nil || &got[0] != &buf[:1][0] {
		t.Fatalf("Parse did not append into the buffer (err %v)", err)
	}
}
