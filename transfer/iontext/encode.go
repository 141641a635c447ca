// Package iontext writes and reads the subset of Amazon Ion's text format
// that DynamoDB's exports and imports use (developer guide, "DynamoDB table
// export output format", Amazon Ion): S is an Ion string, N a decimal, B a
// blob, BOOL a bool, NULL null, M a struct, L a list, and SS, NS and BS
// lists annotated $dynamodb_SS, $dynamodb_NS and $dynamodb_BS.
//
// It exists because the Amazon Ion library for Go could not be fetched in
// this project's build environment; it covers Ion text as the service
// writes it and as people write it by hand (comments, quoted symbols,
// long strings, ints in hex or binary, underscores in numbers), and
// refuses every Ion type DynamoDB has no counterpart for.
package iontext

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ddblocal/ddblocal/attr"
)

// Set annotations, as the service writes them.
const (
	annSS = "$dynamodb_SS"
	annNS = "$dynamodb_NS"
	annBS = "$dynamodb_BS"
)

// AppendItem appends it as an Ion struct, members in name order.
func AppendItem(dst []byte, it attr.Item) []byte {
	return appendStruct(dst, it)
}

func appendStruct(dst []byte, m map[string]attr.Value) []byte {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	dst = append(dst, '{')
	for i, k := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendSymbol(dst, k)
		dst = append(dst, ':')
		dst = AppendValue(dst, m[k])
	}
	return append(dst, '}')
}

// AppendValue appends v in Ion text; it is one type switch over the ten
// DynamoDB types.
func AppendValue(dst []byte, v attr.Value) []byte {
	switch v.T {
	case attr.TypeS:
		return appendString(dst, v.S, '"')
	case attr.TypeN:
		return AppendDecimal(dst, v.S)
	case attr.TypeB:
		return appendBlob(dst, v.B)
	case attr.TypeBOOL:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case attr.TypeNULL:
		return append(dst, "null"...)
	case attr.TypeM:
		return appendStruct(dst, v.M)
	case attr.TypeL:
		dst = append(dst, '[')
		for i, e := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValue(dst, e)
		}
		return append(dst, ']')
	case attr.TypeSS:
		return appendSet(dst, annSS, v.SS, func(d []byte, s string) []byte { return appendString(d, s, '"') })
	case attr.TypeNS:
		return appendSet(dst, annNS, v.SS, AppendDecimal)
	case attr.TypeBS:
		return appendSet(dst, annBS, v.BS, appendBlob)
	}
	return append(dst, "null"...)
}

func appendSet[T any](dst []byte, ann string, xs []T, elem func([]byte, T) []byte) []byte {
	dst = append(dst, ann...)
	dst = append(dst, "::["...)
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst, x)
	}
	return append(dst, ']')
}

func appendBlob(dst []byte, b []byte) []byte {
	dst = append(dst, "{{"...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, "}}"...)
}

// AppendDecimal appends a DynamoDB number (canonical: plain notation, no
// trailing fractional zeros) as an Ion decimal the way the service writes
// one: a fraction as it is ("1.5"), an integer with its trailing zeros
// moved into the exponent ("600" → "6d2") or with a point when it has none
// ("103" → "103."), so that it reads back as a decimal, not an Ion int.
func AppendDecimal(dst []byte, n string) []byte {
	if strings.ContainsAny(n, ".eE") {
		return append(dst, n...)
	}
	digits := strings.TrimLeft(n, "-")
	zeros := len(digits) - len(strings.TrimRight(digits, "0"))
	if zeros == 0 || zeros == len(digits) {
		return append(append(dst, n...), '.')
	}
	dst = append(dst, n[:len(n)-zeros]...)
	dst = append(dst, 'd')
	return appendInt(dst, zeros)
}

func appendInt(dst []byte, n int) []byte {
	if n >= 10 {
		dst = appendInt(dst, n/10)
	}
	return append(dst, byte('0'+n%10))
}

// AppendSymbol appends a struct field name: bare when it is an Ion
// identifier that is no keyword, else quoted in single quotes.
func AppendSymbol(dst []byte, s string) []byte {
	if isIdentifier(s) {
		return append(dst, s...)
	}
	return appendString(dst, s, '\'')
}

// isIdentifier reports whether s can be written as a bare symbol. Names
// starting with '$' are quoted: $ion_1_0 and $10 mean something to Ion.
func isIdentifier(s string) bool {
	switch s {
	case "", "true", "false", "null", "nan":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// appendString appends s quoted with q (" or '), escaping q, backslash and
// control characters; other UTF-8 passes as it is.
func appendString(dst []byte, s string, q byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, q)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == q || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
	}
	return append(dst, q)
}
