package attr

import (
	"encoding/binary"
	"errors"
)

// The storage codec. Layout (uvarint = encoding/binary's unsigned varint):
//
//	item   = 2:byte size:uvarint count:uvarint { name:bytes value }
//	         (version 1, still read: 1:byte count:uvarint { name:bytes value })
//	value  = type:byte payload
//	S N B  = bytes                      (N holds the canonical text)
//	BOOL   = 0 | 1                      NULL = nothing
//	M      = count:uvarint { name:bytes value }
//	L      = count:uvarint { value }
//	SS NS BS = count:uvarint { bytes }
//	bytes  = length:uvarint raw
//
// The version byte lets layouts coexist with stored data. Version 2 records
// the item's size (Item.Size) up front, so a Scan that needs only sizes and
// a filter's attributes never walks the rest.
const (
	binaryVersion1 = 1
	binaryVersion  = 2
)

// binaryBody returns where the attributes of an encoded item start and, for
// version 2, its recorded size (sized false for version 1).
func binaryBody(b []byte) (start, size int, sized, ok bool) {
	if len(b) == 0 {
		return 0, 0, false, false
	}
	switch b[0] {
	case binaryVersion1:
		return 1, 0, false, true
	case binaryVersion:
		n, w := binary.Uvarint(b[1:])
		if w <= 0 || n > 1<<40 {
			return 0, 0, false, false
		}
		return 1 + w, int(n), true, true
	}
	return 0, 0, false, false
}

// maxBinaryDepth bounds container nesting while decoding, so corrupt input
// cannot recurse without limit; valid items nest at most MaxNestingDepth.
const maxBinaryDepth = MaxNestingDepth + 8

func errCorrupt() error { return errors.New("attr: corrupt item encoding") }

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
	dst = binary.AppendUvarint(dst, uint64(len(it)))
	for k, v := range it {
		dst = appendBytes(dst, k)
		dst = appendBinaryValue(dst, v)
	}
	return dst
}

func appendBytes[T string | []byte](dst []byte, s T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendBinaryValue(dst []byte, v Value) []byte {
	dst = append(dst, byte(v.T))
	switch v.T {
	case TypeS, TypeN:
		dst = appendBytes(dst, v.S)
	case TypeB:
		dst = appendBytes(dst, v.B)
	case TypeBOOL:
		if v.Bool {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case TypeM:
		dst = binary.AppendUvarint(dst, uint64(len(v.M)))
		for k, e := range v.M {
			dst = appendBytes(dst, k)
			dst = appendBinaryValue(dst, e)
		}
	case TypeL:
		dst = binary.AppendUvarint(dst, uint64(len(v.L)))
		for _, e := range v.L {
			dst = appendBinaryValue(dst, e)
		}
	case TypeSS, TypeNS:
		dst = binary.AppendUvarint(dst, uint64(len(v.SS)))
		for _, s := range v.SS {
			dst = appendBytes(dst, s)
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
	start, _, _, ok := binaryBody(b)
	if !ok {
		return nil, errCorrupt()
	}
	// One copy for the whole item; names and strings are slices of it.
	d := binDecoder{s: string(b[start:])}
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

func (d *binDecoder) value(depth int) (Value, bool) {
	if d.i >= len(d.s) {
		return Value{}, false
	}
	t := Type(d.s[d.i])
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
		return Value{T: t, M: m}, true
	case TypeL:
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
		return Value{T: t, L: l}, true
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
