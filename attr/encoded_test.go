package attr

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// encodedCases are DynamoDB-JSON items, valid and not, for the equivalence
// of Encoded.UnmarshalJSON with Item.UnmarshalJSON; fast says whether the
// one-pass encoder (rather than its fallback) must take the input.
var encodedCases = []struct {
	json string
	fast bool
}{
	{`{}`, true},
	{` { "pk" : { "S" : "a" } , "n" : {"N":"1"} } `, true},
	{`{"pk":{"S":"p1"},"sk":{"S":"s1"},"v":{"S":"xyz"},"f":{"N":"42"}}`, true},
	{`{"e":{"S":""},"u":{"S":"é😀"},"b":{"BOOL":true},"c":{"BOOL":false},"z":{"NULL":true}}`, true},
	{`{"n":{"N":"+1.50"},"m":{"N":"-0"},"x":{"N":"1e-130"},"y":{"N":"9.9E125"},"w":{"N":"0.000"}}`, true},
	{`{"m":{"M":{"a":{"S":"x"},"b":{"L":[{"N":"1"},{"M":{}},{"L":[]}]}}},"l":{"L":[]}}`, true},
	{`{"né":{"S":"x"},"m":{"M":{"ü":{"NULL":true}}}}`, true},
	{`{"big":{"L":[` + strings.Repeat(`{"N":"7"},`, 200) + `{"N":"8"}]}}`, true},
	{deepItem(MaxNestingDepth), true},
	{deepItem(MaxNestingDepth + 1), false},
	// Names up to MaxNameBytes take the fast path; a longer one, at any
	// depth, is left to the fallback, which words the error.
	{`{"` + strings.Repeat("n", MaxNameBytes) + `":{"S":"x"}}`, true},
	{`{"m":{"M":{"` + strings.Repeat("é", MaxNameBytes/2) + `":{"N":"1"}}}}`, true},
	{`{"` + strings.Repeat("n", MaxNameBytes+1) + `":{"S":"x"}}`, false},
	{`{"m":{"M":{"` + strings.Repeat("n", MaxNameBytes+1) + `":{"N":"1"}}}}`, false},
	{`{"l":{"L":[{"M":{"` + strings.Repeat("é", MaxNameBytes/2) + `xy":{"N":"1"}}}]}}`, false},
	{`null`, false},
	{` null `, false},
	// String sets of up to maxEncodeSet members, sorted here as SortSet
	// sorts them.
	{`{"ss":{"SS":["b","B","a","é","ab"]},"one":{"SS":[""]}}`, true},
	{`{"m":{"M":{"ss":{"SS":[ "z" , "y" ]}}},"l":{"L":[{"SS":["q"]}]}}`, true},
	{`{"ss":{"SS":[` + strings.TrimSuffix(strings.Repeat(`"m",`, maxEncodeSet), ",") + `]}}`, false},
	{`{"ss":{"SS":["a","c","b","d","e","f","g","h","i","j","k","l","m","n","o","p"]}}`, true},
	{`{"ss":{"SS":["a","c","b","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]}}`, false},
	{`{"ss":{"SS":["x\"y"]}}`, false},
	{`{"ss":{"SS":["x",]}}`, false},
	{`{"ss":{"SS":["x"],"S":"y"}}`, false},
	{`{"ss":{"SS":[1]}}`, false},
	{`{"ss":{"SS":"x"}}`, false},
	// Shapes the fast path leaves to the fallback.
	{`{"b":{"B":"AAEC"},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2.0"]},"bs":{"BS":["AQ=="]}}`, false},
	{`{"ss":{"SS":["b","B","a"]},"ns":{"NS":["10","9","-1","1E2"]},"bs":{"BS":["Ag==","AQI=","AQ=="]}}`, false},
	{`{"m":{"M":{"ss":{"SS":["z","y"]}}},"l":{"L":[{"NS":["3","2.5"]}]}}`, false},
	{`{"a":{"S":"x"},"a":{"N":"2"}}`, false},
	{`{"m":{"M":{"k":{"S":"1"},"k":{"S":"2"}}}}`, false},
	{`{"a\u0062":{"S":"x"}}`, false},
	{`{"a":{"S":"tab\there"}}`, false},
	{`{"a":{"S":"x","X":1}}`, false},
	{`{"a":{"X":1,"S":"x"}}`, false},
	{`{"a":{"S":null,"N":"1"}}`, false},
	{`{"a":{"\u0053":"x"}}`, false},
	{"{\"a\":{\"S\":\"\xff\"}}", false},
	// Errors, each in the fallback's words.
	{``, false},
	{`{`, false},
	{`[]`, false},
	{`{"a":{"S":"x"}} x`, false},
	{`{"a":{}}`, false},
	{`{"a":null}`, false},
	{`{"a":{"S":"x","N":"1"}}`, false},
	{`{"a":{"N":"abc"}}`, false},
	{`{"a":{"N":"1e126"}}`, false},
	{`{"a":{"N":"123456789012345678901234567890123456789"}}`, false},
	{`{"a":{"NULL":false}}`, false},
	{`{"a":{"BOOL":"true"}}`, false},
	{`{"a":{"S":1}}`, false},
	{`{"a":{"M":[]}}`, false},
	{`{"a":{"L":{}}}`, false},
	{`{"a":{"SS":[]}}`, false},
	{`{"a":{"SS":["x","x"]}}`, false},
	{`{"a":{"L":[{"S":"x"},]}}`, false},
	{`{"a":{"S":"x"},}`, false},
	{`{"a" {"S":"x"}}`, false},
	{`{"a":{"S":"x"}`, false},
}

