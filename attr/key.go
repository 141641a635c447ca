package attr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"
)

// Number key encoding: a tag byte orders negatives < zero < positives; then
// the scientific exponent, then the digits two per byte, then a terminator.
// For negatives every byte after the tag is complemented so that larger
// magnitudes sort first.
const (
	keyTagNeg  = 0x40
	keyTagZero = 0x80
	keyTagPos  = 0xC0
	// keyPosEnd ends a positive mantissa; it sorts below every digit pair
	// byte (1..100), so a shorter mantissa (a prefix) sorts first.
	keyPosEnd = 0x00
	// keyNegEnd ends a negative mantissa; it sorts above every complemented
	// digit pair byte (155..254), so a shorter negative mantissa sorts last.
	keyNegEnd = 0xFF
)

// String/binary key encoding: 0x00 is escaped as 0x00 0xFF and the value
// ends with 0x00 0x01, which keeps byte order and makes the encoding
// self-delimiting.
const (
	keyEscape = 0xFF
	keyEnd    = 0x01
)

// errBadKey is returned by DecodeKey for bytes AppendKey cannot have made.
func errBadKey() error { return ErrBadKey }

// AppendKey appends the order-preserving, self-delimiting encoding of the
// key value v to dst and returns the extended slice. For values a and b of
// the same type, bytes.Compare(AppendKey(nil, a), AppendKey(nil, b)) has the
// sign of Compare(a, b), and no encoding is a proper prefix of another, so
// encodings can be concatenated and split again with DecodeKey. The type is
// not encoded: the key schema says what it is.
//
// Only S, N and B are key types. For any other type, or an N whose text is
// not a valid number, AppendKey returns dst unchanged; callers validate keys
// first.
func AppendKey(dst []byte, v Value) []byte {
	switch v.T {
	case TypeS:
		return appendEscaped(dst, v.S)
	case TypeB:
		return appendEscapedBytes(dst, v.B)
	case TypeN:
		var buf [48]byte
		d, err := parseDecimal(v.S, buf[:0])
		if err != nil || d.check() != nil {
			return dst
		}
		return appendNumberKey(dst, d)
	}
	return dst
}

// appendEscaped appends s with each 0x00 byte escaped, then the end mark.
func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			return append(dst, 0, keyEnd)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0, keyEscape)
		s = s[i+1:]
	}
}

