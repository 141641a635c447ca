package attr

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"slices"
)

// Writing a stored item as DynamoDB-JSON without building it. A Query or
// Scan page returns up to 1 MB of items; decoding each into an Item (a map
// and a copy of every string) only to encode it again costs most of the
// read, so the page transcodes the stored bytes straight to the response.
//
// This is the hottest loop of a read (once per attribute of every item
// returned), so it passes the read position as a value (kept in a register)
// rather than through a walker in memory, reads one-byte lengths in one
// branch, and writes each scalar's JSON with as few appends as it can.

// AppendBinaryJSON appends the item that AppendBinary encoded in b to dst in
// DynamoDB-JSON, exactly as AppendItemJSON writes the decoded item (names
// sorted at every level), and returns the extended slice. It returns the
// same error as DecodeBinary for corrupt input, with dst possibly extended.
// An encoding that repeats a name, which AppendBinary never writes, is
// written with the name repeated.
func AppendBinaryJSON(dst []byte, b []byte) ([]byte, error) {
	h, ok := binaryBody(b)
	if !ok {
		return dst, errCorrupt()
	}
	n, i, ok := readCount(b, h.start)
	if !ok {
		return dst, errCorrupt()
	}
	// The JSON is the stored bytes plus punctuation: per attribute about
	// ten bytes ("n":{"S":""},) against two or three of lengths and type.
	// One Grow spares the appends below any copying (n <= len(b)).
	dst = slices.Grow(dst, len(b)+12*n+2)
	t := jsonTranscoder{b: b}
	dst, i, ok = t.appendMembers(dst, i, n, 0, h.plainNames)
	if !ok || i != len(b) {
		return dst, errCorrupt()
	}
	return dst, nil
}

// member is one name of a map, as offsets into the transcoder's bytes; its
// encoded value starts at nameEnd.
type member struct {
	nameAt, nameEnd int
}

// nameLess reports whether x's name sorts before y's. Names of one map
// nearly always differ in their first byte, which is compared here without
// calling the runtime's string comparison.
func nameLess(b []byte, x, y member) bool {
	if x.nameAt < x.nameEnd && y.nameAt < y.nameEnd && b[x.nameAt] != b[y.nameAt] {
		return b[x.nameAt] < b[y.nameAt]
	}
	return string(b[x.nameAt:x.nameEnd]) < string(b[y.nameAt:y.nameEnd])
}

// jsonTranscoder writes the encoded item b as JSON.
type jsonTranscoder struct {
	b []byte
}

// appendMembers writes the n names and values at i (a map's body) as a JSON
// object with sorted names, and returns where the map ends. plain says the
// names are marked as needing no escape.
func (t *jsonTranscoder) appendMembers(dst []byte, i, n, depth int, plain bool) ([]byte, int, bool) {
	b := t.b
	var small [16]member
	ms := small[:0]
	for range n {
		at, end := i+1, 0
		var ok bool
		if end, ok = shortBytes(b, i); !ok {
			if at, end, ok = readBytes(b, i); !ok {
				return dst, i, false
			}
		}
		if i, ok = skipValue(b, end, depth); !ok {
			return dst, i, false
		}
		ms = append(ms, member{nameAt: at, nameEnd: end})
	}
	if len(ms) <= len(small) {
		// Insertion sort: most items have few attributes.
		for k := 1; k < len(ms); k++ {
			for j := k; j > 0 && nameLess(b, ms[j], ms[j-1]); j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
	} else {
		slices.SortFunc(ms, func(x, y member) int {
			return bytes.Compare(b[x.nameAt:x.nameEnd], b[y.nameAt:y.nameEnd])
		})
	}
	dst = append(dst, '{')
	for k, m := range ms {
		if k > 0 {
			dst = append(dst, ',', '"')
		} else {
			dst = append(dst, '"')
		}
		if plain {
			dst = append(dst, b[m.nameAt:m.nameEnd]...)
		} else {
			dst = appendJSONBody(dst, b[m.nameAt:m.nameEnd])
		}
		dst = append(dst, '"', ':')
		// skipValue checked the value; writing it cannot fail.
		dst, _, _ = t.appendValue(dst, m.nameEnd, depth)
	}
	return append(dst, '}'), i, true
}

// appendValue writes the value at i as AppendJSON writes it and returns
// where the value ends.
func (t *jsonTranscoder) appendValue(dst []byte, i, depth int) ([]byte, int, bool) {
	b := t.b
	if i >= len(b) {
		return dst, i, false
	}
	typ := Type(b[i])
	switch typ {
	case TypeS, TypeN, tagPlainS, tagPlainN:
		at, end := i+2, 0
		var ok bool
		if end, ok = shortBytes(b, i+1); !ok {
			if at, end, ok = readBytes(b, i+1); !ok {
				return dst, i, false
			}
		}
		if typ == TypeS || typ == tagPlainS {
			dst = append(dst, `{"S":"`...)
		} else {
			dst = append(dst, `{"N":"`...)
		}
		if typ == tagPlainS || typ == tagPlainN {
			dst = append(dst, b[at:end]...) // found plain when it was stored
		} else {
			dst = appendJSONBody(dst, b[at:end])
		}
		return append(dst, '"', '}'), end, true
	case TypeB:
		at, end, ok := readBytes(b, i+1)
		if !ok {
			return dst, i, false
		}
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, b[at:end])
		return append(dst, '"', '}'), end, true
	case TypeBOOL:
		if i+1 >= len(b) || b[i+1] > 1 {
			return dst, i, false
		}
		if b[i+1] == 1 {
			return append(dst, `{"BOOL":true}`...), i + 2, true
		}
		return append(dst, `{"BOOL":false}`...), i + 2, true
	case TypeNULL:
		return append(dst, `{"NULL":true}`...), i + 1, true
	case TypeM, tagPlainM:
		if depth >= maxBinaryDepth {
			return dst, i, false
		}
		n, i, ok := readCount(b, i+1)
		if !ok {
			return dst, i, false
		}
		dst = append(dst, `{"M":`...)
		dst, i, ok = t.appendMembers(dst, i, n, depth+1, typ == tagPlainM)
		return append(dst, '}'), i, ok
	case TypeL:
		if depth >= maxBinaryDepth {
			return dst, i, false
		}
		n, i, ok := readCount(b, i+1)
		if !ok {
			return dst, i, false
		}
		dst = append(dst, `{"L":[`...)
		for k := range n {
			if k > 0 {
				dst = append(dst, ',')
			}
			if dst, i, ok = t.appendValue(dst, i, depth+1); !ok {
				return dst, i, false
			}
		}
		return append(dst, ']', '}'), i, true
	case TypeSS, TypeNS, TypeBS, tagPlainSS, tagPlainNS:
		return appendSetJSON(dst, b, i+1, typ)
	}
	return dst, i, false
}

