package vector

import "github.com/ddblocal/ddblocal/attr"

// Validate reports whether v is a valid vector of dims numbers, with the
// *ParseError Parse would return, without converting anything: the write
// path checks every vector it stores, and most numbers can be judged from
// their text alone (see fitsFloat32). Parse is its plain twin; the tests
// prove they agree.
func Validate(v attr.Value, dims int) error {
	if v.T != attr.TypeL {
		return &ParseError{Reason: NotList}
	}
	if len(v.L) != dims {
		return &ParseError{Reason: Length, Expected: dims, Actual: len(v.L)}
	}
	for i, e := range v.L {
		if e.T != attr.TypeN {
			return &ParseError{Reason: NotNumber, Index: i}
		}
		if fits, known := fitsFloat32(e.S); !known {
			if _, bad := parseFloat32(e.S); bad != 0 {
				return &ParseError{Reason: bad, Index: i}
			}
		} else if !fits {
			return &ParseError{Reason: Range, Index: i}
		}
	}
	return nil
}

// fitsFloat32 judges a number in plain notation (an optional '-', digits,
// an optional point and digits: the canonical form DynamoDB keeps numbers
// in) by the length of its integer part: up to 38 digits is below 1E+38,
// under the largest float32 (about 3.4E+38); 40 or more is at least 1E+39,
// past it. known is false for other text and for 39 integer digits, which
// need the conversion.
func fitsFloat32(s string) (fits, known bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intLen := i - start
	if intLen == 0 {
		return false, false
	}
	if i < len(s) {
		if s[i] != '.' || i+1 == len(s) {
			return false, false
		}
		for i++; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false, false
			}
		}
	}
	if intLen > 1 && s[start] == '0' {
		return false, false // leading zeros: not canonical, let the conversion judge
	}
	switch {
	case intLen <= 38:
		return true, true
	case intLen >= 40:
		return false, true
	}
	return false, false
}
