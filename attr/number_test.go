package attr

import (
	"errors"
	"strings"
	"testing"
)

// numberCase is one ParseNumber input and its canonical form or error.
type numberCase struct {
	in, want, err string
}

// numberValueCases are ParseNumber inputs that are numbers, in and out of
// DynamoDB's limits.
func numberValueCases() []numberCase {
	nines := strings.Repeat("9", 38)
	return []numberCase{
		{"0", "0", ""},
		{"-0", "0", ""},
		{"+0", "0", ""},
		{"0.00", "0", ""},
		{"000", "0", ""},
		{"0e10", "0", ""},
		// A zero is range-checked by the exponent it is written with.
		{"0e125", "0", ""},
		{"0.00e-128", "0", ""},
		{"0e126", "", msgOverflow},
		{"0e-131", "", msgUnderflow},
		{"0.00e-129", "", msgUnderflow},
		{"0e-999999999999999", "", msgUnderflow},
		{"1", "1", ""},
		{"+5", "5", ""},
		{"-7", "-7", ""},
		{"007", "7", ""},
		{"1.50", "1.5", ""},
		{"+1.50", "1.5", ""},
		{"1E2", "100", ""},
		{"1e+2", "100", ""},
		{"+1e2", "100", ""},
		{"1.5E+3", "1500", ""},
		{"1e-3", "0.001", ""},
		{"-1.25e-1", "-0.125", ""},
		{".5", "0.5", ""},
		{"5.", "5", ""},
		{"-.5e1", "-5", ""},
		{"100", "100", ""},
		{"100.5", "100.5", ""},
		{"0012.3400", "12.34", ""},
		{"123.456e1", "1234.56", ""},
		{"123.456e-5", "0.00123456", ""},
		{"1" + strings.Repeat("0", 60), "1" + strings.Repeat("0", 60), ""},
		{"0." + strings.Repeat("0", 60) + "1", "0." + strings.Repeat("0", 60) + "1", ""},
		// Limits: 38 digits, exponent -130..125.
		{nines, nines, ""},
		{"-" + nines, "-" + nines, ""},
		{nines + "9", "", msgPrecision},
		{"1." + strings.Repeat("0", 37) + "1", "", msgPrecision},
		{"1" + strings.Repeat("0", 50) + "00", "1" + strings.Repeat("0", 52), ""},
		{"9." + strings.Repeat("9", 37) + "E+125", nines + strings.Repeat("0", 126-38), ""},
		{"-9." + strings.Repeat("9", 37) + "E+125", "-" + nines + strings.Repeat("0", 126-38), ""},
		{"1E125", "1" + strings.Repeat("0", 125), ""},
		{"1E126", "", msgOverflow},
		{"-1E126", "", msgOverflow},
		{"10E125", "", msgOverflow},
		{"1e99999999999", "", msgOverflow},
		{"1e2147483648", "", msgOverflow},
		{"1e9223372036854775807", "", msgOverflow},
		// Past a 64-bit integer the exponent cannot be read at all.
		{"1e9223372036854775808", "", msgUnconvertible + ": 1e9223372036854775808"},
		{"1e99999999999999999999999", "", msgUnconvertible + ": 1e99999999999999999999999"},
		{"1E-130", "0." + strings.Repeat("0", 129) + "1", ""},
		{"-1E-130", "-0." + strings.Repeat("0", 129) + "1", ""},
		{"1E-131", "", msgUnderflow},
		{"0.1E-130", "", msgUnderflow},
		{"-1E-131", "", msgUnderflow},
		{"1e-99999999999", "", msgUnderflow},
		{"1e-9223372036854775807", "", msgUnderflow},
		{"1e-99999999999999999999999", "", msgUnconvertible + ": 1e-99999999999999999999999"},
	}
}

// numberSyntaxCases are ParseNumber inputs that are not numbers.
func numberSyntaxCases() []numberCase {
	return []numberCase{
		{"", "", msgUnconvertible + ": "},
		{" 1", "", msgUnconvertible + ":  1"},
		{"1 ", "", msgUnconvertible + ": 1 "},
		{"abc", "", msgUnconvertible + ": abc"},
		{"-", "", msgUnconvertible + ": -"},
		{"+", "", msgUnconvertible + ": +"},
		{".", "", msgUnconvertible + ": ."},
		{"e5", "", msgUnconvertible + ": e5"},
		{"+e2", "", msgUnconvertible + ": +e2"},
		{"1e", "", msgUnconvertible + ": 1e"},
		{"1e+", "", msgUnconvertible + ": 1e+"},
		{"1.2.3", "", msgUnconvertible + ": 1.2.3"},
		{"1+2", "", msgUnconvertible + ": 1+2"},
		{"--1", "", msgUnconvertible + ": --1"},
		{"1e2.5", "", msgUnconvertible + ": 1e2.5"},
		{"0x10", "", msgUnconvertible + ": 0x10"},
		{"Infinity", "", msgUnconvertible + ": Infinity"},
		{"NaN", "", msgUnconvertible + ": NaN"},
		{"1_000", "", msgUnconvertible + ": 1_000"},
		{"١", "", msgUnconvertible + ": ١"},
	}
}

