package attr

import (
	"encoding/binary"
	"maps"
	"slices"
)

// The storage codec. Layout (uvarint = encoding/binary's unsigned varint):
//
//	item   = 3:byte size:uvarint mtag:byte count:uvarint { name:bytes value }
//	         (version 2, still read: 2:byte size:uvarint count:uvarint { name:bytes value };
//	          version 1, still read: 1:byte count:uvarint { name:bytes value })
//	value  = type:byte payload
//	S N B  = bytes                      (N holds the canonical text)
//	BOOL   = 0 | 1                      NULL = nothing
//	M      = count:uvarint { name:bytes value }
//	L      = count:uvarint { value }
//	SS NS BS = count:uvarint { bytes }
//	bytes  = length:uvarint raw
//
// type is the Type, with the plainMark bit (0x80) set on S, N, SS, NS and
// M when every text the value writes directly (its bytes, its members, its
// names) needs no JSON escaping (binary_plain.go). mtag is the type byte of
// the item itself as a map: TypeM, marked when every top-level name is
// plain. Versions 1 and 2 were written without marks; readers accept a
// mark in any version, as it changes no decoded Value.
//
// The version byte lets layouts coexist with stored data. Version 2 records
// the item's size (Item.Size) up front, so a Scan that needs only sizes and
// a filter's attributes never walks the rest; version 3 adds the marks, so
// a read writes stored text into its response without scanning it.
const (
	binaryVersion1 = 1
	binaryVersion2 = 2
	binaryVersion  = 3
)

// binaryHeader is what an encoded item's header says.
type binaryHeader struct {
	start      int  // where the attribute count starts
	size       int  // the recorded Item.Size (sized versions only)
	sized      bool // whether size was recorded (version 2 and later)
	plainNames bool // whether every top-level name is marked plain
}

// binaryBody reads the header of an encoded item.
func binaryBody(b []byte) (binaryHeader, bool) {
	if len(b) == 0 {
		return binaryHeader{}, false
	}
	switch b[0] {
	case binaryVersion, binaryVersion2:
		n, w := binary.Uvarint(b[1:])
		if w <= 0 || n > 1<<40 {
			return binaryHeader{}, false
		}
		h := binaryHeader{start: 1 + w, size: int(n), sized: true}
		if b[0] == binaryVersion2 {
			return h, true
		}
		if h.start >= len(b) {
			return binaryHeader{}, false
		}
		switch b[h.start] {
		case byte(tagPlainM):
			h.plainNames = true
		case byte(TypeM):
		default:
			return binaryHeader{}, false
		}
		h.start++
		return h, true
	case binaryVersion1:
		return binaryHeader{start: 1}, true
	}
	return binaryHeader{}, false
}

// maxBinaryDepth bounds container nesting while decoding, so corrupt input
// cannot recurse without limit; valid items nest at most MaxNestingDepth.
const maxBinaryDepth = MaxNestingDepth + 8

func errCorrupt() error { return ErrCorrupt }

// AppendBinary appends the compact storage encoding of it to dst and
// returns the extended slice. Attribute order is map order, so two
// encodings of one item may differ byte for byte; DecodeBinary reads either.
func AppendBinary(dst []byte, it Item) []byte {
	return AppendBinarySized(dst, it, it.Size())
}

// AppendBinarySized is AppendBinary for a caller that already knows
// it.Size(), which the encoding records; size must be exactly that.
func AppendBinarySized(dst []byte, it Item, size int) []byte {
	dst = append(dst, binaryVersion)
	dst = binary.AppendUvarint(dst, uint64(size))
	return appendBinaryMembers(dst, it, false)
}

// appendBinarySorted is AppendBinary with the names of every map in
// order, so that equal items encode to equal bytes (see EncodeItem).
func appendBinarySorted(dst []byte, it Item) []byte {
	dst = append(dst, binaryVersion)
	dst = binary.AppendUvarint(dst, uint64(it.Size()))
	return appendBinaryMembers(dst, it, true)
}

// appendBinaryMembers appends an M value (type byte, marked once all names
// are known to be plain, and payload), its names in map order or, when
// sorted, in byte order at every level.
func appendBinaryMembers(dst []byte, m map[string]Value, sorted bool) []byte {
	at := len(dst)
	dst = append(dst, byte(TypeM))
	dst = binary.AppendUvarint(dst, uint64(len(m)))
	plain := true
	if sorted {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			plain = plain && jsonPlain(k)
			dst = appendBinaryValue(appendBytes(dst, k), m[k], true)
		}
	} else {
		for k, v := range m {
			plain = plain && jsonPlain(k)
			dst = appendBinaryValue(appendBytes(dst, k), v, false)
		}
	}
	dst[at] = markIf(TypeM, plain)
	return dst
}

