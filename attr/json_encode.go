package attr

import (
	"encoding/base64"
	"slices"
	"unicode/utf8"
)

// MarshalJSON returns v in DynamoDB-JSON (see AppendJSON).
func (v Value) MarshalJSON() ([]byte, error) {
	return AppendJSON(make([]byte, 0, 32), v), nil
}

// MarshalJSON returns it in DynamoDB-JSON (see AppendItemJSON).
func (it Item) MarshalJSON() ([]byte, error) {
	return AppendItemJSON(make([]byte, 0, 64*len(it)+2), it), nil
}

// AppendJSON appends v in DynamoDB-JSON ({"S":"x"}, {"N":"1"},
// {"M":{...}}, ...) to dst and returns the extended slice. Map keys are
// written in sorted order so that output is deterministic; set members keep
// their order. A Value with no type is written as {}.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.T {
	case TypeS:
		dst = append(dst, `{"S":`...)
		dst = AppendJSONString(dst, v.S)
	case TypeN:
		dst = append(dst, `{"N":`...)
		dst = AppendJSONString(dst, v.S)
	case TypeB:
		dst = append(dst, `{"B":`...)
		dst = appendBase64(dst, v.B)
	case TypeBOOL:
		if v.Bool {
			return append(dst, `{"BOOL":true}`...)
		}
		return append(dst, `{"BOOL":false}`...)
	case TypeNULL:
		return append(dst, `{"NULL":true}`...)
	case TypeM:
		dst = append(dst, `{"M":`...)
		dst = AppendItemJSON(dst, v.M)
	case TypeL:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.L {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, e)
		}
		dst = append(dst, ']')
	case TypeSS, TypeNS:
		if v.T == TypeSS {
			dst = append(dst, `{"SS":[`...)
		} else {
			dst = append(dst, `{"NS":[`...)
		}
		for i, s := range v.SS {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, s)
		}
		dst = append(dst, ']')
	case TypeBS:
		dst = append(dst, `{"BS":[`...)
		for i, b := range v.BS {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendBase64(dst, b)
		}
		dst = append(dst, ']')
	default:
		return append(dst, '{', '}')
	}
	return append(dst, '}')
}

// AppendItemJSON appends it as a DynamoDB-JSON object of attribute values
// ({"a":{"S":"x"},...}), names sorted, to dst and returns the extended
// slice. A nil or empty item is written as {}.
func AppendItemJSON(dst []byte, it Item) []byte {
	dst = append(dst, '{')
	var small [16]string
	keys := small[:0]
	for k := range it {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, k)
		dst = append(dst, ':')
		dst = AppendJSON(dst, it[k])
	}
	return append(dst, '}')
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string, escaped exactly as
// encoding/json does with SetEscapeHTML(false): short escapes for \b \f \n
// \r \t " and \, \u00XX for other control characters, \u2028 and \u2029
// (which break JavaScript), and invalid UTF-8 as \ufffd. It leaves <, > and
// & alone, since the output is never embedded in HTML.
func AppendJSONString(dst []byte, s string) []byte { return appendJSONStr(dst, s) }

// appendJSONStr is AppendJSONString for stored bytes as well as strings, so
// that names and values read in place need no string copy.
func appendJSONStr[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain bytes at a time: most text needs no escape.
		if i+8 <= len(s) && plain8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// decodeRune is utf8.DecodeRune for either kind of text.
func decodeRune[T string | []byte](s T) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	return utf8.RuneError, 1
}

// plain8 reports whether the eight bytes packed in x are all ASCII that
// JSON writes as is: none is a control character, '"', '\\' or above 0x7f.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(y uint64) uint64 { return (y - ones) & ^y & highs }
	// x - 0x20 per byte borrows into a byte's high bit exactly when that
	// byte is below 0x20 (given no byte has its high bit set).
	return (x&highs)|((x-0x20*ones)&^x&highs)|hasZero(x^('"'*ones))|hasZero(x^('\\'*ones)) == 0
}
