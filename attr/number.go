package attr

import (
	"errors"
	"math"
	"strings"
)

// DynamoDB's number limits: 38 significant decimal digits, and a magnitude
// between 1E-130 and 9.99…9E+125 (38 nines), on either side of zero.
const (
	maxDigits   = 38
	maxExponent = 125  // largest scientific exponent (d.ddd × 10^e)
	minExponent = -130 // smallest scientific exponent
	// exponentClamp bounds the exponent while parsing so that absurd inputs
	// such as "1e99999999999999999999" cannot overflow an int; anything past
	// it is far outside DynamoDB's range and is reported as such.
	exponentClamp = 1 << 30
)

// decimal is a parsed number: value = (-1)^neg × d1.d2d3… × 10^exp, where
// digits holds d1 d2 d3 … as ASCII with no leading or trailing zeros. Zero has
// no digits, neg false and exp 0.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
	// zeroExp is, for zero, the exponent it was written with, adjusted as
	// for a one-digit number ("0e126" → 126, "0.00e-129" → -131): DynamoDB
	// range-checks a zero by it. The value is still 0, so nothing else
	// reads it.
	zeroExp int
}

// parseDecimal parses s in DynamoDB's number syntax (that of Java's
// BigDecimal: optional sign, digits with an optional point, at least one
// digit, optional exponent; no spaces, no Infinity/NaN). Significant digits
// are appended to buf, which the result then aliases. It does not check the
// 38-digit and range limits (see decimal.check).
func parseDecimal(s string, buf []byte) (decimal, error) {
	d := decimal{digits: buf[:0]}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	sawDigit := false
	pos := 0 // place of the decimal point relative to digits[0]
	seenPoint := false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if len(d.digits) == 0 && c == '0' {
				// A leading zero only moves the point when it follows it.
				if seenPoint {
					pos--
				}
				continue
			}
			d.digits = append(d.digits, c)
			if !seenPoint {
				pos++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			goto exponent
		}
	}
exponent:
	if !sawDigit {
		return decimal{}, invalid(ErrNotNumber, msgNotNumber)
	}
	exp, err := parseExponent(s[i:])
	if err != nil {
		return decimal{}, err
	}
	// Trailing zeros are not significant: DynamoDB trims them.
	n := len(d.digits)
	for n > 0 && d.digits[n-1] == '0' {
		n--
	}
	d.digits = d.digits[:n]
	if n == 0 {
		return decimal{digits: d.digits, zeroExp: pos + exp}, nil
	}
	d.exp = pos - 1 + exp
	return d, nil
}

// parseExponent reads what follows a number's digits: nothing (exponent
// 0) or 'e'/'E', an optional sign and digits. The value is clamped at
// exponentClamp (far outside DynamoDB's range either way); one past a
// 64-bit integer cannot be read at all, a different error from a number out
// of range.
func parseExponent(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	if s[0] != 'e' && s[0] != 'E' {
		return 0, invalid(ErrNotNumber, msgNotNumber)
	}
	s = s[1:]
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if s == "" {
		return 0, invalid(ErrNotNumber, msgNotNumber)
	}
	exp := 0
	var full uint64 // the exponent as written, to tell past-int64 apart
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, invalid(ErrNotNumber, msgNotNumber)
		}
		if exp < exponentClamp {
			exp = exp*10 + int(c-'0')
		}
		if full <= math.MaxInt64 {
			full = full*10 + uint64(c-'0')
		}
	}
	if full > math.MaxInt64 {
		return 0, invalid(ErrNotNumber, msgUnconvertible)
	}
	if neg {
		exp = -exp
	}
	return exp, nil
}

// check reports whether d is storable by DynamoDB, in DynamoDB's words.
func (d decimal) check() error {
	if len(d.digits) == 0 {
		switch {
		case d.zeroExp > maxExponent:
			return invalid(ErrOverflow, msgOverflow)
		case d.zeroExp < minExponent:
			return invalid(ErrUnderflow, msgUnderflow)
		}
		return nil
	}
	// Magnitude first: a sum such as 9.9E125 + 9.9E125 is both too large and
	// too long, and "overflow" is the useful answer.
	if d.exp > maxExponent {
		return invalid(ErrOverflow, msgOverflow)
	}
	if d.exp < minExponent {
		return invalid(ErrUnderflow, msgUnderflow)
	}
	if len(d.digits) > maxDigits {
		return invalid(ErrPrecision, msgPrecision)
	}
	return nil
}

