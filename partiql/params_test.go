package partiql

import (
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func TestBigDecimal(t *testing.T) {
	tests := []struct {
		text             string
		precision, scale int64
		ok               bool
	}{
		{"1", 1, 0, true},
		{"1.50", 3, 2, true},
		{"-0012.5e3", 3, -2, true},
		{"0", 1, 0, true},
		{"0.000", 1, 3, true},
		{".5", 1, 1, true},
		{"5.", 1, 0, true},
		{"1e2147483647", 1, -2147483647, true},
		{"1e-2147483647", 1, 2147483647, true},
		{"1e2147483648", 0, 0, false},
		{"1.5e-2147483647", 0, 0, false}, // scale past 32 bits
		{"1e-2147483648", 0, 0, false},
		{"", 0, 0, false},
		{"e5", 0, 0, false},
		{"1e", 0, 0, false},
		{"1e+-2", 0, 0, false},
		{"+-1", 0, 0, false},
		{"1.2.3", 0, 0, false},
		{"0x10", 0, 0, false},
		{"1e99999999999999999999999", 0, 0, false},
	}
	for _, tt := range tests {
		p, s, ok := bigDecimal(tt.text)
		if ok != tt.ok || (ok && (p != tt.precision || s != tt.scale)) {
			t.Errorf("bigDecimal(%q) = %d, %d, %v; want %d, %d, %v", tt.text, p, s, ok, tt.precision, tt.scale, tt.ok)
		}
	}
}

// FuzzParameterNumber: reading a parameter's number never panics, and what
// it accepts is exactly the number attr accepts.
func FuzzParameterNumber(f *testing.F) {
	for _, s := range []string{"1", "-1.5e3", "1e2147483647", "0e126", "abc", "", "9.9e125"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parameterNumber(s)
		if err != nil {
			return
		}
		want, werr := attr.Number(s)
		if werr != nil || !attr.Equal(v, want) {
			t.Fatalf("parameterNumber(%q) = %v, attr.Number = %v, %v", s, v, want, werr)
		}
	})
}