// appendEscapedBytes is appendEscaped for a binary value, read in place.
func appendEscapedBytes(dst []byte, b []byte) []byte {
	return appendEscaped(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

func appendNumberKey(dst []byte, d decimal) []byte {
	if len(d.digits) == 0 {
		return append(dst, keyTagZero)
	}
	// exp is within [-130, 125], so exp+130 fits one byte.
	e := byte(d.exp - minExponent)
	if d.neg {
		dst = append(dst, keyTagNeg, ^e)
	} else {
		dst = append(dst, keyTagPos, e)
	}
	for i := 0; i < len(d.digits); i += 2 {
		p := (d.digits[i] - '0') * 10
		if i+1 < len(d.digits) {
			p += d.digits[i+1] - '0'
		}
		if d.neg {
			dst = append(dst, 254-p)
		} else {
			dst = append(dst, p+1)
		}
	}
	if d.neg {
		return append(dst, keyNegEnd)
	}
	return append(dst, keyPosEnd)
}

// DecodeKey decodes one key value of type t (S, N or B) from the front of b,
// as written by AppendKey, and returns it with the bytes that follow it. The
// returned value does not alias b. The error reports bytes AppendKey could
// not have produced, or a type that is not a key type.
func DecodeKey(b []byte, t Type) (v Value, rest []byte, err error) {
	switch t {
	case TypeS, TypeB:
		raw, rest, err := decodeEscaped(b)
		if err != nil {
			return Value{}, nil, err
		}
		if t == TypeS {
			return Value{T: TypeS, S: string(raw)}, rest, nil
		}
		return Value{T: TypeB, B: raw}, rest, nil
	case TypeN:
		return decodeNumberKey(b)
	}
	return Value{}, nil, fmt.Errorf("%w: %s", ErrNotKeyType, t)
}

// decodeEscaped returns a fresh copy of the unescaped bytes.
func decodeEscaped(b []byte) (raw, rest []byte, err error) {
	out := []byte{}
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 || i+1 >= len(b) {
			return nil, nil, errBadKey()
		}
		out = append(out, b[:i]...)
		switch b[i+1] {
		case keyEnd:
			return out, b[i+2:], nil
		case keyEscape:
			out = append(out, 0)
			b = b[i+2:]
		default:
			return nil, nil, errBadKey()
		}
	}
}

func decodeNumberKey(b []byte) (Value, []byte, error) {
	if len(b) == 0 {
		return Value{}, nil, errBadKey()
	}
	switch b[0] {
	case keyTagZero:
		return Value{T: TypeN, S: "0"}, b[1:], nil
	case keyTagPos, keyTagNeg:
	default:
		return Value{}, nil, errBadKey()
	}
	neg := b[0] == keyTagNeg
	if len(b) < 2 {
		return Value{}, nil, errBadKey()
	}
	e := b[1]
	if neg {
		e = ^e
	}
	d := decimal{neg: neg, exp: int(e) + minExponent}
	var buf [40]byte
	digits := buf[:0]
	end := byte(keyPosEnd)
	if neg {
		end = keyNegEnd
	}
	i := 2
	for ; ; i++ {
		if i >= len(b) {
			return Value{}, nil, errBadKey()
		}
		c := b[i]
		if c == end {
			break
		}
		var p byte
		if neg {
			if c < 155 {
				return Value{}, nil, errBadKey()
			}
			p = 254 - c
		} else {
			if c < 1 || c > 100 {
				return Value{}, nil, errBadKey()
			}
			p = c - 1
		}
		if len(digits) >= maxDigits {
			return Value{}, nil, errBadKey()
		}
		digits = append(digits, '0'+p/10, '0'+p%10)
	}
	// Only the padding of an odd digit count can end in zero.
	if len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 || digits[0] == '0' || digits[len(digits)-1] == '0' {
		return Value{}, nil, errBadKey()
	}
	d.digits = digits
	if d.check() != nil {
		return Value{}, nil, errBadKey()
	}
	var out [136]byte
	return Value{T: TypeN, S: string(d.appendCanonical(out[:0]))}, b[i+1:], nil
}

// HashPrefixLen is the length of the partition-hash prefix that begins
// every table and index storage key (see AppendHashPrefix).
const HashPrefixLen = 8

// AppendHashPrefix appends the storage-key prefix for partition hash h (a
// PartitionHash, or a bound of a slice of the hash space): h as HashPrefixLen
// big-endian bytes, so keys sort by hash first and partitions spread over
// the key space.
func AppendHashPrefix(dst []byte, h uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, h)
}

// PartitionHash returns a stable 64-bit hash of the partition key value pk
// (S, N or B): FNV-1a over the type and the value's bytes, then the
// splitmix64 finaliser so that the hashes of similar keys spread over the
// whole uint64 range. Numerically equal N values hash equally. The result
// never changes across runs, machines or versions, because storage keys
// begin with it.
func PartitionHash(pk Value) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	h = (h ^ uint64(pk.T)) * prime
	switch pk.T {
	case TypeS:
		for i := 0; i < len(pk.S); i++ {
			h = (h ^ uint64(pk.S[i])) * prime
		}
	case TypeN:
		s := pk.S
		if !looksCanonical(s) {
			if c, err := ParseNumber(s); err == nil {
				s = c
			}
		}
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime
		}
	case TypeB:
		for _, c := range pk.B {
			h = (h ^ uint64(c)) * prime
		}
	}
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
	h = (h ^ (h >> 27)) * 0x94d049bb133111eb
	return h ^ (h >> 31)
}