// appendCanonical appends d in DynamoDB's canonical form: plain notation (no
// exponent), no '+', no leading zeros except a lone "0" before the point, no
// trailing fractional zeros, no point when there is no fraction, "0" for zero.
func (d decimal) appendCanonical(dst []byte) []byte {
	if len(d.digits) == 0 {
		return append(dst, '0')
	}
	if d.neg {
		dst = append(dst, '-')
	}
	if d.exp < 0 {
		dst = append(dst, '0', '.')
		for i := -1; i > d.exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, d.digits...)
	}
	intLen := d.exp + 1
	if len(d.digits) <= intLen {
		dst = append(dst, d.digits...)
		for i := len(d.digits); i < intLen; i++ {
			dst = append(dst, '0')
		}
		return dst
	}
	dst = append(dst, d.digits[:intLen]...)
	dst = append(dst, '.')
	return append(dst, d.digits[intLen:]...)
}

// ParseNumber parses s in DynamoDB's number syntax and returns it in the
// canonical form DynamoDB returns numbers in (plain notation, normalised:
// "+1.50" → "1.5", "1E2" → "100", "1e-3" → "0.001", "-0" → "0"). The result
// is a fixed point: ParseNumber(canonical) returns canonical. The error is an
// *Error: not a number, more than 38 significant digits, or out of range.
func ParseNumber(s string) (canonical string, err error) {
	var buf [48]byte
	d, err := parseDecimal(s, buf[:0])
	if err != nil {
		if errors.Is(err, ErrNotNumber) {
			// The service echoes the text it could not read, even an
			// empty one (paritysuite/dynamodb-conformance valueLayers).
			return "", invalid(ErrNotNumber, msgUnconvertible+": "+s)
		}
		return "", err
	}
	if err := d.check(); err != nil {
		return "", err
	}
	if isCanonical(s, d) {
		return s, nil // the common case costs no allocation
	}
	var out [136]byte
	return string(d.appendCanonical(out[:0])), nil
}

// isCanonical reports whether s, which parsed as d, is already canonical.
func isCanonical(s string, d decimal) bool {
	var out [136]byte
	return string(d.appendCanonical(out[:0])) == s
}

// Number returns an N value holding s parsed and normalised by ParseNumber.
func Number(s string) (Value, error) {
	c, err := ParseNumber(s)
	if err != nil {
		return Value{}, err
	}
	return Value{T: TypeN, S: c}, nil
}

// Int returns an N value for n; it cannot fail, as every int64 fits.
func Int(n int64) Value {
	var buf [24]byte
	return Value{T: TypeN, S: string(appendInt(buf[:0], n))}
}

// appendInt appends n in decimal; strconv would do, but this keeps the
// canonical-number code in one place.
func appendInt(dst []byte, n int64) []byte {
	if n == 0 {
		return append(dst, '0')
	}
	u := uint64(n)
	if n < 0 {
		dst = append(dst, '-')
		u = uint64(-n)
	}
	var tmp [20]byte
	i := len(tmp)
	for u > 0 {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
	return append(dst, tmp[i:]...)
}

// CompareNumbers returns -1, 0 or 1 as a is numerically less than, equal to
// or greater than b. Both must be canonical (as ParseNumber returns them);
// a non-canonical operand is parsed first, and one that is not a number at all
// compares as zero.
func CompareNumbers(a, b string) int {
	if !looksCanonical(a) || !looksCanonical(b) {
		return compareSlow(a, b)
	}
	sa, sb := numSign(a), numSign(b)
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	if sa < 0 {
		return -compareMagnitudes(a[1:], b[1:])
	}
	return compareMagnitudes(a, b)
}

// compareMagnitudes compares two canonical non-negative numbers. In canonical
// form a longer integer part means a larger number; with equal integer parts
// plain byte order is numeric order, because a proper prefix has no trailing
// zeros and so is strictly smaller.
func compareMagnitudes(a, b string) int {
	ia, ib := intPartLen(a), intPartLen(b)
	switch {
	case ia < ib:
		return -1
	case ia > ib:
		return 1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func intPartLen(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return i
		}
	}
	return len(s)
}

func numSign(s string) int {
	switch {
	case s == "0":
		return 0
	case len(s) > 0 && s[0] == '-':
		return -1
	}
	return 1
}

// looksCanonical is a cheap screen for the forms ParseNumber never returns
// (exponents, '+', leading zeros, trailing fractional zeros); a string that
// passes is treated as canonical.
func looksCanonical(s string) bool {
	if s == "" {
		return false
	}
	m := s
	if m[0] == '-' {
		m = m[1:]
		if m == "0" {
			return false
		}
	}
	if m == "" || (m[0] == '0' && m != "0" && (len(m) < 2 || m[1] != '.')) {
		return false
	}
	point := false
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c == '.' {
			if point {
				return false
			}
			point = true
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return !point || (m[len(m)-1] != '0' && m[len(m)-1] != '.')
}

func compareSlow(a, b string) int {
	ca, erra := ParseNumber(a)
	cb, errb := ParseNumber(b)
	if erra != nil {
		ca = "0"
	}
	if errb != nil {
		cb = "0"
	}
	if !looksCanonical(ca) || !looksCanonical(cb) {
		return 0 // unreachable: ParseNumber's output is canonical
	}
	return CompareNumbers(ca, cb)
}
