package attr

import "encoding/binary"

// Reading a stored item without building it. A Scan or Query with a filter
// decodes every item it reads, but usually needs only the size (for the
// 1 MB page and capacity) and the one or two attributes the filter names;
// decoding a whole Item (a map of ~130-byte Values) costs most of the read.

// BinarySize returns the size, as Item.Size counts it, of the item that
// AppendBinary encoded in b, without decoding it. For the current encoding
// it reads the recorded size and checks only the header; for version 1 it
// walks the item and returns the same error as DecodeBinary for corrupt input.
func BinarySize(b []byte) (int, error) {
	h, ok := binaryBody(b)
	if !ok {
		return 0, errCorrupt()
	}
	if h.sized {
		return h.size, nil
	}
	w := binWalker{b: b, i: h.start}
	n, ok := w.count()
	if !ok {
		return 0, errCorrupt()
	}
	size := 0
	for range n {
		k, ok := w.bytes()
		if !ok {
			return 0, errCorrupt()
		}
		vs, ok := w.valueSize(0)
		if !ok {
			return 0, errCorrupt()
		}
		size += len(k) + vs
	}
	if w.i != len(w.b) {
		return 0, errCorrupt()
	}
	return size, nil
}

// BinarySizeNames returns what BinarySize returns and, in the same pass,
// replaces the contents of into (unless nil) with the top-level attributes
// of b named in names, as DecodeBinaryNames decodes them. A filter that
// reads one or two attributes of every item can so reuse one map for all of
// them instead of allocating one per item. On error into's contents are
// unspecified.
//
// With into nil and the current encoding, it reads the recorded size and
// checks only the header (version, size, attribute count), as BinarySize
// does: a Query page calls it once per item read, and walking every
// attribute only to check it cost as much as writing the item out. So a
// corrupt body is no longer reported here but by whatever reads the item
// next (AppendBinaryJSON, DecodeBinary and DecodeBinaryNames all check
// every byte); callers that need the attributes pass into and get the full
// walk and check as before.
func BinarySizeNames(b []byte, names []string, into Item) (int, error) {
	h, ok := binaryBody(b)
	if !ok {
		return 0, errCorrupt()
	}
	recorded, sized := h.size, h.sized
	w := binWalker{b: b, i: h.start}
	n, ok := w.count()
	if !ok {
		return 0, errCorrupt()
	}
	if sized && into == nil {
		return recorded, nil
	}
	// into's entries are overwritten rather than cleared first, and only
	// names this item lacks are deleted afterwards (binary_scratch.go); found
	// has bit j set once names[j] is stored.
	tracked := len(names) <= 64
	if !tracked {
		clear(into)
	}
	var found uint64
	size := 0
	for range n {
		k, ok := w.bytes()
		if !ok {
			return 0, errCorrupt()
		}
		start := w.i
		// With a recorded size, values are only stepped over (sizing a
		// number means parsing it).
		vs, ok := w.walkValue(0, !sized)
		if !ok {
			return 0, errCorrupt()
		}
		size += len(k) + vs
		if into == nil {
			continue
		}
		j := nameIndex(names, k)
		if j < 0 {
			continue
		}
		if !decodeInto(into, names[j], b[start:w.i]) {
			return 0, errCorrupt()
		}
		if tracked {
			found |= 1 << j
		}
	}
	if w.i != len(w.b) {
		return 0, errCorrupt()
	}
	if tracked && into != nil {
		pruneInto(into, names, found)
	}
	if sized {
		return recorded, nil
	}
	return size, nil
}

