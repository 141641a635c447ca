package attr

import (
	"bytes"
	"encoding/base64"
	"slices"
)

// Writing a stored item as DynamoDB-JSON without building it. A Query or
// Scan page returns up to 1 MB of items; decoding each into an Item (a map
// and a copy of every string) only to encode it again costs most of the
// read, so the page transcodes the stored bytes straight to the response.

// AppendBinaryJSON appends the item that AppendBinary encoded in b to dst in
// DynamoDB-JSON, exactly as AppendItemJSON writes the decoded item (names
// sorted at every level), and returns the extended slice. It returns the
// same error as DecodeBinary for corrupt input, with dst possibly extended.
// An encoding that repeats a name, which AppendBinary never writes, is
// written with the name repeated.
func AppendBinaryJSON(dst []byte, b []byte) ([]byte, error) {
	start, _, _, ok := binaryBody(b)
	if !ok {
		return dst, errCorrupt()
	}
	w := binWalker{b: b, i: start}
	dst, ok = w.appendMapJSON(dst, 0)
	if !ok || w.i != len(w.b) {
		return dst, errCorrupt()
	}
	return dst, nil
}

// member is one name and the encoded value after it, as offsets into the
// walker's bytes.
type member struct {
	name       []byte
	start, end int
}

// appendMapJSON writes the map at the walker (count, then names and values)
// as a JSON object with sorted names.
func (w *binWalker) appendMapJSON(dst []byte, depth int) ([]byte, bool) {
	n, ok := w.count()
	if !ok {
		return dst, false
	}
	var small [16]member
	ms := small[:0]
	for range n {
		k, ok := w.bytes()
		if !ok {
			return dst, false
		}
		start := w.i
		if !w.skip(depth) {
			return dst, false
		}
		ms = append(ms, member{name: k, start: start, end: w.i})
	}
	if len(ms) <= len(small) {
		// Insertion sort: most items have few attributes.
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && string(ms[j].name) < string(ms[j-1].name); j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
	} else {
		slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.name, b.name) })
	}
	end := w.i
	dst = append(dst, '{')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONStr(dst, m.name)
		dst = append(dst, ':')
		// The value was checked by skip; writing it cannot fail.
		w.i = m.start
		dst, _ = w.appendValueJSON(dst, depth)
	}
	w.i = end
	return append(dst, '}'), true
}

// appendValueJSON writes the value at the walker as AppendJSON writes it.
func (w *binWalker) appendValueJSON(dst []byte, depth int) ([]byte, bool) {
	if w.i >= len(w.b) {
		return dst, false
	}
	t := Type(w.b[w.i])
	w.i++
	switch t {
	case TypeS, TypeN:
		s, ok := w.bytes()
		if t == TypeS {
			dst = append(dst, `{"S":`...)
		} else {
			dst = append(dst, `{"N":`...)
		}
		dst = appendJSONStr(dst, s)
		return append(dst, '}'), ok
	case TypeB:
		s, ok := w.bytes()
		dst = append(dst, `{"B":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, s)
		return append(dst, `"}`...), ok
	case TypeBOOL:
		if w.i >= len(w.b) || w.b[w.i] > 1 {
			return dst, false
		}
		w.i++
		if w.b[w.i-1] == 1 {
			return append(dst, `{"BOOL":true}`...), true
		}
		return append(dst, `{"BOOL":false}`...), true
	case TypeNULL:
		return append(dst, `{"NULL":true}`...), true
	case TypeM:
		if depth >= maxBinaryDepth {
			return dst, false
		}
		dst = append(dst, `{"M":`...)
		dst, ok := w.appendMapJSON(dst, depth+1)
		return append(dst, '}'), ok
	case TypeL:
		if depth >= maxBinaryDepth {
			return dst, false
		}
		n, ok := w.count()
		if !ok {
			return dst, false
		}
		dst = append(dst, `{"L":[`...)
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, ok = w.appendValueJSON(dst, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, "]}"...), true
	case TypeSS, TypeNS, TypeBS:
		n, ok := w.count()
		if !ok {
			return dst, false
		}
		switch t {
		case TypeSS:
			dst = append(dst, `{"SS":[`...)
		case TypeNS:
			dst = append(dst, `{"NS":[`...)
		default:
			dst = append(dst, `{"BS":[`...)
		}
		for i := range n {
			s, ok := w.bytes()
			if !ok {
				return dst, false
			}
			if i > 0 {
				dst = append(dst, ',')
			}
			if t == TypeBS {
				dst = append(dst, '"')
				dst = base64.StdEncoding.AppendEncode(dst, s)
				dst = append(dst, '"')
			} else {
				dst = appendJSONStr(dst, s)
			}
		}
		return append(dst, "]}"...), true
	}
	return dst, false
}