func appendBytes[T string | []byte](dst []byte, s T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// appendBinaryValue appends v; sorted is appendBinaryMembers'.
func appendBinaryValue(dst []byte, v Value, sorted bool) []byte {
	switch v.T {
	case TypeS, TypeN:
		dst = append(dst, markIf(v.T, jsonPlain(v.S)))
		return appendBytes(dst, v.S)
	case TypeM:
		return appendBinaryMembers(dst, v.M, sorted)
	case TypeSS, TypeNS:
		at := len(dst)
		dst = append(dst, byte(v.T))
		dst = binary.AppendUvarint(dst, uint64(len(v.SS)))
		plain := true
		for _, s := range v.SS {
			plain = plain && jsonPlain(s)
			dst = appendBytes(dst, s)
		}
		dst[at] = markIf(v.T, plain)
		return dst
	}
	dst = append(dst, byte(v.T))
	switch v.T {
	case TypeB:
		dst = appendBytes(dst, v.B)
	case TypeBOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case TypeL:
		dst = binary.AppendUvarint(dst, uint64(len(v.L)))
		for _, e := range v.L {
			dst = appendBinaryValue(dst, e, sorted)
		}
	case TypeBS:
		dst = binary.AppendUvarint(dst, uint64(len(v.BS)))
		for _, b := range v.BS {
			dst = appendBytes(dst, b)
		}
	}
	return dst
}

// DecodeBinary decodes an item written by AppendBinary. The result does not
// alias b, so b may be reused (or be memory that is only valid inside a
// store transaction). It never panics: corrupt or truncated input yields an
// error. An empty item decodes as a non-nil empty Item.
func DecodeBinary(b []byte) (Item, error) {
	h, ok := binaryBody(b)
	if !ok {
		return nil, errCorrupt()
	}
	// One copy for the whole item; names and strings are slices of it.
	d := binDecoder{s: string(b[h.start:])}
	n, ok := d.count()
	if !ok {
		return nil, errCorrupt()
	}
	it := make(Item, n)
	for range n {
		k, ok := d.str()
		if !ok {
			return nil, errCorrupt()
		}
		v, ok := d.value(0)
		if !ok {
			return nil, errCorrupt()
		}
		it[k] = v
	}
	if d.i != len(d.s) {
		return nil, errCorrupt()
	}
	return it, nil
}

type binDecoder struct {
	s string
	i int
}

func (d *binDecoder) uvarint() (uint64, bool) {
	var x uint64
	var shift uint
	for j := 0; j < binary.MaxVarintLen64; j++ {
		if d.i >= len(d.s) {
			return 0, false
		}
		c := d.s[d.i]
		d.i++
		if c < 0x80 {
			if j == binary.MaxVarintLen64-1 && c > 1 {
				return 0, false
			}
			return x | uint64(c)<<shift, true
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, false
}

// count reads an element count; every element takes at least one byte, so
// a count larger than what is left is corrupt (and must not be allocated).
func (d *binDecoder) count() (int, bool) {
	n, ok := d.uvarint()
	if !ok || n > uint64(len(d.s)-d.i) {
		return 0, false
	}
	return int(n), true
}

func (d *binDecoder) str() (string, bool) {
	n, ok := d.uvarint()
	if !ok || n > uint64(len(d.s)-d.i) {
		return "", false
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s, true
}

// mapValue reads an M's members, its type byte already read.
func (d *binDecoder) mapValue(depth int) (Value, bool) {
	if depth >= maxBinaryDepth {
		return Value{}, false
	}
	n, ok := d.count()
	if !ok {
		return Value{}, false
	}
	m := make(map[string]Value, n)
	for range n {
		k, ok := d.str()
		if !ok {
			return Value{}, false
		}
		e, ok := d.value(depth + 1)
		if !ok {
			return Value{}, false
		}
		m[k] = e
	}
	return Value{T: TypeM, M: m}, true
}

// listValue reads an L's elements, its type byte already read.
func (d *binDecoder) listValue(depth int) (Value, bool) {
	if depth >= maxBinaryDepth {
		return Value{}, false
	}
	n, ok := d.count()
	if !ok {
		return Value{}, false
	}
	l := make([]Value, n)
	for i := range l {
		if l[i], ok = d.value(depth + 1); !ok {
			return Value{}, false
		}
	}
	return Value{T: TypeL, L: l}, true
}

func (d *binDecoder) value(depth int) (Value, bool) {
	if d.i >= len(d.s) {
		return Value{}, false
	}
	t := storedType(d.s[d.i])
	d.i++
	switch t {
	case TypeS, TypeN:
		s, ok := d.str()
		return Value{T: t, S: s}, ok
	case TypeB:
		s, ok := d.str()
		return Value{T: t, B: []byte(s)}, ok
	case TypeBOOL:
		if d.i >= len(d.s) || d.s[d.i] > 1 {
			return Value{}, false
		}
		d.i++
		return Value{T: t, Bool: d.s[d.i-1] == 1}, true
	case TypeNULL:
		return Value{T: t, Bool: true}, true
	case TypeM:
		return d.mapValue(depth)
	case TypeL:
		return d.listValue(depth)
	case TypeSS, TypeNS:
		n, ok := d.count()
		if !ok {
			return Value{}, false
		}
		ss := make([]string, n)
		for i := range ss {
			if ss[i], ok = d.str(); !ok {
				return Value{}, false
			}
		}
		return Value{T: t, SS: ss}, true
	case TypeBS:
		n, ok := d.count()
		if !ok {
			return Value{}, false
		}
		bs := make([][]byte, n)
		for i := range bs {
			s, ok := d.str()
			if !ok {
				return Value{}, false
			}
			bs[i] = []byte(s)
		}
		return Value{T: t, BS: bs}, true
	}
	return Value{}, false
}
