package attr

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// FuzzUnmarshalJSON: decoding never panics; whatever decodes re-encodes to
// JSON that decodes to an equal value and encodes identically, and passes
// Validate.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"S":"x"}`, `{"N":"-1.5e3"}`, `{"B":"AAEC"}`, `{"BOOL":true}`, `{"NULL":true}`,
		`{"M":{"a":{"L":[{"S":"x"},{"NS":["1","2"]}]}}}`, `{"SS":["a","b"]}`, `{"BS":["AQ=="]}`,
		`{"S":"\u00e9\ud83d\ude00\n"}`, `{}`, `{"S":1}`, `{"X":[1,{"y":null}],"S":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v Value
		if err := v.UnmarshalJSON(b); err != nil {
			return
		}
		if err := v.Validate(); err != nil {
			t.Fatalf("decoded value fails Validate: %v (%s)", err, b)
		}
		enc := AppendJSON(nil, v)
		var w Value
		if err := w.UnmarshalJSON(enc); err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		if !Equal(v, w) {
			t.Fatalf("round trip changed value: %s -> %s", b, enc)
		}
		if enc2 := AppendJSON(nil, w); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding not stable: %s vs %s", enc, enc2)
		}
		if _, err := DecodeBinary(AppendBinary(nil, Item{"a": v})); err != nil {
			t.Fatalf("binary round trip: %v", err)
		}
	})
}

// FuzzParseNumber: parsing never panics, canonical output is a fixed point,
// and its key encoding decodes back to it.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.50", "1e125", "1E-130", ".5", "5.", "+1e+2", "99999999999999999999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseNumber(s)
		if err != nil {
			return
		}
		if c2, err := ParseNumber(c); err != nil || c2 != c {
			t.Fatalf("ParseNumber(%q) = %q, not a fixed point (%q, %v)", s, c, c2, err)
		}
		v, rest, err := DecodeKey(AppendKey(nil, Value{T: TypeN, S: c}), TypeN)
		if err != nil || v.S != c || len(rest) != 0 {
			t.Fatalf("key round trip of %q: %q, %v", c, v.S, err)
		}
		if CompareNumbers(c, c) != 0 {
			t.Fatalf("CompareNumbers(%q, itself) != 0", c)
		}
	})
}

// FuzzKeyOrder: for two numbers or two strings, the key bytes order as
// Compare does, and a concatenation splits back.
func FuzzKeyOrder(f *testing.F) {
	f.Add("1", "2", false)
	f.Add("-1.5", "-1.25", false)
	f.Add("1e-130", "0", false)
	f.Add("a\x00", "a", true)
	f.Fuzz(func(t *testing.T, a, b string, str bool) {
		var va, vb Value
		if str {
			va, vb = String(a), String(b)
		} else {
			var err error
			if va, err = Number(a); err != nil {
				return
			}
			if vb, err = Number(b); err != nil {
				return
			}
		}
		checkKeyPair(t, va, vb)
	})
}

// FuzzDecodeBinary: corrupt input never panics, and what decodes re-encodes
// to an equal item, whose rendering through the plain marks is what
// AppendItemJSON writes.
func FuzzDecodeBinary(f *testing.F) {
	addBinarySeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := DecodeBinary(b)
		if err != nil {
			return
		}
		enc := AppendBinary(nil, it)
		again, err := DecodeBinary(enc)
		if err != nil || !Equal(Map(it), Map(again)) {
			t.Fatalf("re-encode of decoded item differs: %v", err)
		}
		got, err := AppendBinaryJSON(nil, enc)
		if want := AppendItemJSON(nil, it); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("rendering of re-encoded item: got %s, %v\nwant %s", got, err, want)
		}
	})
}

// addBinarySeeds adds encodings of every version, marked and not, to a
// fuzz target that takes one []byte.
func addBinarySeeds(f *testing.F) {
	for _, b := range binarySeeds(f) {
		f.Add(b)
	}
}

func binarySeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		AppendBinary(nil, sampleItem()),
		AppendBinary(nil, Item{}),
		{1, 1, 1, 'a', byte(TypeL), 1, byte(TypeNULL)},
		{binaryVersion, 2, byte(tagPlainM), 1, 1, 'a', byte(tagPlainS), 1, 'x'},
	}
	for _, it := range markedItems() {
		seeds = append(seeds, AppendBinary(nil, it))
	}
	for _, fx := range v2Fixtures {
		b, err := hex.DecodeString(fx.hex)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzDecodeKey: arbitrary bytes never panic DecodeKey, and what decodes
// re-encodes to the same bytes.
func FuzzDecodeKey(f *testing.F) {
	f.Add(AppendKey(nil, num("-12.5")), uint8(TypeN))
	f.Add(AppendKey(nil, String("a\x00b")), uint8(TypeS))
	f.Fuzz(func(t *testing.T, b []byte, ty uint8) {
		v, rest, err := DecodeKey(b, Type(ty))
		if err != nil {
			return
		}
		enc := AppendKey(nil, v)
		if !bytes.Equal(enc, b[:len(b)-len(rest)]) {
			t.Fatalf("DecodeKey(%x) = %+v, re-encodes as %x", b, v, enc)
		}
	})
}
