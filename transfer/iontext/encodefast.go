package iontext

import (
	"encoding/base64"
	"slices"
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
)

// The Amazon Ion library's text writer is the encoder of record
// (appendRecordPlain), and it is slow: it hands its output to an io.Writer
// one character at a time, each through a new one-byte slice, and formats
// every number through a big.Int, so an export line of ~100 bytes costs
// ~90 allocations and several microseconds (BenchmarkAppendRecord). The
// fast path below appends the same bytes directly for what exports hold:
// member names that are plain identifiers or quoted without trouble,
// strings, numbers in DynamoDB's canonical notation, blobs, booleans,
// nulls, lists, maps and the three sets. Whatever else it meets (a name
// beginning with '$', a number it does not read, a type it does not know)
// makes it give up on the record, which the library then writes whole.
// TestAppendRecordFastIsPlain and FuzzAppendRecordTwins hold it to the
// library's bytes.

// appendRecordFast appends what appendRecordPlain appends for fields; ok
// is false when it gave up (dst then holds a partial line past its
// original length).
func (e *Encoder) appendRecordFast(dst []byte, fields []Field) ([]byte, bool) {
	dst = append(dst, "$ion_1_0 {"...)
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendSymbol(dst, f.Name); !ok {
			return dst, false
		}
		dst = append(dst, ':')
		if dst, ok = e.appendStruct(dst, f.Item); !ok {
			return dst, false
		}
	}
	return append(dst, "}\n"...), true
}

// appendStruct appends m's members in name order, as writeStruct does.
func (e *Encoder) appendStruct(dst []byte, m map[string]attr.Value) ([]byte, bool) {
	base := len(e.names)
	defer func() { e.names = e.names[:base] }()
	for k := range m {
		e.names = append(e.names, k)
	}
	slices.Sort(e.names[base:])
	dst = append(dst, '{')
	for i := range len(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		k := e.names[base+i] // a member's struct may have grown e.names
		var ok bool
		if dst, ok = appendSymbol(dst, k); !ok {
			return dst, false
		}
		dst = append(dst, ':')
		if dst, ok = e.appendValue(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendValue appends v as writeValue writes it; it is one type switch
// over the ten DynamoDB types.
func (e *Encoder) appendValue(dst []byte, v attr.Value) ([]byte, bool) {
	switch v.T {
	case attr.TypeS:
		return appendString(dst, v.S), true
	case attr.TypeN:
		return appendDecimal(dst, v.S)
	case attr.TypeB:
		return appendBlob(dst, v.B), true
	case attr.TypeBOOL:
		return strconv.AppendBool(dst, v.Bool), true
	case attr.TypeNULL:
		return append(dst, "null"...), true
	case attr.TypeM:
		return e.appendStruct(dst, v.M)
	case attr.TypeL:
		dst = append(dst, '[')
		for i, x := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = e.appendValue(dst, x); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case attr.TypeSS:
		return appendSet(dst, annSS, v.SS, func(d []byte, s string) ([]byte, bool) { return appendString(d, s), true })
	case attr.TypeNS:
		return appendSet(dst, annNS, v.SS, appendDecimal)
	case attr.TypeBS:
		return appendSet(dst, annBS, v.BS, func(d []byte, b []byte) ([]byte, bool) { return appendBlob(d, b), true })
	}
	return dst, false
}

// appendSet appends a set: its annotation (a plain identifier, written
// as is) and a list of its members.
func appendSet[T any](dst []byte, ann string, xs []T, elem func([]byte, T) ([]byte, bool)) ([]byte, bool) {
	dst = append(dst, ann...)
	dst = append(dst, "::["...)
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = elem(dst, x); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

// appendString appends s in double quotes, escaped as the library escapes
// a string: control characters, '"' and '\'; every other byte as is.
func appendString(dst []byte, s string) []byte {
	return appendQuoted(dst, s, '"')
}

// appendQuoted appends s between quotes q, escaping control characters, q
// and '\\' as the library does; every other byte as is.
func appendQuoted(dst []byte, s string, q byte) []byte {
	dst = append(dst, q)
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == q || c == '\\' {
			dst = appendEscape(append(dst, s[start:i]...), c)
			start = i + 1
		}
	}
	return append(append(dst, s[start:]...), q)
}

// appendSymbol appends a member name as the library writes a symbol's
// text: as is when it is an identifier, else in single quotes, escaped.
// A name beginning with '$' (which the library quotes or not by whether
// the rest reads as a symbol ID) is left to the library.
func appendSymbol(dst []byte, s string) ([]byte, bool) {
	if s != "" && s[0] == '$' {
		return dst, false
	}
	if !needsQuotes(s) {
		return append(dst, s...), true
	}
	return appendQuoted(dst, s, '\''), true
}

// needsQuotes reports whether a symbol's text is not an Ion identifier
// ([A-Za-z_$][A-Za-z0-9_$]*) or is one of the keywords.
func needsQuotes(s string) bool {
	switch s {
	case "", "null", "true", "false", "nan":
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return true
		}
	}
	return false
}

// appendEscape appends the escape of c, a byte the library escapes.
func appendEscape(dst []byte, c byte) []byte {
	const short = "0\x00a\ab\bt\tn\nf\fr\rv\v'\x27\"\x22\\\x5c"
	for i := 0; i < len(short); i += 2 {
		if short[i+1] == c {
			return append(dst, '\\', short[i])
		}
	}
	const hex = "0123456789ABCDEF"
	return append(dst, '\\', 'x', hex[c>>4], hex[c&0xF])
}

// appendBlob appends b in base64 between {{ and }}.
func appendBlob(dst []byte, b []byte) []byte {
	dst = append(dst, "{{"...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, "}}"...)
}

// appendDecimal appends a DynamoDB number as the library writes
// Decimal(n): digits, an optional '-' before them and an optional
// fraction; ok is false for any other text.
func appendDecimal(dst []byte, n string) ([]byte, bool) {
	neg, s := false, n
	if s != "" && s[0] == '-' {
		neg, s = true, s[1:]
	}
	whole, frac, dot := s, "", false
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			whole, frac, dot = s[:i], s[i+1:], true
			break
		}
	}
	if !allDigits(whole) || !allDigits(frac) || (dot && frac == "") || (!dot && whole == "") {
		return dst, false
	}
	exp := -len(frac) // the coefficient is whole+frac
	if !dot {
		for len(whole) > 1 && whole[len(whole)-1] == '0' {
			whole, exp = whole[:len(whole)-1], exp+1
		}
		if whole == "0" { // zero keeps its one digit and no exponent
			exp = 0
		}
	}
	return appendDecimalDigits(dst, neg, whole, frac, exp), true
}

