package partiql

import (
	"errors"
	"testing"
)

// FuzzParse checks that no input panics the parser, that every error is an
// *Error positioned within the input, and that every statement it accepts
// renders to a canonical form that parses back to the same form.
func FuzzParse(f *testing.F) {
	for _, tc := range roundTrips {
		f.Add(tc.src)
	}
	for _, tc := range invalidStatements {
		f.Add(tc.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: error %T %v is not *Error", src, err, err)
			}
			if e.Pos < -1 || e.Pos > len(src) {
				t.Fatalf("%q: Pos %d outside [-1, %d]", src, e.Pos, len(src))
			}
			return
		}
		canon := s.String()
		again, err := Parse(canon)
		if err != nil {
			t.Fatalf("%q: canonical form %q does not parse: %v", src, canon, err)
		}
		if got := again.String(); got != canon {
			t.Fatalf("%q: canonical form is not a fixed point:\n got %s\nwant %s", src, got, canon)
		}
	})
}