// deepItem is an item whose one attribute nests depth M values.
func deepItem(depth int) string {
	return `{"a":` + strings.Repeat(`{"M":{"a":`, depth) + `{"S":"x"}` + strings.Repeat(`}}`, depth) + `}`
}

func TestEncodedUnmarshalJSON(t *testing.T) {
	for _, c := range encodedCases {
		name := c.json
		if len(name) > 80 {
			name = name[:80] // long names would flood the log
		}
		t.Run(name, func(t *testing.T) {
			checkEncodedAgrees(t, []byte(c.json))
			_, got := encodeItemJSON([]byte(c.json))
			if got != c.fast {
				t.Errorf("fast path taken: got %v, want %v", got, c.fast)
			}
		})
	}
}

// checkEncodedAgrees checks that Encoded.UnmarshalJSON accepts what
// Item.UnmarshalJSON accepts, with the same errors, and encodes the same
// item, size and plain marks.
func checkEncodedAgrees(t *testing.T, b []byte) {
	t.Helper()
	var it Item
	wantErr := it.UnmarshalJSON(b)
	var e Encoded
	gotErr := e.UnmarshalJSON(b)
	if fmt.Sprintf("%T %v", gotErr, gotErr) != fmt.Sprintf("%T %v", wantErr, wantErr) {
		t.Fatalf("%q: error: got %T %v, want %T %v", b, gotErr, gotErr, wantErr, wantErr)
	}
	if wantErr != nil {
		if !e.IsZero() {
			t.Fatalf("%q: failed decode changed the Encoded", b)
		}
		return
	}
	if got, want := e.IsZero(), it == nil; got != want {
		t.Fatalf("%q: IsZero: got %v, want %v", b, got, want)
	}
	dec, err := e.Item()
	if err != nil {
		t.Fatalf("%q: decoding the encoding: %v", b, err)
	}
	if got, want := AppendItemJSON(nil, dec), AppendItemJSON(nil, it); !bytes.Equal(got, want) {
		t.Fatalf("%q: item: got %s, want %s", b, got, want)
	}
	if got, want := e.Size(), it.Size(); got != want {
		t.Fatalf("%q: size: got %d, want %d", b, got, want)
	}
	if e.IsZero() {
		return
	}
	if got, want := marksOf(t, e.Bytes()), marksOf(t, AppendBinary(nil, it)); got != want {
		t.Fatalf("%q: plain marks: got %s, want %s", b, got, want)
	}
	js, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := it.MarshalJSON(); !bytes.Equal(js, want) {
		t.Fatalf("%q: MarshalJSON: got %s, want %s", b, js, want)
	}
}

