package iontext

import (
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func num(t testing.TB, s string) attr.Value {
	v, err := attr.Number(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// everyType holds the ten types, 38-digit numbers, empty values and names
// that need quoting.
func everyType(t testing.TB) attr.Item {
	ns, _ := attr.NumberSet("1", "-0.5", "12345678901234567890123456789012345678")
	return attr.Item{
		"s": attr.String("héllo \"q\" \\ \n\t\x01 ☃ 😀"), "empty": attr.String(""),
		"n": num(t, "-12345678901234567890123456789012345678"), "small": num(t, "1E-130"), "big": num(t, "9.9E125"),
		"z": num(t, "0"), "hundred": num(t, "600"), "b": attr.Binary([]byte{0, 1, 255}), "eb": attr.Binary([]byte{}),
		"t": attr.Bool(true), "f": attr.Bool(false), "nul": attr.Null(),
		"m":  attr.Map(map[string]attr.Value{"inner": attr.String("v"), "e": attr.Map(map[string]attr.Value{})}),
		"l":  attr.List([]attr.Value{attr.String("x"), num(t, "1.5"), attr.List(nil)}),
		"ss": attr.StringSet("a", "b"), "ns": ns, "bs": attr.BinarySet([]byte("x"), []byte{}),
		"with space": attr.String("q"), "true": attr.Bool(true), "$ion_1_0": attr.String("sym"), "it's": attr.Null(),
		"9lives": attr.String("digit first"), "$10": attr.String("a symbol id's text"), "null": attr.Null(),
	}
}

func TestRoundTrip(t *testing.T) {
	it := everyType(t)
	line, err := NewEncoder().AppendRecord(nil, Field{Name: "Item", Item: it})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeLine(line)
	if err != nil {
		t.Fatalf("DecodeLine(%s): %v", line, err)
	}
	back := attr.Item(got["Item"].M)
	if len(back) != len(it) {
		t.Fatalf("got %d attributes, want %d", len(back), len(it))
	}
	for k, want := range it {
		if !attr.Equal(back[k], want) {
			t.Errorf("%q: got %#v, want %#v", k, back[k], want)
		}
	}
}

// TestDecimal: integers are written as the service writes them (the
// guide's Id:103., PageCount:6d2), fractions keep their digits, and each
// reads back as the same DynamoDB number.
func TestDecimal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"103", "103."}, {"600", "6d2"}, {"2000", "2d3"}, {"0", "0."}, {"-600", "-6d2"}, {"1.5", "1.5"},
		{"-0.001", "-1d-3"}, {"10", "1d1"}, {"-12345678901234567890123456789012345678", "-12345678901234567890123456789012345678."},
		{"0.0000000000000000000000000000000000000001", "1d-40"},
	} {
		d, err := Decimal(c.in)
		if err != nil {
			t.Fatalf("Decimal(%s): %v", c.in, err)
		}
		if got := d.String(); got != c.want {
			t.Errorf("Decimal(%s) = %s, want %s", c.in, got, c.want)
		}
		m, err := DecodeLine([]byte("{a:" + d.String() + "}"))
		if err != nil || m["a"].T != attr.TypeN || m["a"].S != c.in {
			t.Errorf("%s read back as %#v, %v", d, m["a"], err)
		}
	}
}

// TestGuideExample parses the developer guide's Ion export item.
func TestGuideExample(t *testing.T) {
	line := `$ion_1_0 {
    Item:{
        Authors:$dynamodb_SS::["Author1","Author2"],
        Dimensions:"8.5 x 11.0 x 1.5",
        ISBN:"333-3333333333",
        Id:103.,
        InPublication:false,
        PageCount:6d2,
        Price:2d3,
        ProductCategory:"Book",
        Title:"Book 103 Title"
    }
}`
	got, err := DecodeLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	it := got["Item"].M
	for name, want := range map[string]string{"Id": "103", "PageCount": "600", "Price": "2000"} {
		if it[name].T != attr.TypeN || it[name].S != want {
			t.Errorf("%s = %#v, want N %s", name, it[name], want)
		}
	}
	if v := it["Authors"]; v.T != attr.TypeSS || len(v.SS) != 2 {
		t.Errorf("Authors = %#v", v)
	}
	if v := it["InPublication"]; v.T != attr.TypeBOOL || v.Bool {
		t.Errorf("InPublication = %#v", v)
	}
}

