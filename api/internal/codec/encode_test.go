package codec

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// stdJSON is what encoding/json writes for v with HTML escaping off, the
// reference the Encoder must match byte for byte.
func stdJSON(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

type recursive struct {
	Name string
	Next *recursive `json:",omitempty"`
}

type tagged struct {
	A      string  `json:"a"`
	B      int     `json:"b,omitempty"`
	Skip   string  `json:"-"`
	Dash   string  `json:"-,"`
	F32    float32 `json:",omitempty"`
	F64    float64
	U      uint16
	Bytes  []byte
	Any    any
	Arr    [2]int
	hidden int
}

type embedded struct {
	tagged
	Extra string
}

type withString struct {
	N int `json:",string"`
}

func TestEncoderMatchesEncodingJSON(t *testing.T) {
	item := attr.Item{
		"pk":   attr.String("p<1>&\u2028\x01\"\\\n"),
		"sk":   attr.String("s#0001"),
		"n":    {T: attr.TypeN, S: "-12.5"},
		"b":    attr.Binary([]byte{0, 1, 2, 250}),
		"ok":   attr.Bool(true),
		"null": attr.Null(),
		"m":    attr.Map(map[string]attr.Value{"z": attr.String("z"), "a": attr.List([]attr.Value{attr.Bool(false)})}),
		"ss":   {T: attr.TypeSS, SS: []string{"x", "y"}},
		"ns":   {T: attr.TypeNS, SS: []string{"1", "2"}},
		"bs":   {T: attr.TypeBS, BS: [][]byte{{1}, {2}}},
	}
	items := []attr.Item{item, {"pk": attr.String("only")}}
	cc := &ddb.ConsumedCapacity{TableName: "t", CapacityUnits: 0.5}
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"get empty", &ddb.GetItemOutput{}},
		{"get item", &ddb.GetItemOutput{Item: item, ConsumedCapacity: cc}},
		{"read", &ddb.ReadOutput{Items: &items, Count: 2, ScannedCount: 7, LastEvaluatedKey: attr.Item{"pk": attr.String("k")}}},
		{"read empty items", &ddb.ReadOutput{Items: &[]attr.Item{}}},
		{"read count only", &ddb.ReadOutput{Count: 3}},
		{"batch get", &ddb.BatchGetItemOutput{Responses: map[string][]attr.Item{"b": items, "a": nil}}},
		{"write", &ddb.WriteOutput{Attributes: item}},
		{"list tables", &ddb.ListTablesOutput{TableNames: []string{"a", "b"}}},
		{"list tables nil", &ddb.ListTablesOutput{}},
		{"value", attr.String("v")},
		{"recursive", &recursive{Name: "a", Next: &recursive{Name: "b"}}},
		{"tagged", tagged{A: "x", Skip: "no", Dash: "d", F32: 1.1, F64: 1e21, U: 7, Bytes: []byte("hi"), Any: map[string]any{"k": []any{1.5, "s", nil}}, Arr: [2]int{1, 2}}},
		{"small floats", []float64{1e-7, 123456789, 0, -0.000001, 3.14}},
		{"float32", []float32{1e-7, 0.1, 1e21}},
		{"embedded (fallback)", embedded{Extra: "e"}},
		{"string option (fallback)", withString{N: 5}},
		{"time (fallback)", struct{ T time.Time }{time.Unix(0, 0).UTC()}},
		{"map int keys (fallback)", map[int]string{2: "b", 1: "a"}},
		{"escapes", "\b\f\t\r\x7f\xff<>&\u2029"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Encoder
			got, err := e.AppendValue(nil, tc.v)
			if err != nil {
				t.Fatalf("appendValue: %v", err)
			}
			if want := stdJSON(t, tc.v); !bytes.Equal(got, want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestEncoderUnsupportedValue(t *testing.T) {
	var e Encoder
	_, gotErr := e.AppendValue(nil, struct{ F float64 }{math.NaN()})
	_, wantErr := json.Marshal(struct{ F float64 }{math.NaN()})
	if gotErr == nil || gotErr.Error() != wantErr.Error() {
		t.Errorf("got %v, want %v", gotErr, wantErr)
	}
}

// benchReadOutput is a Query page of 100 ~250-byte items.
func benchReadOutput() *ddb.ReadOutput {
	items := make([]attr.Item, 100)
	for i := range items {
		items[i] = attr.Item{
			"pk": attr.String("p00042"),
			"sk": attr.String("s" + string(rune('a'+i%26)) + "0001"),
			"v":  attr.String(string(bytes.Repeat([]byte("x"), 200))),
			"n":  {T: attr.TypeN, S: "12345"},
		}
	}
	return &ddb.ReadOutput{Items: &items, Count: 100, ScannedCount: 100}
}

func BenchmarkEncodeReadOutput(b *testing.B) {
	out := benchReadOutput()
	b.Run("Encoder", func(b *testing.B) {
		var e Encoder
		buf := make([]byte, 0, 64<<10)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = e.AppendValue(buf[:0], out); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncodeGetItemOutput(b *testing.B) {
	out := &ddb.GetItemOutput{Item: (*benchReadOutput().Items)[0]}
	b.Run("Encoder", func(b *testing.B) {
		var e Encoder
		buf := make([]byte, 0, 4<<10)
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = e.AppendValue(buf[:0], out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
