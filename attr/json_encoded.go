package attr

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// Encoding DynamoDB-JSON straight into the storage encoding (for
// Encoded.UnmarshalJSON). This is a fast path only: it takes the shape real
// write requests have and gives up (ok=false) on anything else — a type
// other than S, N, BOOL, NULL, M, L or SS (of at most maxEncodeSet members);
// an escape in any string; a name
// twice in one map or longer than MaxNameBytes; a null, an unknown member or a second type in an
// AttributeValue; every error. The caller then decodes through
// Item.UnmarshalJSON, whose result and errors are the definition; the fast
// path must only ever agree with it (encoded_test.go checks, and fuzzes).

// encodeHeader is the longest item header: version, size, map tag, count.
const encodeHeader = 1 + binary.MaxVarintLen64 + 1 + binary.MaxVarintLen64

// maxEncodeNames bounds the names of one map that are checked pairwise for
// repeats; larger maps take the slow path.
const maxEncodeNames = 64

// itemEncoder reads JSON with d. Its methods append the encoding to a
// slice passed in and returned, not kept in the struct: so the compiler
// can leave encodeItemPrefix's scratch buffer on the stack.
type itemEncoder struct {
	d jsonDecoder
}

// encodeItemJSON returns the storage encoding of the DynamoDB-JSON item b,
// as AppendBinary would write Item.UnmarshalJSON's result (names in JSON
// order), or false if b is not of the shape this path takes.
func encodeItemJSON(b []byte) ([]byte, bool) {
	enc, n, ok := encodeItemPrefix(b)
	if !ok {
		return nil, false
	}
	d := jsonDecoder{b: b, i: n}
	if d.ws(); d.i != len(b) {
		return nil, false
	}
	return enc, true
}

// encodeItemPrefix is encodeItemJSON for an item followed by anything: it
// also returns the length of the item's JSON (leading whitespace included).
func encodeItemPrefix(b []byte) ([]byte, int, bool) {
	e := itemEncoder{d: jsonDecoder{b: b}}
	e.d.ws()
	if e.d.peek() != '{' {
		return nil, 0, false
	}
	// The encoding is shorter than the item's JSON (but for numbers whose
	// canonical form is longer, such as 1E9, for which append grows it),
	// and goes after room for the header, which is only known at the end.
	out := make([]byte, encodeHeader, encodeHeader+objectLen(b[e.d.i:]))
	out, count, size, plain, ok := e.members(out, 0)
	if !ok {
		return nil, 0, false
	}
	var hb [encodeHeader]byte
	h := append(hb[:0], binaryVersion)
	h = binary.AppendUvarint(h, uint64(size))
	h = append(h, markIf(TypeM, plain))
	h = binary.AppendUvarint(h, uint64(count))
	at := encodeHeader - len(h)
	copy(out[at:], h)
	return out[at:], e.d.i, true
}

// objectLen returns the length of the JSON object that b starts with,
// found by matching brackets outside strings only (the encoder checks
// the syntax), or len(b) if it does not end.
func objectLen(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return len(b)
}

// members reads the object at the decoder as a map of AttributeValues and
// appends its members (name, value) to out, not their count. It returns
// the count, the sum over members of name length plus value size, and
// whether every name is plain (jsonPlain).
func (e *itemEncoder) members(out []byte, depth int) (_ []byte, count, size int, plain, ok bool) {
	d := &e.d
	var names [16][]byte // most maps are small: no allocation
	seen := names[:0]
	plain = true
	d.i++ // '{'
	for first := true; ; first = false {
		d.ws()
		if d.peek() == '}' {
			d.i++
			return out, count, size, plain, true
		}
		if !first {
			if d.peek() != ',' {
				return nil, 0, 0, false, false
			}
			d.i++
			d.ws()
		}
		name, ok := e.plainString()
		if !ok || len(name) > MaxNameBytes || len(seen) == maxEncodeNames || !e.colon() {
			return nil, 0, 0, false, false
		}
		for _, s := range seen {
			if string(s) == string(name) {
				return nil, 0, 0, false, false // the last value wins: the slow path knows how
			}
		}
		seen = append(seen, name)
		plain = plain && jsonPlain(name)
		out = appendBytes(out, name)
		var vs int
		if out, vs, ok = e.value(out, depth); !ok {
			return nil, 0, 0, false, false
		}
		count++
		size += len(name) + vs
	}
}

// number reads an N's string and appends its canonical encoding to out;
// it returns the number's Size.
func (e *itemEncoder) number(out []byte) (_ []byte, size int, ok bool) {
	s, ok := e.plainString()
	if !ok {
		return nil, 0, false
	}
	var buf [48]byte
	n, err := parseDecimal(string(s), buf[:0])
	if err != nil || n.check() != nil {
		return nil, 0, false
	}
	var cb [64]byte
	c := n.appendCanonical(cb[:0])
	out = append(out, markIf(TypeN, jsonPlain(c)))
	out = appendBytes(out, c)
	return out, n.size(), true
}

// mapValue reads an M's members (depth as in value) and appends its
// encoding to out; it returns the map's Size.
func (e *itemEncoder) mapValue(out []byte, depth int) (_ []byte, size int, ok bool) {
	if depth >= MaxNestingDepth || e.d.peek() != '{' {
		return nil, 0, false
	}
	at := len(out)
	out = append(out, byte(TypeM))
	var n, sum int
	var plain bool
	if out, n, sum, plain, ok = e.members(out, depth+1); !ok {
		return nil, 0, false
	}
	out[at] = markIf(TypeM, plain)
	out = insertCount(out, at+1, n)
	return out, 3 + n + sum, true
}

