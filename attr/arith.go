package attr

import "github.com/cockroachdb/apd/v3"

// AddNumbers returns a + b exactly, in canonical form. a and b are numbers in
// any syntax ParseNumber accepts. The error is an *Error in DynamoDB's words
// when an operand is not a number or the exact sum needs more than 38
// significant digits or lies outside DynamoDB's range; DynamoDB never rounds.
func AddNumbers(a, b string) (string, error) {
	return arith(a, b, false)
}

// SubtractNumbers returns a - b exactly, in canonical form, with the same
// errors as AddNumbers.
func SubtractNumbers(a, b string) (string, error) {
	return arith(a, b, true)
}

func arith(a, b string, subtract bool) (string, error) {
	// Counters are the common case: small integers need no decimal library.
	if x, ok := smallInt(a); ok {
		if y, ok := smallInt(b); ok {
			if subtract {
				y = -y
			}
			var buf [24]byte
			return string(appendInt(buf[:0], x+y)), nil
		}
	}
	ca, err := ParseNumber(a)
	if err != nil {
		return "", err
	}
	cb, err := ParseNumber(b)
	if err != nil {
		return "", err
	}
	var x, y, z apd.Decimal
	if _, _, err := x.SetString(ca); err != nil {
		return "", invalid(ErrNotNumber, msgNotNumber)
	}
	if _, _, err := y.SetString(cb); err != nil {
		return "", invalid(ErrNotNumber, msgNotNumber)
	}
	// Precision 0 makes apd compute the exact result; operands are bounded
	// (38 digits, exponents -130..125), so the exact result is small.
	ctx := apd.BaseContext
	if subtract {
		_, err = ctx.Sub(&z, &x, &y)
	} else {
		_, err = ctx.Add(&z, &x, &y)
	}
	if err != nil {
		return "", invalid(ErrOverflow, msgOverflow)
	}
	return ParseNumber(z.Text('f'))
}

// smallInt parses s if it is a plain integer of at most 18 digits, whose sum
// with another such integer cannot overflow an int64.
func smallInt(s string) (int64, bool) {
	i := 0
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i = 1
	}
	if i == len(s) || len(s)-i > 18 {
		return 0, false
	}
	var n int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
