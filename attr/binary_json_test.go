package attr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendBinaryJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		it   Item
	}{
		{"sample", sampleItem()},
		{"empty", Item{}},
		{"escapes", Item{"q\"\n": String("<a>&\u2028\x01\xff"), "é": StringSet("\t", "ü")}},
		{"many names", func() Item {
			it := Item{}
			for _, c := range "zyxwvutsrqponmlkjihgfedcba" {
				it[string(c)] = Map(map[string]Value{string(c) + "2": Bool(true), string(c) + "1": Null()})
			}
			return it
		}()},
		{"deep", Item{"deep": mustDeep(MaxNestingDepth)}},
		// Lengths of 128 and more take two varint bytes: the slow path
		// of readBytes, for names, values, set members and binaries.
		{"long lengths", Item{
			strings.Repeat("n", 130): String(strings.Repeat("v", 127)),
			"s":                      String(strings.Repeat("w\"", 100)),
			"b":                      Binary(bytes.Repeat([]byte{0xfe}, 200)),
			"ss":                     StringSet(strings.Repeat("a", 128), "b"),
			"bs":                     BinarySet(bytes.Repeat([]byte{1}, 150)),
			"l":                      List([]Value{String(strings.Repeat("x", 129)), num("1")}),
		}},
		{"query item", queryBenchItem()},
		{"first bytes tie", Item{"ab": Null(), "a": Null(), "a\x00": Null(), "": Null(), "b": Null(), "aa": Null()}},
		{"nested many names", Item{"m": Map(func() map[string]Value {
			m := map[string]Value{}
			for i := range 40 {
				m[string(rune('A'+i))+"k"] = List([]Value{Map(map[string]Value{"z": Null(), "y": Bool(false)})})
			}
			return m
		}())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendBinaryJSON([]byte("prefix"), AppendBinary(nil, tc.it))
			want := AppendItemJSON([]byte("prefix"), tc.it)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("got %s, %v\nwant %s", got, err, want)
			}
		})
	}
}

func TestAppendBinaryJSONCorrupt(t *testing.T) {
	good := AppendBinary(nil, sampleItem())
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"version", []byte{2, 0}},
		{"truncated", good[:len(good)-1]},
		{"trailing", append(append([]byte{}, good...), 0)},
		{"bad bool", []byte{1, 1, 1, 'a', byte(TypeBOOL), 2}},
		{"bad type", []byte{1, 1, 1, 'a', 99}},
		{"huge count", []byte{1, 1, 1, 'a', byte(TypeL), 0xff, 0x7f}},
		{"length beyond end", []byte{1, 1, 1, 'a', byte(TypeS), 2, 'x'}},
		{"long length beyond end", []byte{1, 1, 1, 'a', byte(TypeS), 0x80, 0x01, 'x'}},
		{"name beyond end", []byte{1, 1, 5, 'a'}},
		{"overlong varint", []byte{1, 1, 1, 'a', byte(TypeS), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"bad value in map", []byte{1, 1, 1, 'a', byte(TypeM), 1, 1, 'b', 99}},
		{"bad value in list", []byte{1, 1, 1, 'a', byte(TypeL), 1, byte(TypeS), 3, 'x'}},
		{"truncated set", []byte{1, 1, 1, 'a', byte(TypeSS), 2, 1, 'x'}},
		{"count header", []byte{2, 0, 0x80}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := AppendBinaryJSON(nil, tc.b); err == nil {
				t.Errorf("got nil error, want one")
			}
			if _, err := DecodeBinary(tc.b); err == nil {
				t.Errorf("DecodeBinary: got nil error, want one (the case is not corrupt)")
			}
		})
	}
}

// FuzzAppendBinaryJSON: AppendBinaryJSON fails exactly when DecodeBinary
// does, and otherwise writes what AppendItemJSON writes for the decoded
// item, when no name repeats and every plain mark is true (as AppendBinary
// writes them); so does the item re-encoded with today's marks.
func FuzzAppendBinaryJSON(f *testing.F) {
	addBinarySeeds(f)
	f.Add(AppendBinary(nil, Item{strings.Repeat("n", 130): StringSet(strings.Repeat("é\n", 50), "x")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		it, err := DecodeBinary(b)
		got, gotErr := AppendBinaryJSON(nil, b)
		if (err == nil) != (gotErr == nil) {
			t.Fatalf("errors: DecodeBinary %v, AppendBinaryJSON %v", err, gotErr)
		}
		if err != nil {
			return
		}
		want := AppendItemJSON(nil, it)
		if again, err := AppendBinaryJSON(nil, AppendBinary(nil, it)); err != nil || !bytes.Equal(again, want) {
			t.Fatalf("re-encoded: got %s, %v\nwant %s", again, err, want)
		}
		if marksHold, unique := encodingFacts(b); marksHold && unique && !bytes.Equal(got, want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
	})
}

func BenchmarkAppendBinaryJSON(b *testing.B) {
	it := Item{"pk": String("p00042"), "sk": String("s0001"), "v": String(string(bytes.Repeat([]byte("x"), 200))), "n": num("12345")}
	enc := AppendBinary(nil, it)
	buf := make([]byte, 0, 1024)
	b.Run("transcode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = AppendBinaryJSON(buf[:0], enc)
		}
	})
	b.Run("decode+encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, _ := DecodeBinary(enc)
			buf = AppendItemJSON(buf[:0], d)
		}
	})
}

// TestAppendJSONStringEveryByte puts every byte value at every position of
// a 20-byte string (so both the eight-at-a-time and the byte-wise paths see
// it) and checks the result against encoding/json.
func TestAppendJSONStringEveryByte(t *testing.T) {
	base := []byte("abcdefghijklmnopqrst")
	for c := range 256 {
		for pos := range base {
			s := append([]byte(nil), base...)
			s[pos] = byte(c)
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(string(s)); err != nil {
				t.Fatal(err)
			}
			wantB := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
			if got := AppendJSONString(nil, string(s)); !bytes.Equal(got, wantB) {
				t.Fatalf("string %q: got %s, want %s", s, got, wantB)
			}
			if got := appendJSONStr(nil, s); !bytes.Equal(got, wantB) {
				t.Fatalf("bytes %q: got %s, want %s", s, got, wantB)
			}
		}
	}
}
