package transfer

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

func TestReaderFormats(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // each item as DynamoDB-JSON
	}{
		{"typed", `{"pk":{"S":"a"},"n":{"N":"1.50"}}`, []string{`{"n":{"N":"1.5"},"pk":{"S":"a"}}`}},
		{"export shape", `{"Item":{"pk":{"S":"a"},"b":{"B":"AQI="}}}`, []string{`{"b":{"B":"AQI="},"pk":{"S":"a"}}`}},
		{"plain", `{"pk":"a","n":12345678901234567890123456789012345678,"ok":true,"z":null,"l":[1,"x"],"m":{"k":"v"}}`,
			[]string{`{"l":{"L":[{"N":"1"},{"S":"x"}]},"m":{"M":{"k":{"S":"v"}}},"n":{"N":"12345678901234567890123456789012345678"},"ok":{"BOOL":true},"pk":{"S":"a"},"z":{"NULL":true}}`}},
		// The first item decides: a later plain-looking line in a typed
		// file is an error, not silently reinterpreted (see TestReaderErrors);
		// a typed-looking map in a plain file stays a map.
		{"plain then map", "{\"pk\":\"a\"}\n{\"pk\":{\"S\":\"b\"}}",
			[]string{`{"pk":{"S":"a"}}`, `{"pk":{"M":{"S":{"S":"b"}}}}`}},
		{"blank lines", "\n  \n{\"pk\":\"a\"}\n\n", []string{`{"pk":{"S":"a"}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), "f.jsonl", Unknown)
			var got []string
			for {
				it, _, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(attr.AppendItemJSON(nil, it)))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not json", "{\"pk\":\"a\"}\n{oops", "t.jsonl:2: not a JSON object"},
		{"typed then plain", "{\"pk\":{\"S\":\"a\"}}\n\n{\"pk\":\"b\"}", "t.jsonl:3: "},
		{"bad number", `{"pk":"a","n":1e999}`, "t.jsonl:1: attribute \"n\": "},
		{"empty set", `{"pk":{"S":"a"},"s":{"SS":[]}}`, "t.jsonl:1: "},
		{"empty item", `{}`, "t.jsonl:1: empty item"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), "t.jsonl", Unknown)
			var err error
			for err == nil {
				_, _, err = r.Next()
			}
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LineError", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %q, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestSDKRoundTrip(t *testing.T) {
	var it attr.Item
	in := `{"s":{"S":"x"},"n":{"N":"-1.5E3"},"b":{"B":"AAE="},"t":{"BOOL":true},"z":{"NULL":true},` +
		`"m":{"M":{"l":{"L":[{"N":"1"},{"SS":["a","b"]}]}}},"ss":{"SS":["p"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AQ=="]}}`
	if err := it.UnmarshalJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	back, err := FromSDK(ToSDK(it))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(attr.AppendItemJSON(nil, back)), string(attr.AppendItemJSON(nil, it)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