// appendDecimalDigits appends the decimal of coefficient whole+frac (its
// leading zeros dropped; a zero loses its sign) times ten to exp, as the
// library writes one: 12. (exp 0), 6d2 (exp > 0), 1.25, or 5d-1 and
// 1.5d-3 when the point would come before the first digit.
func appendDecimalDigits(dst []byte, neg bool, whole, frac string, exp int) []byte {
	for whole != "" && whole[0] == '0' {
		whole = whole[1:]
	}
	if whole == "" {
		for frac != "" && frac[0] == '0' {
			frac = frac[1:]
		}
	}
	digits := len(whole) + len(frac)
	if digits == 0 {
		whole, neg = "0", false
		digits = 1
	}
	if neg {
		dst = append(dst, '-')
	}
	switch {
	case exp == 0:
		return append(append(append(dst, whole...), frac...), '.')
	case exp > 0:
		dst = append(append(dst, whole...), frac...)
		return strconv.AppendInt(append(dst, 'd'), int64(exp), 10)
	}
	if point := digits + exp; point >= 1 { // digits before the point
		at := len(dst) + point
		dst = append(append(dst, whole...), frac...)
		dst = append(dst[:at+1], dst[at:]...)
		dst[at] = '.'
		return dst
	}
	if whole != "" { // one digit, the point, the rest, the exponent
		dst, whole = append(dst, whole[0]), whole[1:]
	} else {
		dst, frac = append(dst, frac[0]), frac[1:]
	}
	if whole != "" || frac != "" {
		dst = append(append(append(dst, '.'), whole...), frac...)
	}
	return strconv.AppendInt(append(dst, 'd'), int64(digits+exp-1), 10)
}

// allDigits reports whether s is only ASCII digits (true for "").
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