// appendSetJSON writes the members of a set whose type byte is typ (marked
// or not) and whose count is at i, and returns where the set ends.
func appendSetJSON(dst, b []byte, i int, typ Type) ([]byte, int, bool) {
	n, i, ok := readCount(b, i)
	if !ok {
		return dst, i, false
	}
	plain := typ&plainMark != 0
	typ &^= plainMark
	switch typ {
	case TypeSS:
		dst = append(dst, `{"SS":[`...)
	case TypeNS:
		dst = append(dst, `{"NS":[`...)
	default:
		dst = append(dst, `{"BS":[`...)
	}
	for k := range n {
		at, end, ok := readBytes(b, i)
		if !ok {
			return dst, i, false
		}
		i = end
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		if typ == TypeBS {
			dst = base64.StdEncoding.AppendEncode(dst, b[at:end])
		} else if plain {
			dst = append(dst, b[at:end]...)
		} else {
			dst = appendJSONBody(dst, b[at:end])
		}
		dst = append(dst, '"')
	}
	return append(dst, ']', '}'), i, true
}

// skipValue steps over the value at i, checking it as binDecoder.value
// would, and returns where it ends. Scalars, the common case, are stepped
// over here; containers go through binWalker.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i < len(b) {
		switch Type(b[i]) {
		case TypeS, TypeN, TypeB, tagPlainS, tagPlainN:
			if end, ok := shortBytes(b, i+1); ok {
				return end, true
			}
			_, end, ok := readBytes(b, i+1)
			return end, ok
		}
	}
	w := binWalker{b: b, i: i}
	ok := w.skip(depth)
	return w.i, ok
}

// readUvarint reads the unsigned varint at i and returns it and where it
// ends.
func readUvarint(b []byte, i int) (uint64, int, bool) {
	if i >= len(b) {
		return 0, i, false
	}
	// Two bytes cover lengths under 16 KiB, such as most string values.
	if i+1 < len(b) && b[i+1] < 0x80 {
		if b[i] < 0x80 {
			return uint64(b[i]), i + 1, true
		}
		return uint64(b[i]&0x7f) | uint64(b[i+1])<<7, i + 2, true
	}
	x, n := binary.Uvarint(b[i:])
	if n <= 0 {
		return 0, i, false
	}
	return x, i + n, true
}

// readCount reads an element count at i, refusing counts larger than the
// bytes left (each element takes at least one), and returns where it ends.
func readCount(b []byte, i int) (int, int, bool) {
	n, i, ok := readUvarint(b, i)
	if !ok || n > uint64(len(b)-i) {
		return 0, i, false
	}
	return int(n), i, true
}

// readBytes reads the length-prefixed byte string at i and returns where
// its contents start and end (the end is where the next field starts).
// Hot callers try shortBytes first.
func readBytes(b []byte, i int) (at, end int, ok bool) {
	if end, ok := shortBytes(b, i); ok {
		return i + 1, end, true
	}
	n, at, ok := readUvarint(b, i)
	if !ok || n > uint64(len(b)-at) {
		return 0, i, false
	}
	return at, at + int(n), true
}

// shortBytes is readBytes for a string whose length takes one byte (under
// 128, nearly all of them): its contents start at i+1 and end at end. It
// is small enough to be inlined, which a call that can fall back to
// decoding a longer varint is not; ok false means "use readBytes".
func shortBytes(b []byte, i int) (end int, ok bool) {
	if uint(i) < uint(len(b)) {
		if n := int(b[i]); n < 0x80 && n < len(b)-i {
			return i + 1 + n, true
		}
	}
	return 0, false
}
