package s3import

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// FuzzDecoders feeds arbitrary bytes to each format's decoder (and to the
// bulk loads' record decoders, which read conditions too): it never
// panics, never loops, and every item it yields is a valid DynamoDB item.
func FuzzDecoders(f *testing.F) {
	f.Add([]byte(`{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}` + "\nnot json\n"))
	f.Add([]byte(`$ion_1_0 {Item:{pk:"a",n:1.5d2,s:$dynamodb_NS::[1.,2.]}}` + "\n"))
	f.Add([]byte(`{"Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}` + "\n"))
	f.Add([]byte("pk,n\na,1\n\"b\",\"2\"\nbad\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i, format := range []string{FormatJSON, FormatIon, FormatCSV, FormatJSON, FormatIon, FormatJSON} {
			d := newDecoder(bytes.NewReader(b), "k", Options{Format: format, KeyTypes: map[string]attr.Type{"n": attr.TypeN}, Conditions: i > 2 && i < 5, Encoded: i == 5})
			for i := 0; ; i++ {
				if i > len(b)+2 {
					t.Fatalf("%s: more records than bytes", format)
				}
				rec, err := d.next()
				it := rec.Item
				if it == nil && err == nil {
					if it, err = rec.Encoded.Item(); err != nil {
						t.Fatalf("%s: undecodable encoding: %v", format, err)
					}
				}
				if err == io.EOF {
					break
				}
				var rerr *RecordError
				if errors.As(err, &rerr) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: fatal error from in-memory input: %v", format, err)
				}
				if err := it.Validate(); err != nil || len(it) == 0 {
					t.Fatalf("%s: invalid item %v: %v", format, it, err)
				}
			}
		}
	})
}

// TestJSONLineFastIsPlain: the JSON fast path answers as its plain twin.
func TestJSONLineFastIsPlain(t *testing.T) {
	for _, line := range []string{
		`{"Item":{"a":{"S":"x"},"n":{"N":"1.50"}}}`, `{"Item":{}}`, `{"Item":{"a":{"S":"x"}}, "Item":{"b":{"S":"y"}}}`,
		`{"Item":{"a":{"S":"x"}},"Other":1}`, `{"Item":{"a":{"S":"x"}}}}`, `{"Item":{"a":{"S":"\ud800"}}}`, `{"Item":null}`,
		`{"Item":{"a":{"SS":["x","x"]}}}`, `{ "Item":{"a":{"B":"AAE="}}}`, `{"Item":{"a":{"N":"1e400"}}}`,
		`{"Item":{"pk":{"S":"a"},"ss":{"SS":["b","a"]},"ok":{"BOOL":true},"n":{"N":"07"}}}`, `{"Item":{ }}`, `{"Item":{"a":{"S":"x"}} }`,
		`{"Item":{"a":{"S":"x"}}{}}`, `{"Item":{"a":{"S":"x"},"a":{"S":"y"}}}`, `{"Item":{"a":{"M":{}}}}`,
	} {
		checkJSONTwins(t, []byte(line))
	}
}

func checkJSONTwins(t *testing.T, b []byte) {
	t.Helper()
	fast, ferr := decodeJSONLine(b)
	plain, perr := decodeJSONLinePlain(b)
	rec, eerr := decodeJSONEncoded(b)
	if (eerr == nil) != (perr == nil) {
		t.Fatalf("%s: encoded %v; plain %v", b, eerr, perr)
	}
	if eerr == nil && !rec.Encoded.IsZero() {
		it, err := rec.Encoded.Item()
		if err != nil || rec.Item != nil || !attr.Equal(attr.Map(it), attr.Map(plain)) || rec.Encoded.Size() != plain.Size() {
			t.Fatalf("%s: encoded %v (size %d), %v; plain %v (size %d)", b, it, rec.Encoded.Size(), err, plain, plain.Size())
		}
	} else if eerr == nil && !attr.Equal(attr.Map(rec.Item), attr.Map(plain)) {
		t.Fatalf("%s: encoded path's item %v; plain %v", b, rec.Item, plain)
	}
	if (ferr == nil) != (perr == nil) || len(fast) != len(plain) {
		t.Fatalf("%s: fast %v, %v; plain %v, %v", b, fast, ferr, plain, perr)
	}
	for k, v := range plain {
		if !attr.Equal(fast[k], v) {
			t.Fatalf("%s: %q fast %#v, plain %#v", b, k, fast[k], v)
		}
	}
}

func FuzzJSONLineTwins(f *testing.F) {
	f.Add([]byte(`{"Item":{"a":{"S":"x"},"n":{"N":"1.50"}}}`))
	f.Add([]byte(`{"Item":{"a":{"M":{"b":{"L":[{"NULL":true}]}}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) { checkJSONTwins(t, b) })
}
