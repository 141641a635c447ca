package vector

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// FuzzParse checks Parse against math/big: every accepted element is the
// float32 nearest the decimal, an element is refused for Range exactly when
// that nearest float32 is infinite, and nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"1,2,3", "0.1,-0.5", "3.5E+38", "1E-130", "-3.4028235E+38", "", "1e5,abc", "0"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, src string, dims int) {
		var l []attr.Value
		if src != "" {
			for _, s := range strings.Split(src, ",") {
				v, err := attr.Number(s)
				if err != nil {
					v = attr.String(s)
				}
				l = append(l, v)
			}
		}
		got, err := ParseList(l, dims, nil)
		if want := oracle(l, dims); !sameParse(got, err, want) {
			t.Fatalf("ParseList(%q, %d) = %v, %v; oracle %+v", src, dims, got, err, want)
		}
		if verr := Validate(attr.Value{T: attr.TypeL, L: l}, dims); fmt.Sprint(verr) != fmt.Sprint(err) {
			t.Fatalf("Validate(%q, %d) = %v, ParseList %v", src, dims, verr, err)
		}
	})
}

type oracleResult struct {
	vals []float32
	err  ParseError
}

func oracle(l []attr.Value, dims int) oracleResult {
	if len(l) != dims {
		return oracleResult{err: ParseError{Reason: Length, Expected: dims, Actual: len(l)}}
	}
	vals := make([]float32, 0, len(l))
	for i, v := range l {
		if v.T != attr.TypeN {
			return oracleResult{err: ParseError{Reason: NotNumber, Index: i}}
		}
		b, _, err := big.ParseFloat(v.S, 10, 200, big.ToNearestEven)
		if err != nil {
			return oracleResult{err: ParseError{Reason: NotNumber, Index: i}}
		}
		f, _ := b.Float32()
		if math.IsInf(float64(f), 0) {
			return oracleResult{err: ParseError{Reason: Range, Index: i}}
		}
		vals = append(vals, f)
	}
	return oracleResult{vals: vals}
}

func sameParse(got []float32, err error, want oracleResult) bool {
	if want.err.Reason != 0 {
		var pe *ParseError
		return errors.As(err, &pe) && *pe == want.err && got == nil
	}
	if err != nil || len(got) != len(want.vals) {
		return false
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want.vals[i]) {
			return false
		}
	}
	return true
}
