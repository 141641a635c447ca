package attr

import (
	"math/bits"
	"unicode/utf8"
)

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
	dst = appendJSONBody(dst, s)
	return append(dst, '"')
}

// plainPrefix returns how many leading bytes of s need no JSON escape.
func plainPrefix[T string | []byte](s T) int {
	if len(s) >= 8 {
		return plainLen(s)
	}
	// Names and key values are often this short: a call to plainLen would
	// cost more than looking at them here.
	i := 0
	for i < len(s) && plainByte(s[i]) {
		i++
	}
	return i
}

// appendJSONBody appends s escaped as appendJSONStr does, without the
// quotes, so that callers can write them together with what surrounds them.
//
// Almost all stored text is plain ASCII, so the loop hands runs of bytes
// that need no escape to plainLen (sixteen or eight at a time) and copies
// each run with one append; only an escape or a multi-byte rune is looked
// at byte by byte.
func appendJSONBody[T string | []byte](dst []byte, s T) []byte {
	i := plainPrefix(s)
	if i == len(s) {
		return append(dst, s...)
	}
	return appendJSONEscaping(dst, s, i)
}

// appendJSONEscaping is appendJSONBody once s[:i] is known to be plain and
// s[i] not.
func appendJSONEscaping[T string | []byte](dst []byte, s T, i int) []byte {
	start := 0
	// At the top of the loop s[i] is not plain: an ASCII byte to escape
	// or the first byte of a multi-byte (or invalid) rune.
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			i++
			start = i
		} else {
			r, size := decodeRune(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				start = i + size
			case r == '\u2028' || r == '\u2029':
				dst = append(dst, s[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
				start = i + size
			}
			i += size
		}
		i += plainLen(s[i:])
	}
	return append(dst, s[start:]...)
}

// appendEscapedASCII appends the escape of an ASCII byte that JSON may not
// write as is: a control character, '"' or '\\'.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// plainLen returns how many leading bytes of s are ASCII that JSON writes as
// is (see plainByte): eight at a time while it can, then byte by byte.
func plainLen[T string | []byte](s T) int {
	n := 0
	for len(s) >= 16 {
		// Two words per round: the common all-plain case then pays one
		// branch per sixteen bytes.
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		y := uint64(s[8]) | uint64(s[9])<<8 | uint64(s[10])<<16 | uint64(s[11])<<24 |
			uint64(s[12])<<32 | uint64(s[13])<<40 | uint64(s[14])<<48 | uint64(s[15])<<56
		if unplain2(x, y) {
			break
		}
		s = s[16:]
		n += 16
	}
	for len(s) >= 8 {
		// The compiler merges these loads into one 64-bit load.
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if m := unplainMask(x); m != 0 {
			// The lowest flagged byte is exact (only bytes above it can
			// be flagged by a borrow), and bytes are little-endian.
			return n + bits.TrailingZeros64(m)/8
		}
		s = s[8:]
		n += 8
	}
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			return n + i
		}
	}
	return n + len(s)
}

// plainByte reports whether JSON writes c as is: ASCII other than a control
// character, '"' or '\\'. Bytes of multi-byte runes are not plain: they are
// checked as UTF-8.
func plainByte(c byte) bool {
	return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\'
}

// unplainMask returns, for the eight bytes packed little-endian in x, a
// word whose lowest set bit is the high bit of the first byte that is not
// plainByte (0 when all are). A borrow from a flagged byte may also flag
// bytes above it, so only the lowest set bit is meaningful.
func unplainMask(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// Below the first byte with its high bit set, each byte is under 0x80,
	// so b-0x20 sets the byte's high bit exactly when b < 0x20, and
	// (b^q)-1 sets it exactly when b == q; no borrow crosses a byte that
	// was not already flagged.
	return (x | (x - 0x20*ones) | ((x ^ '"'*ones) - ones) | ((x ^ '\\'*ones) - ones)) & highs
}

// unplain2 reports whether either word holds a byte that is not plainByte;
// it is unplainMask of both with the shared steps done once.
func unplain2(x, y uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	const lo, q, bs = 0x20 * ones, '"' * ones, '\\' * ones
	return (x|y|(x-lo)|(y-lo)|((x^q)-ones)|((y^q)-ones)|((x^bs)-ones)|((y^bs)-ones))&highs != 0
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