// value reads one AttributeValue and appends its encoding to out; it
// returns the value's Size. depth is as in jsonDecoder.attributeValue.
func (e *itemEncoder) value(out []byte, depth int) (_ []byte, size int, ok bool) {
	d := &e.d
	if d.peek() != '{' {
		return nil, 0, false
	}
	d.i++
	d.ws()
	typ, ok := e.plainString()
	if !ok || !e.colon() {
		return nil, 0, false
	}
	switch string(typ) {
	case "S":
		s, ok := e.plainString()
		if !ok {
			return nil, 0, false
		}
		out = append(out, markIf(TypeS, jsonPlain(s)))
		out = appendBytes(out, s)
		size = len(s)
	case "N":
		if out, size, ok = e.number(out); !ok {
			return nil, 0, false
		}
	case "BOOL":
		switch {
		case e.literal("true"):
			out = append(out, byte(TypeBOOL), 1)
		case e.literal("false"):
			out = append(out, byte(TypeBOOL), 0)
		default:
			return nil, 0, false
		}
		size = 1
	case "NULL":
		if !e.literal("true") {
			return nil, 0, false // false is an error, null is absent: the slow path words both
		}
		out = append(out, byte(TypeNULL))
		size = 1
	case "M":
		if out, size, ok = e.mapValue(out, depth); !ok {
			return nil, 0, false
		}
	case "SS":
		if out, size, ok = e.stringSet(out); !ok {
			return nil, 0, false
		}
	case "L":
		if depth >= MaxNestingDepth || d.peek() != '[' {
			return nil, 0, false
		}
		out = append(out, byte(TypeL))
		at := len(out)
		var n, sum int
		if out, n, sum, ok = e.list(out, depth+1); !ok {
			return nil, 0, false
		}
		out = insertCount(out, at, n)
		size = 3 + n + sum
	default:
		return nil, 0, false
	}
	d.ws()
	if d.peek() != '}' {
		return nil, 0, false // another member: maybe a second type, maybe ignored
	}
	d.i++
	return out, size, true
}

// list reads the array at the decoder as an L's elements and appends them
// to out, not their count. It returns the count and the sum of element
// sizes.
func (e *itemEncoder) list(out []byte, depth int) (_ []byte, count, size int, ok bool) {
	d := &e.d
	d.i++ // '['
	for first := true; ; first = false {
		d.ws()
		if d.peek() == ']' {
			d.i++
			return out, count, size, true
		}
		if !first {
			if d.peek() != ',' {
				return nil, 0, 0, false
			}
			d.i++
			d.ws()
		}
		var vs int
		if out, vs, ok = e.value(out, depth); !ok {
			return nil, 0, 0, false
		}
		count++
		size += vs
	}
}

// maxEncodeSet bounds the members of a string set this path takes
// (sorted and checked for repeats here); a larger set takes the slow path.
const maxEncodeSet = 16

// stringSet reads an SS's members and appends its encoding, the members in
// byte order as SortSet leaves them; it gives up on an empty set, a member
// twice, or more than maxEncodeSet members (the slow path words or takes
// them). It returns the set's Size.
func (e *itemEncoder) stringSet(out []byte) (_ []byte, size int, ok bool) {
	d := &e.d
	if d.peek() != '[' {
		return nil, 0, false
	}
	var buf [maxEncodeSet][]byte
	members := buf[:0]
	d.i++ // '['
	for first := true; ; first = false {
		d.ws()
		if d.peek() == ']' {
			d.i++
			break
		}
		if !first {
			if d.peek() != ',' {
				return nil, 0, false
			}
			d.i++
			d.ws()
		}
		s, ok := e.plainString()
		if !ok || len(members) == maxEncodeSet {
			return nil, 0, false
		}
		members = append(members, s)
	}
	if len(members) == 0 {
		return nil, 0, false
	}
	slices.SortFunc(members, bytes.Compare)
	plain := true
	for i, s := range members {
		if i > 0 && bytes.Equal(s, members[i-1]) {
			return nil, 0, false
		}
		plain = plain && jsonPlain(s)
		size += len(s)
	}
	out = append(out, markIf(TypeSS, plain))
	out = binary.AppendUvarint(out, uint64(len(members)))
	for _, s := range members {
		out = appendBytes(out, s)
	}
	return out, size, true
}

// insertCount inserts n as a uvarint at out[at:], before the elements
// that were written before their count was known.
func insertCount(out []byte, at, n int) []byte {
	var buf [binary.MaxVarintLen64]byte
	c := binary.PutUvarint(buf[:], uint64(n))
	out = append(out, buf[:c]...)
	copy(out[at+c:], out[at:len(out)-c])
	copy(out[at:], buf[:c])
	return out
}

// plainString reads a JSON string without escapes or control characters
// whose bytes are valid UTF-8 — one that jsonDecoder.str returns unchanged —
// and returns its bytes, aliasing the input.
func (e *itemEncoder) plainString() ([]byte, bool) {
	d := &e.d
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			s := d.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			d.i = j + 1
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// colon reads the colon after a name and the whitespace around it.
func (e *itemEncoder) colon() bool {
	d := &e.d
	d.ws()
	if d.peek() != ':' {
		return false
	}
	d.i++
	d.ws()
	return true
}

// literal reads lit if it comes next.
func (e *itemEncoder) literal(lit string) bool {
	d := &e.d
	if len(d.b)-d.i < len(lit) || string(d.b[d.i:d.i+len(lit)]) != lit {
		return false
	}
	d.i += len(lit)
	return true
}