// marksOf lists, in name order at every level, which texts of an encoding
// are marked plain, so that two encodings of one item compare whatever
// their member order.
func marksOf(t *testing.T, b []byte) string {
	t.Helper()
	h, ok := binaryBody(b)
	if !ok {
		t.Fatalf("corrupt encoding %x", b)
	}
	w := binWalker{b: b, i: h.start}
	return markWalk(&w, h.plainNames)
}

func markWalk(w *binWalker, marked bool) string {
	n, _ := w.count()
	parts := make([]string, 0, n)
	for range n {
		k, _ := w.bytes()
		parts = append(parts, fmt.Sprintf("%q:%s", k, markValue(w)))
	}
	sortStrings(parts)
	return fmt.Sprintf("%v{%s}", marked, strings.Join(parts, ","))
}

func markValue(w *binWalker) string {
	c := w.b[w.i]
	w.i++
	marked := c&plainMark != 0
	switch storedType(c) {
	case TypeM:
		return markWalk(w, marked)
	case TypeL:
		n, _ := w.count()
		var parts []string
		for range n {
			parts = append(parts, markValue(w))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	w.i-- // let skip read the type byte again
	w.skip(0)
	return fmt.Sprint(marked)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestEncodedLookup(t *testing.T) {
	var e Encoded
	if err := e.UnmarshalJSON([]byte(`{"pk":{"S":"a"},"m":{"M":{"x":{"N":"1"}}},"n":{"N":"2.50"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want string // AppendJSON of the value, "" when absent
	}{
		{"pk", `{"S":"a"}`}, {"n", `{"N":"2.5"}`}, {"m", `{"M":{"x":{"N":"1"}}}`}, {"x", ""}, {"", ""},
	} {
		v, ok := e.Lookup(c.name)
		got := ""
		if ok {
			got = string(AppendJSON(nil, v))
		}
		if got != c.want {
			t.Errorf("Lookup(%q): got %s, want %s", c.name, got, c.want)
		}
	}
	if _, ok := (Encoded{}).Lookup("pk"); ok {
		t.Errorf("zero Encoded: Lookup found an attribute")
	}
}

func TestEncodeItem(t *testing.T) {
	it := Item{"pk": String("a"), "n": Int(3)}
	e := EncodeItem(it)
	got, err := e.Item()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(AppendItemJSON(nil, got), AppendItemJSON(nil, it)) || e.Size() != it.Size() {
		t.Errorf("EncodeItem round trip: got %v, want %v", got, it)
	}
	if z := EncodeItem(nil); !z.IsZero() || z.Size() != 0 {
		t.Errorf("EncodeItem(nil): got %v, want the zero Encoded", z)
	}
	if js, _ := (Encoded{}).MarshalJSON(); string(js) != "null" {
		t.Errorf("zero MarshalJSON: got %s, want null", js)
	}
}

// FuzzEncodedJSON: Encoded.UnmarshalJSON agrees with Item.UnmarshalJSON on
// every input (errors, item, size, marks).
func FuzzEncodedJSON(f *testing.F) {
	for _, c := range encodedCases {
		f.Add([]byte(c.json))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkEncodedAgrees(t, b)
	})
}

func BenchmarkEncodedUnmarshalJSON(b *testing.B) {
	body := []byte(`{"pk":{"S":"p000123"},"sk":{"S":"t0123456789abcdef"},"v":{"S":"` + strings.Repeat("x", 200) + `"},"f":{"N":"42"}}`)
	b.Run("encoded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e Encoded
			if err := e.UnmarshalJSON(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("item+AppendBinary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var it Item
			if err := it.UnmarshalJSON(body); err != nil {
				b.Fatal(err)
			}
			_ = AppendBinary(nil, it)
		}
	})
}