// DecodeBinaryNames decodes only the top-level attributes of b named in
// names (absent ones are simply missing from the result); the others are
// skipped without allocating. Like DecodeBinary, the result does not alias
// b, and corrupt input anywhere in b yields an error.
func DecodeBinaryNames(b []byte, names []string) (Item, error) {
	h, ok := binaryBody(b)
	if !ok {
		return nil, errCorrupt()
	}
	w := binWalker{b: b, i: h.start}
	n, ok := w.count()
	if !ok {
		return nil, errCorrupt()
	}
	it := make(Item, min(len(names), n))
	for range n {
		k, ok := w.bytes()
		if !ok {
			return nil, errCorrupt()
		}
		start := w.i
		if !w.skip(0) {
			return nil, errCorrupt()
		}
		j := nameIndex(names, k)
		if j < 0 {
			continue
		}
		d := binDecoder{s: string(b[start:w.i])}
		v, ok := d.value(0)
		if !ok || d.i != len(d.s) {
			return nil, errCorrupt()
		}
		it[names[j]] = v
	}
	if w.i != len(w.b) {
		return nil, errCorrupt()
	}
	return it, nil
}

// binWalker steps through an encoded item in place.
type binWalker struct {
	b []byte
	i int
}

func (w *binWalker) uvarint() (uint64, bool) {
	// Nearly every length and count is under 128: one byte, one branch.
	if w.i < len(w.b) && w.b[w.i] < 0x80 {
		w.i++
		return uint64(w.b[w.i-1]), true
	}
	x, n := binary.Uvarint(w.b[w.i:])
	if n <= 0 {
		return 0, false
	}
	w.i += n
	return x, true
}

// count reads an element count, refusing counts larger than the bytes left
// (each element takes at least one).
func (w *binWalker) count() (int, bool) {
	n, ok := w.uvarint()
	if !ok || n > uint64(len(w.b)-w.i) {
		return 0, false
	}
	return int(n), true
}

// bytes reads a length-prefixed byte string; the result aliases w.b.
func (w *binWalker) bytes() ([]byte, bool) {
	n, ok := w.uvarint()
	if !ok || n > uint64(len(w.b)-w.i) {
		return nil, false
	}
	s := w.b[w.i : w.i+int(n)]
	w.i += int(n)
	return s, true
}

// skip steps over one value, checking it as binDecoder.value would.
func (w *binWalker) skip(depth int) bool {
	_, ok := w.walkValue(depth, false)
	return ok
}

// valueSize steps over one value and returns its Value.Size.
func (w *binWalker) valueSize(depth int) (int, bool) { return w.walkValue(depth, true) }

// walkValue steps over one value, checking it as binDecoder.value would,
// and returns its Value.Size when sized (0 otherwise: sizing numbers means
// parsing them).
func (w *binWalker) walkValue(depth int, sized bool) (int, bool) {
	if w.i >= len(w.b) {
		return 0, false
	}
	t := storedType(w.b[w.i])
	w.i++
	switch t {
	case TypeS, TypeB:
		s, ok := w.bytes()
		return len(s), ok
	case TypeN:
		s, ok := w.bytes()
		if !sized {
			return 0, ok
		}
		return numberSize(string(s)), ok
	case TypeBOOL:
		if w.i >= len(w.b) || w.b[w.i] > 1 {
			return 0, false
		}
		w.i++
		return 1, true
	case TypeNULL:
		return 1, true
	case TypeM, TypeL:
		if depth >= maxBinaryDepth {
			return 0, false
		}
		n, ok := w.count()
		if !ok {
			return 0, false
		}
		size := 3
		for range n {
			if t == TypeM {
				k, ok := w.bytes()
				if !ok {
					return 0, false
				}
				size += len(k)
			}
			es, ok := w.walkValue(depth+1, sized)
			if !ok {
				return 0, false
			}
			size += 1 + es
		}
		return size, true
	case TypeSS, TypeNS, TypeBS:
		n, ok := w.count()
		if !ok {
			return 0, false
		}
		size := 0
		for range n {
			s, ok := w.bytes()
			if !ok {
				return 0, false
			}
			if t == TypeNS {
				if sized {
					size += numberSize(string(s))
				}
			} else {
				size += len(s)
			}
		}
		return size, true
	}
	return 0, false
}
