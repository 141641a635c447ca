package attr

import (
	"testing"
)

// sampleItem has every type, nesting, empty strings and binaries, and
// non-ASCII text.
func sampleItem() Item {
	return Item{
		"pk":    String("user#123"),
		"sk":    num("-12.5"),
		"empty": String(""),
		"uni":   String("héllo 😀"),
		"bin":   Binary([]byte{0, 1, 0xFF}),
		"nobin": Binary([]byte{}),
		"t":     Bool(true),
		"f":     Bool(false),
		"null":  Null(),
		"ss":    StringSet("a", "b"),
		"ns":    Value{T: TypeNS, SS: []string{"1", "0.5"}},
		"bs":    BinarySet([]byte{1}, []byte{}),
		"m": Map(map[string]Value{
			"l":     List([]Value{num("1"), Map(map[string]Value{}), List(nil)}),
			"":      String("empty name"),
			"inner": Map(map[string]Value{"x": Null()}),
		}),
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	for _, it := range []Item{sampleItem(), {}, nil, {"deep": mustDeep(MaxNestingDepth)}} {
		b := AppendBinary(nil, it)
		got, err := DecodeBinary(b)
		if err != nil {
			t.Fatalf("DecodeBinary(AppendBinary(%v)): %v", it, err)
		}
		if !Equal(Map(got), Map(it)) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, it)
		}
		if got == nil {
			t.Errorf("DecodeBinary returned a nil Item")
		}
		// The result must not alias the input buffer.
		for i := range b {
			b[i] = 0xAA
		}
		if !Equal(Map(got), Map(it)) {
			t.Errorf("decoded item changed when the buffer was overwritten")
		}
	}
}

func TestDecodeBinaryCorrupt(t *testing.T) {
	good := AppendBinary(nil, sampleItem())
	// Every truncation must fail cleanly.
	for n := 0; n < len(good); n++ {
		if _, err := DecodeBinary(good[:n]); err == nil {
			t.Errorf("DecodeBinary(truncated to %d of %d) = nil error", n, len(good))
		}
	}
	tests := [][]byte{
		nil,
		{2, 0},                              // unknown version
		{1, 0, 0},                           // trailing bytes
		{1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F},   // huge count
		{1, 1, 1, 'a', 99},                  // unknown type
		{1, 1, 1, 'a', byte(TypeBOOL), 2},   // bad bool
		{1, 1, 1, 'a', byte(TypeS), 5, 'x'}, // short string
		{1, 1, 1, 'a', byte(TypeS), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, // varint overflow
	}
	for _, b := range tests {
		if _, err := DecodeBinary(b); err == nil {
			t.Errorf("DecodeBinary(%x) = nil error", b)
		}
	}
	// Nesting beyond the bound is refused rather than recursed into.
	deep := []byte{1, 1, 1, 'a'}
	for range maxBinaryDepth + 2 {
		deep = append(deep, byte(TypeL), 1)
	}
	deep = append(deep, byte(TypeNULL))
	if _, err := DecodeBinary(deep); err == nil {
		t.Errorf("DecodeBinary(too deep) = nil error")
	}
}
