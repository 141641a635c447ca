package attr

import "unicode/utf8"

// Marking stored text that JSON writes as is. Reads outnumber writes, and
// every read of an item used to scan each of its strings for bytes JSON
// must escape, although the stored bytes never change. AppendBinary does
// the scan once and records the answer in the value's type byte: a type
// byte with plainMark set says that every text the value writes directly
// (an S or N value's bytes, the members of an SS or NS, the names of an M)
// is plain, so AppendBinaryJSON copies it without looking at it.
//
// The mark is a promise made by AppendBinary, not checked by readers: a
// value decodes to the same Value with or without it, and only the JSON
// transcoder acts on it.

// plainMark is the type-byte bit that marks a value's text as plain. No
// Type uses it (Types stop at 10).
const plainMark = 0x80

// The marked type bytes; any other byte with plainMark set is corrupt.
const (
	tagPlainS  = TypeS | plainMark
	tagPlainN  = TypeN | plainMark
	tagPlainM  = TypeM | plainMark
	tagPlainSS = TypeSS | plainMark
	tagPlainNS = TypeNS | plainMark
)

// storedType returns the Type of a stored type byte, marked or not, or 0
// (which no reader accepts) for a mark on a type that cannot carry one.
func storedType(c byte) Type {
	if c&plainMark == 0 {
		return Type(c)
	}
	switch t := Type(c &^ plainMark); t {
	case TypeS, TypeN, TypeM, TypeSS, TypeNS:
		return t
	}
	return 0
}

// markIf returns tag with plainMark set when plain.
func markIf(tag Type, plain bool) byte {
	if plain {
		return byte(tag | plainMark)
	}
	return byte(tag)
}

// jsonPlain reports whether appendJSONBody writes s unchanged: whether s
// is valid UTF-8 without control characters, '"', '\\', U+2028 or U+2029.
// It follows appendJSONEscaping's walk, writing nothing.
func jsonPlain[T string | []byte](s T) bool {
	i := plainPrefix(s)
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			return false
		}
		r, size := decodeRune(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
		i += plainLen(s[i:])
	}
	return true
}