func TestDecodeForms(t *testing.T) {
	for _, c := range []struct{ in, name, want string }{
		{`{a:0x1F}`, "a", "31"}, {`{a:-0b101}`, "a", "-5"}, {`{a:1_000}`, "a", "1000"}, {`{a:1.5e3}`, "a", "1500"},
		{`{a:1.5d-3}`, "a", "0.0015"}, {`{'a b':"x"}`, "a b", "x"}, {`{"q":'''ab''' '''cd'''}`, "q", "abcd"},
		{`/* c */ {a: // c` + "\n" + `"\x41\u00e9\U0001F600"}`, "a", "Aé😀"}, {`{a:"\uD83D\uDE00"}`, "a", "😀"},
		{`{a:[1,2,],}`, "a", ""}, {`{a:null.string}`, "a", ""}, {`{a:"\\uD83D"}`, "a", `\uD83D`},
		{`$ion_1_0 $ion_1_0 {a:"x"}`, "a", "x"}, {`{a:'''x\uD83D\uDE00'''}`, "a", "x😀"},
	} {
		got, err := DecodeLine([]byte(c.in))
		if err != nil {
			t.Errorf("DecodeLine(%s): %v", c.in, err)
			continue
		}
		if v := got[c.name]; c.want != "" && v.S != c.want {
			t.Errorf("DecodeLine(%s)[%s] = %#v, want %s", c.in, c.name, v, c.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		``, `[1]`, `{a:1} x`, `{a:2020-01-01T00:00Z}`, `{a:nan}`, `{a:+inf}`, `{a:sym}`, `{a:007}`, `{a:1__0}`,
		`{a:foo::[1]}`, `{a:$dynamodb_SS::[1]}`, `{a:$dynamodb_NS::["x"]}`, `{a:$dynamodb_SS::["x","x"]}`,
		`{a:"unterminated}`, `{a:{{not base64!}}}`, `{a:{{"clob"}}}`, `{a "x"}`, `{a:1 b:2}`, `{a:"\q"}`,
		`{a:$dynamodb_SS::1}`, `{a:"` + "\n" + `"}`, strings.Repeat("{a:", 100) + "1" + strings.Repeat("}", 100),
		`{a:"\uD83D"}`, `{a:"\uDE00\uD83D"}`, `{a:"\uD83Dx"}`, `sym {a:1}`, `{a:1} {b:2}`, `{a:(1 2)}`, `ann::{a:1}`,
	} {
		if _, err := DecodeLine([]byte(in)); err == nil {
			t.Errorf("DecodeLine(%q) succeeded, want an error", in)
		}
	}
}

func FuzzDecodeLine(f *testing.F) {
	f.Add([]byte(`$ion_1_0 {Item:{a:"x",n:1.5d3,b:{{AAE=}},s:$dynamodb_SS::["a"]}}`))
	f.Add([]byte(`{a:'''x''' '''y''', 'q':[null, true, 0x10]}`))
	line, err := NewEncoder().AppendRecord(nil, Field{Name: "Item", Item: everyType(f)})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(line)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeLine(b)
		if err != nil {
			return
		}
		// What decodes re-encodes and decodes to the same values.
		line, err := AppendItem(nil, m)
		if err != nil {
			t.Fatalf("re-encoding %#v: %v", m, err)
		}
		again, err := DecodeLine(line)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", line, err)
		}
		for k, v := range m {
			if !attr.Equal(again[k], v) {
				t.Fatalf("%q: %#v became %#v", k, v, again[k])
			}
		}
	})
}
