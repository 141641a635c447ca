package iontext

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// checkEncodeTwins fails when AppendRecord, with its fast path, appends
// other bytes or another error than the library's writer alone; it
// returns whether the fast path took the record.
func checkEncodeTwins(t *testing.T, fields ...Field) bool {
	t.Helper()
	prefix := []byte("prev\n")
	plain, perr := NewEncoder().appendRecordPlain(bytes.Clone(prefix), fields)
	got, err := NewEncoder().AppendRecord(bytes.Clone(prefix), fields...)
	if (err == nil) != (perr == nil) || (err == nil && !bytes.Equal(got, plain)) {
		t.Fatalf("%#v:\nAppendRecord %q, %v\nthe library  %q, %v", fields, got, err, plain, perr)
	}
	_, fast := NewEncoder().appendRecordFast(nil, fields)
	return fast
}

func TestAppendRecordFastIsPlain(t *testing.T) {
	n := func(s string) attr.Value { return attr.Value{T: attr.TypeN, S: s} } // not canonicalised: the text as given
	for _, tc := range []struct {
		name   string
		fields []Field
		fast   bool // the fast path takes it
	}{
		{"scale item", []Field{{"Item", scaleItems(8)[7]}}, true},
		{"every type, odd names", []Field{{"Item", everyType(t)}}, false}, // names $ion_1_0 and $10
		{"incremental record", []Field{{"Metadata", attr.Item{"WriteTimestampMicros": attr.Int(1764903000123456)}},
			{"Keys", attr.Item{"pk": attr.String("a")}}, {"NewImage", attr.Item{"pk": attr.String("a"), "x": attr.Null()}}, {"OldImage", nil}}, true},
		{"no fields", nil, true},
		{"empty values", []Field{{"Item", attr.Item{"s": attr.String(""), "b": attr.Binary(nil), "l": attr.List(nil), "m": attr.Map(nil),
			"ss": attr.StringSet(), "bs": attr.BinarySet()}}}, true},
		{"escapes", []Field{{"Item", attr.Item{"s": attr.String("a\x00\a\b\t\n\f\r\v\x01\x1f\x7f'\"\\é😀"), "it's \\ \n": attr.Bool(false)}}}, true},
		{"quoted names", []Field{{"Item", attr.Item{"": attr.Null(), "null": attr.Null(), "true": attr.Null(), "false": attr.Null(), "nan": attr.Null(),
			"9a": attr.Null(), "a-b": attr.Null(), "a b": attr.Null(), "é": attr.Null(), "_x$9": attr.Null(), "Nan": attr.Null()}}}, true},
		{"a $ name", []Field{{"Item", attr.Item{"$dynamodb_SS": attr.Null()}}}, false},
		{"field named $1", []Field{{"$1", attr.Item{"a": attr.Null()}}}, false},
		{"numbers", []Field{{"Item", attr.Item{"l": attr.List([]attr.Value{n("0"), n("-0"), n("000"), n("7"), n("-7"), n("10"), n("-600"), n("0100"),
			n("103"), n("1.5"), n("-1.5"), n("0.5"), n("-0.5"), n("0.05"), n("1.05"), n("12.345"), n("0.0"), n("0.000"), n("-0.000"), n("00.10"),
			n(".5"), n("-.25"), n("123.000"), n("0.00123"), n("99999999999999999999999999999999999999"),
			n("-0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001")})}}}, true},
		{"number sets", []Field{{"Item", attr.Item{"ns": attr.Value{T: attr.TypeNS, SS: []string{"1", "2.5", "300"}}}}}, true},
		{"number with a plus", []Field{{"Item", attr.Item{"n": n("+5")}}}, false},
		{"number with a trailing point", []Field{{"Item", attr.Item{"n": n("5.")}}}, false},
		{"number in E notation", []Field{{"Item", attr.Item{"n": n("1E5")}}}, false},
		{"not a number", []Field{{"Item", attr.Item{"n": n("x")}}}, false},
		{"empty number", []Field{{"Item", attr.Item{"n": n("")}}}, false},
		{"a minus alone", []Field{{"Item", attr.Item{"n": n("-")}}}, false},
		{"a bad number in a set", []Field{{"Item", attr.Item{"ns": attr.Value{T: attr.TypeNS, SS: []string{"1", "1e2"}}}}}, false},
		{"a bad number deep", []Field{{"Item", attr.Item{"m": attr.Map(map[string]attr.Value{"l": attr.List([]attr.Value{n("1"), n("--1")})})}}}, false},
		{"nested", []Field{{"Item", attr.Item{"m": attr.Map(map[string]attr.Value{"z": attr.Map(map[string]attr.Value{"b": attr.Int(2), "a": attr.Int(1)}),
			"a": attr.List([]attr.Value{attr.Map(map[string]attr.Value{"y": attr.String("q"), "x": attr.Binary([]byte{1, 2, 3, 4})}), attr.List(nil)})}),
			"bs": attr.BinarySet([]byte{0}, []byte{0xff, 0xfe}), "ss": attr.StringSet("x\"", "y")}}}, true},
		{"unknown type", []Field{{"Item", attr.Item{"u": attr.Value{T: attr.Type(200)}}}}, false},
	} {
		if fast := checkEncodeTwins(t, tc.fields...); fast != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.name, fast, tc.fast)
		}
	}
}

