package attr

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func TestJSONPlain(t *testing.T) {
	long := strings.Repeat("abcdefgh", 5) // 40 bytes: the word-at-a-time path
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"x", true},
		{"sk-000017", true},
		{long, true},
		{"<a>&'/ ~", true},
		{"é", true},
		{long + "é" + long + "😀", true},
		{"\ufffd", true}, // a valid rune, written as is
		{"\"", false},
		{"\\", false},
		{"\x00", false},
		{"\x1f", false},
		{"\x7f", true},
		{long + "\n", false},
		{long + "\"" + long, false},
		{"\u2028", false},
		{long + "\u2029", false},
		{"\xff", false},
		{long + "\xe2\x80", false}, // truncated rune
		{"\xc0\xaf", false},        // overlong
		{"\xed\xa0\x80", false},    // surrogate
		{"é\n", false},
	} {
		if got := jsonPlain(tc.s); got != tc.want {
			t.Errorf("jsonPlain(%q): got %v, want %v", tc.s, got, tc.want)
		}
		if got := jsonPlain([]byte(tc.s)); got != tc.want {
			t.Errorf("jsonPlain([]byte(%q)): got %v, want %v", tc.s, got, tc.want)
		}
		if got, want := jsonPlain(tc.s), string(appendJSONBody(nil, tc.s)) == tc.s; got != want {
			t.Errorf("jsonPlain(%q) = %v, but the escaper writes it unchanged: %v", tc.s, got, want)
		}
	}
}

// TestJSONPlainEveryByte puts every byte value at every position of a
// 20-byte string: jsonPlain must say exactly when the escaper leaves the
// string alone.
func TestJSONPlainEveryByte(t *testing.T) {
	base := []byte("abcdefghijklmnopqrst")
	for c := range 256 {
		for pos := range base {
			s := append([]byte(nil), base...)
			s[pos] = byte(c)
			if got, want := jsonPlain(s), bytes.Equal(appendJSONBody(nil, s), s); got != want {
				t.Fatalf("jsonPlain(%q): got %v, want %v", s, got, want)
			}
		}
	}
}

