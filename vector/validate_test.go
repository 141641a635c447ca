package vector

import (
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// TestValidateMatchesParse: Validate, the write path's check, refuses
// exactly what its plain twin Parse refuses, with the same error, around
// the float32 limit and on random numbers.
func TestValidateMatchesParse(t *testing.T) {
	texts := []string{"0", "-0.5", "1", "340282346638528859811704183484516925440", "340282356779733661637539395458142568447",
		"340282356779733661637539395458142568448", "999999999999999999999999999999999999999", "1" + strings.Repeat("0", 38),
		"-" + strings.Repeat("9", 38), strings.Repeat("9", 38) + ".99", "0.000001", "1" + strings.Repeat("0", 39), "12.5"}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 2000; i++ {
		digits := 1 + r.Intn(38)
		var b strings.Builder
		if r.Intn(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteByte(byte('1' + r.Intn(9)))
		for j := 1; j < digits; j++ {
			b.WriteByte(byte('0' + r.Intn(10)))
		}
		if exp := r.Intn(60) - 20; exp > 0 {
			b.WriteString("E" + string(rune('0'+exp/10)) + string(rune('0'+exp%10)))
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		v, err := attr.Number(s)
		if err != nil {
			continue // out of DynamoDB's own range
		}
		for _, l := range []attr.Value{{T: attr.TypeL, L: []attr.Value{v}}, {T: attr.TypeL, L: []attr.Value{{T: attr.TypeN, S: s}}}} {
			_, perr := Parse(l, 1, nil)
			verr := Validate(l, 1)
			var pe, ve *ParseError
			if errors.As(perr, &pe) != errors.As(verr, &ve) || (pe != nil && *pe != *ve) {
				t.Fatalf("%q (as %q): Validate %v, Parse %v", s, l.L[0].S, verr, perr)
			}
		}
	}
	for _, l := range []attr.Value{attr.String("x"), {T: attr.TypeL}, {T: attr.TypeL, L: []attr.Value{attr.String("1")}}} {
		_, perr := Parse(l, 1, nil)
		if verr := Validate(l, 1); verr.Error() != perr.Error() {
			t.Fatalf("%v: Validate %v, Parse %v", l, verr, perr)
		}
	}
}