func TestParseNumber(t *testing.T) {
	for _, tt := range append(numberValueCases(), numberSyntaxCases()...) {
		got, err := ParseNumber(tt.in)
		if tt.err != "" {
			var e *Error
			if !errors.As(err, &e) || e.Msg != tt.err {
				t.Errorf("ParseNumber(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseNumber(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		again, err := ParseNumber(got)
		if err != nil || again != got {
			t.Errorf("ParseNumber(%q) = %q, %v; want a fixed point", got, again, err)
		}
	}
}

func TestCompareNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"0", "0", 0},
		{"1", "0", 1},
		{"-1", "0", -1},
		{"0.5", "0", 1},
		{"-0.5", "0", -1},
		{"9", "10", -1},
		{"10", "9", 1},
		{"12", "12.5", -1},
		{"12.5", "12.45", 1},
		{"0.01", "0.1", -1},
		{"0.5", "5", -1},
		{"-0.5", "-5", 1},
		{"-12.5", "-12.45", -1},
		{"-12", "-12.5", 1},
		{"100", "99.999", 1},
		{"-100", "-99.999", -1},
		{"123.456", "123.456", 0},
		// Non-canonical operands are normalised first.
		{"1E2", "100", 0},
		{"1.50", "1.5", 0},
		{"-0", "0", 0},
		{"+3", "2", 1},
	}
	for _, tt := range tests {
		if got := CompareNumbers(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareNumbers(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := CompareNumbers(tt.b, tt.a); got != -tt.want {
			t.Errorf("CompareNumbers(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestArithmetic(t *testing.T) {
	nines := strings.Repeat("9", 38)
	max := "9." + strings.Repeat("9", 37) + "E125"
	tests := []struct {
		op         string
		a, b, want string
		err        string
	}{
		{"+", "1", "2", "3", ""},
		{"+", "-5", "3", "-2", ""},
		{"-", "5", "3", "2", ""},
		{"-", "3", "5", "-2", ""},
		{"+", "999999999999999999", "1", "1000000000000000000", ""},
		{"+", "0.1", "0.2", "0.3", ""},
		{"+", "1.5", "-1.5", "0", ""},
		{"-", "1.25", "0.25", "1", ""},
		{"+", "1E2", "1", "101", ""},
		{"+", nines, "1", "1" + strings.Repeat("0", 38), ""},
		{"+", "1E30", "1E-30", "", msgPrecision},
		{"+", nines, "0.1", "", msgPrecision},
		{"+", max, max, "", msgOverflow},
		{"-", "-" + max, max, "", msgOverflow},
		{"+", "x", "1", "", msgUnconvertible + ": x"},
		{"-", "1", "", "", msgUnconvertible + ": "},
		{"+", "123456789012345678", "123456789012345678", "246913578024691356", ""},
		{"-", "-123456789012345678", "123456789012345678", "-246913578024691356", ""},
	}
	for _, tt := range tests {
		f := AddNumbers
		if tt.op == "-" {
			f = SubtractNumbers
		}
		got, err := f(tt.a, tt.b)
		if tt.err != "" {
			var e *Error
			if !errors.As(err, &e) || e.Msg != tt.err {
				t.Errorf("%s %s %s: error = %v, want %q", tt.a, tt.op, tt.b, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s %s %s = %q, %v; want %q", tt.a, tt.op, tt.b, got, err, tt.want)
		}
	}
}

func TestNumberSetAndInt(t *testing.T) {
	v, err := NumberSet("1.0", "+2", "3e1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(v.SS, ","), "1,2,30"; got != want || v.T != TypeNS {
		t.Errorf("NumberSet = %v %q, want NS %q", v.T, got, want)
	}
	_, err = NumberSet("1", "1.0")
	if got, want := err.Error(), "Input collection contains duplicates"; got != want {
		t.Errorf("NumberSet dup error = %q, want %q", got, want)
	}
	if _, err := NumberSet(); err == nil || err.Error() != msgEmptyNS {
		t.Errorf("NumberSet() error = %v, want %q", err, msgEmptyNS)
	}
	for _, n := range []int64{0, 1, -1, 42, -9223372036854775808, 9223372036854775807} {
		v := Int(n)
		c, err := ParseNumber(v.S)
		if err != nil || c != v.S || v.T != TypeN {
			t.Errorf("Int(%d) = %+v, not canonical (%q, %v)", n, v, c, err)
		}
	}
}