// TestBinaryMarks pins the version 3 layout: which type bytes carry the
// plain mark. Each map has one member, so the bytes are deterministic.
func TestBinaryMarks(t *testing.T) {
	const pS, pN, pM, pSS, pNS = byte(tagPlainS), byte(tagPlainN), byte(tagPlainM), byte(tagPlainSS), byte(tagPlainNS)
	const S, M, L, SS, B = byte(TypeS), byte(TypeM), byte(TypeL), byte(TypeSS), byte(TypeB)
	for _, tc := range []struct {
		name string
		it   Item
		body []byte // after the version and size
	}{
		{"empty item", Item{}, []byte{pM, 0}},
		{"plain S", Item{"a": String("x")}, []byte{pM, 1, 1, 'a', pS, 1, 'x'}},
		{"empty S", Item{"a": String("")}, []byte{pM, 1, 1, 'a', pS, 0}},
		{"non-ASCII S", Item{"a": String("é")}, []byte{pM, 1, 1, 'a', pS, 2, 0xc3, 0xa9}},
		{"quote", Item{"a": String(`"`)}, []byte{pM, 1, 1, 'a', S, 1, '"'}},
		{"U+2028", Item{"a": String("\u2028")}, []byte{pM, 1, 1, 'a', S, 3, 0xe2, 0x80, 0xa8}},
		{"invalid UTF-8", Item{"a": String("\xff")}, []byte{pM, 1, 1, 'a', S, 1, 0xff}},
		{"name escaped", Item{"\n": String("x")}, []byte{M, 1, 1, '\n', pS, 1, 'x'}},
		{"N", Item{"a": num("1")}, []byte{pM, 1, 1, 'a', pN, 1, '1'}},
		{"plain SS", Item{"a": StringSet("x", "y")}, []byte{pM, 1, 1, 'a', pSS, 2, 1, 'x', 1, 'y'}},
		{"SS one escaped", Item{"a": StringSet("x", "\t")}, []byte{pM, 1, 1, 'a', SS, 2, 1, 'x', 1, '\t'}},
		{"NS", Item{"a": Value{T: TypeNS, SS: []string{"1"}}}, []byte{pM, 1, 1, 'a', pNS, 1, 1, '1'}},
		{"M plain names", Item{"a": Map(map[string]Value{"b": String(`"`)})}, []byte{pM, 1, 1, 'a', pM, 1, 1, 'b', S, 1, '"'}},
		{"M escaped name", Item{"a": Map(map[string]Value{`"`: String("x")})}, []byte{pM, 1, 1, 'a', M, 1, 1, '"', pS, 1, 'x'}},
		{"empty M", Item{"a": Map(map[string]Value{})}, []byte{pM, 1, 1, 'a', pM, 0}},
		{"L", Item{"a": List([]Value{String("x"), String(`\`)})}, []byte{pM, 1, 1, 'a', L, 2, pS, 1, 'x', S, 1, '\\'}},
		{"B never marked", Item{"a": Binary([]byte{'x'})}, []byte{pM, 1, 1, 'a', B, 1, 'x'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendBinary(nil, tc.it)
			want := append([]byte{binaryVersion, byte(tc.it.Size())}, tc.body...)
			if !bytes.Equal(got, want) {
				t.Errorf("got %x, want %x", got, want)
			}
		})
	}
}

// markedItems have plain and escaped text in every position a mark covers.
func markedItems() map[string]Item {
	plain, esc := "plain text é", "needs \"escape\"\n"
	long := strings.Repeat("x", 200)
	return map[string]Item{
		"top": {"p": String(plain), "e": String(esc), "long": String(long), "long esc": String(long + "\\"),
			"n": num("-1.5e3"), "u2028": String("a\u2028"), "bad": String("\xff\xfe"), "": String("")},
		"names": {"plain": Null(), "tab\there": Null(), "é": Bool(true), "\u2029": Null(), "\xff": Null()},
		"map": {"m": Map(map[string]Value{"p": String(plain), "e": String(esc),
			"inner": Map(map[string]Value{"q\"": String(plain)})})},
		"list": {"l": List([]Value{String(plain), String(esc), num("7"), List([]Value{String(esc)}),
			Map(map[string]Value{"x": String(plain)}), StringSet(plain, esc)})},
		"sets": {"ssp": StringSet(plain, long), "sse": StringSet(plain, esc), "ns": Value{T: TypeNS, SS: []string{"1", "2.5"}},
			"bs": BinarySet([]byte{'"'}, []byte{0xff})},
		"query":  queryBenchItem(),
		"sample": sampleItem(),
	}
}

// TestBinaryMarkedRoundTrip: with marks, every reader agrees with the item
// the encoding was made from, and AppendBinaryJSON writes what
// AppendItemJSON writes.
func TestBinaryMarkedRoundTrip(t *testing.T) {
	for name, it := range markedItems() {
		t.Run(name, func(t *testing.T) {
			enc := AppendBinary(nil, it)
			checkEncodingReads(t, enc, it)
		})
	}
}

// TestBinaryVersion2Fixtures: items stored by the version 2 writer, and the
// same bodies as version 1, decode and render exactly as they did.
func TestBinaryVersion2Fixtures(t *testing.T) {
	for _, fx := range v2Fixtures {
		t.Run(fx.name, func(t *testing.T) {
			v2, err := hex.DecodeString(fx.hex)
			if err != nil {
				t.Fatal(err)
			}
			h, ok := binaryBody(v2)
			if !ok || v2[0] != binaryVersion2 {
				t.Fatalf("fixture is not version 2: %x", v2[:4])
			}
			v1 := append([]byte{binaryVersion1}, v2[h.start:]...)
			for _, enc := range [][]byte{v2, v1} {
				it, err := DecodeBinary(enc)
				if err != nil {
					t.Fatalf("version %d: DecodeBinary: %v", enc[0], err)
				}
				if got := AppendItemJSON(nil, it); string(got) != fx.json {
					t.Errorf("version %d: decoded item renders as\n%s\nwant\n%s", enc[0], got, fx.json)
				}
				checkEncodingReads(t, enc, it)
				// Rewritten by today's writer, it renders the same.
				if got, err := AppendBinaryJSON(nil, AppendBinary(nil, it)); err != nil || string(got) != fx.json {
					t.Errorf("version %d re-encoded: got %s, %v\nwant %s", enc[0], got, err, fx.json)
				}
			}
		})
	}
}

// checkEncodingReads checks every reader of enc against it, the item enc
// holds.
func checkEncodingReads(t *testing.T, enc []byte, it Item) {
	t.Helper()
	got, err := AppendBinaryJSON(nil, enc)
	if want := AppendItemJSON(nil, it); err != nil || !bytes.Equal(got, want) {
		t.Errorf("AppendBinaryJSON: got %s, %v\nwant %s", got, err, want)
	}
	if dec, err := DecodeBinary(enc); err != nil || !Equal(Map(dec), Map(it)) {
		t.Errorf("DecodeBinary: got %v, %v; want %v", dec, err, it)
	}
	if n, err := BinarySize(enc); err != nil || n != it.Size() {
		t.Errorf("BinarySize: got %d, %v; want %d", n, err, it.Size())
	}
	for name, v := range it {
		names := []string{name, "absent"}
		part, err := DecodeBinaryNames(enc, names)
		if err != nil || len(part) != 1 || !Equal(part[name], v) {
			t.Errorf("DecodeBinaryNames(%q): got %v, %v; want %v", name, part, err, v)
		}
		into := Item{"stale": Null()}
		if n, err := BinarySizeNames(enc, names, into); err != nil || n != it.Size() || len(into) != 1 || !Equal(into[name], v) {
			t.Errorf("BinarySizeNames(%q): got %d, %v, %v; want %d, %v", name, n, into, err, it.Size(), v)
		}
	}
}

func TestBinaryMarkCorrupt(t *testing.T) {
	// v3 wraps a top-level body ("a" and its value) in a version 3 header.
	v3 := func(value ...byte) []byte {
		return append([]byte{binaryVersion, 9, byte(tagPlainM), 1, 1, 'a'}, value...)
	}
	v1 := func(value ...byte) []byte { return append([]byte{binaryVersion1, 1, 1, 'a'}, value...) }
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"mark alone", v3(plainMark)},
		{"marked B", v3(byte(TypeB|plainMark), 1, 'x')},
		{"marked BOOL", v3(byte(TypeBOOL|plainMark), 1)},
		{"marked NULL", v3(byte(TypeNULL | plainMark))},
		{"marked L", v3(byte(TypeL|plainMark), 0)},
		{"marked BS", v3(byte(TypeBS|plainMark), 0)},
		{"marked type 11", v3(11|plainMark, 0)},
		{"all bits", v3(0xff, 0)},
		{"plain S truncated", v3(byte(tagPlainS), 2, 'x')},
		{"plain S no length", v3(byte(tagPlainS))},
		{"plain N long length beyond end", v3(byte(tagPlainN), 0x80, 0x01, '1')},
		{"plain M bad value", v3(byte(tagPlainM), 1, 1, 'b', 99)},
		{"plain M name beyond end", v3(byte(tagPlainM), 1, 5, 'b')},
		{"plain SS truncated", v3(byte(tagPlainSS), 2, 1, 'x')},
		{"plain NS huge count", v3(byte(tagPlainNS), 0xff, 0x7f)},
		{"plain S trailing", append(v3(byte(tagPlainS), 1, 'x'), 0)},
		{"version 1 marked B", v1(byte(TypeB|plainMark), 1, 'x')},
		{"version 1 plain S truncated", v1(byte(tagPlainS), 3, 'x')},
		{"item tag marked NULL", []byte{binaryVersion, 0, byte(TypeNULL | plainMark), 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeBinary(tc.b); err == nil {
				t.Errorf("DecodeBinary: got nil error, want one")
			}
			if _, err := AppendBinaryJSON(nil, tc.b); err == nil {
				t.Errorf("AppendBinaryJSON: got nil error, want one")
			}
			if _, err := DecodeBinaryNames(tc.b, []string{"a"}); err == nil {
				t.Errorf("DecodeBinaryNames: got nil error, want one")
			}
			if _, err := BinarySizeNames(tc.b, []string{"a"}, Item{}); err == nil {
				t.Errorf("BinarySizeNames: got nil error, want one")
			}
			if _, err := BinarySize(tc.b); tc.b[0] == binaryVersion1 && err == nil {
				t.Errorf("BinarySize (version 1): got nil error, want one")
			}
		})
	}
}

// TestBinaryMarkTrusted documents that the mark is trusted, not checked: a
// marked text that needs escaping (which AppendBinary never writes)
// decodes to the same value, and the transcoder copies it as is.
func TestBinaryMarkTrusted(t *testing.T) {
	b := []byte{binaryVersion, 2, byte(tagPlainM), 1, 1, 'a', byte(tagPlainS), 1, '"'}
	it, err := DecodeBinary(b)
	if want := (Item{"a": String(`"`)}); err != nil || !Equal(Map(it), Map(want)) {
		t.Errorf("DecodeBinary: got %v, %v; want %v", it, err, want)
	}
	if got, want := string(mustAppendBinaryJSON(t, b)), `{"a":{"S":"""}}`; got != want {
		t.Errorf("AppendBinaryJSON: got %s, want %s", got, want)
	}
}

func mustAppendBinaryJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := AppendBinaryJSON(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// encodingFacts walks an encoding that DecodeBinary accepts and reports
// whether every plain mark in it is true (the marked text is what the
// escaper writes unchanged) and whether no map in it repeats a name. Fuzz
// targets compare AppendBinaryJSON with AppendItemJSON only when both hold.
func encodingFacts(b []byte) (marksHold, unique bool) {
	h, ok := binaryBody(b)
	if !ok {
		return false, false
	}
	f := factWalker{w: binWalker{b: b, i: h.start}, marksHold: true, unique: true}
	f.members(h.plainNames)
	return f.marksHold, f.unique
}

type factWalker struct {
	w                 binWalker
	marksHold, unique bool
}

func (f *factWalker) text(s []byte, marked bool) {
	if marked && !bytes.Equal(appendJSONBody(nil, s), s) {
		f.marksHold = false
	}
}

func (f *factWalker) members(marked bool) {
	n, _ := f.w.count()
	seen := map[string]bool{}
	for range n {
		k, _ := f.w.bytes()
		if seen[string(k)] {
			f.unique = false
		}
		seen[string(k)] = true
		f.text(k, marked)
		f.value()
	}
}

func (f *factWalker) value() {
	if f.w.i >= len(f.w.b) {
		return
	}
	c := f.w.b[f.w.i]
	f.w.i++
	marked := c&plainMark != 0
	switch t := storedType(c); t {
	case TypeS, TypeN:
		s, _ := f.w.bytes()
		f.text(s, marked)
	case TypeB:
		f.w.bytes()
	case TypeBOOL:
		f.w.i++
	case TypeM:
		f.members(marked)
	case TypeL:
		n, _ := f.w.count()
		for range n {
			f.value()
		}
	case TypeSS, TypeNS, TypeBS:
		n, _ := f.w.count()
		for range n {
			s, _ := f.w.bytes()
			f.text(s, marked)
		}
	}
}