// TestEncoderReuse: one Encoder writes records that the fast path takes
// and records that it leaves to the library, in any order, each as a fresh
// Encoder writes it.
func TestEncoderReuse(t *testing.T) {
	recs := []attr.Item{scaleItems(1)[0], everyType(t), {"n": {T: attr.TypeN, S: "x"}}, scaleItems(2)[1], everyType(t)}
	e := NewEncoder()
	var all []byte
	for _, it := range recs {
		var err error
		all, err = e.AppendRecord(all, Field{Name: "Item", Item: it})
		if it["n"].S == "x" {
			if err == nil {
				t.Fatal("a bad number: no error")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var want []byte
	for _, it := range recs {
		if line, err := NewEncoder().appendRecordPlain(nil, []Field{{Name: "Item", Item: it}}); err == nil {
			want = append(want, line...)
		}
	}
	if !bytes.Equal(all, want) {
		t.Errorf("reused encoder:\n%s\nfresh ones:\n%s", all, want)
	}
}

// fuzzItem builds an item from b: each byte picks a type, and the bytes
// after it give names, strings, number text and nesting.
type fuzzItem struct {
	b []byte
}

func (f *fuzzItem) next() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

// text takes a length byte and that many bytes.
func (f *fuzzItem) text() string {
	n := min(int(f.next()%16), len(f.b))
	s := string(f.b[:n])
	f.b = f.b[n:]
	return s
}

// number is digits with a sign, a point, or stray characters, by the
// bytes: mostly canonical, sometimes not.
func (f *fuzzItem) number() string {
	const chars = "0123456789012345678901234567890123456789-.+eE x"
	n := min(int(f.next()%12), len(f.b))
	out := make([]byte, n)
	for i := range out {
		out[i] = chars[int(f.next())%len(chars)]
	}
	return string(out)
}

func (f *fuzzItem) item(depth int) map[string]attr.Value {
	m := map[string]attr.Value{}
	for k := int(f.next() % 6); k > 0 && len(f.b) > 0; k-- {
		m[f.text()] = f.value(depth)
	}
	return m
}

// value is one type switch over the types (and one DynamoDB lacks).
func (f *fuzzItem) value(depth int) attr.Value {
	switch c := f.next(); c % 12 {
	case 0:
		return attr.String(f.text())
	case 1:
		return attr.Value{T: attr.TypeN, S: f.number()}
	case 2:
		return attr.Binary([]byte(f.text()))
	case 3:
		return attr.Bool(c&0x80 != 0)
	case 4:
		return attr.Null()
	case 5:
		if depth > 4 {
			return attr.Null()
		}
		return attr.Map(f.item(depth + 1))
	case 6:
		var l []attr.Value
		for k := int(f.next() % 4); k > 0 && depth <= 4; k-- {
			l = append(l, f.value(depth+1))
		}
		return attr.List(l)
	case 7:
		return attr.StringSet(f.text(), f.text())
	case 8:
		return attr.Value{T: attr.TypeNS, SS: []string{f.number(), f.number()}}
	case 9:
		return attr.BinarySet([]byte(f.text()))
	case 10:
		return attr.Value{T: attr.Type(c)}
	}
	return attr.Value{T: attr.TypeN, S: fmt.Sprint(int64(f.next())<<8 | int64(f.next()))}
}

func FuzzAppendRecordTwins(f *testing.F) {
	f.Add([]byte("\x05\x02pk\x00\x05user1\x01n\x01\x03\x10\x05\x00"))
	f.Add([]byte("\x03\x01m\x05\x02\x01a\x08\x03\x02\x2e\x05\x01\x01\x00\x01b\x06\x03\x00\x01x\x02\x01\xff"))
	f.Add([]byte("\x02\x03a\nb\x00\x02\"\\\x04$1_x\x07\x01y\x01z"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g := &fuzzItem{b: b}
		fields := []Field{{Name: "Item", Item: g.item(0)}}
		if len(g.b) > 0 {
			fields = append(fields, Field{Name: g.text(), Item: g.item(0)})
		}
		checkEncodeTwins(t, fields...)
	})
}
