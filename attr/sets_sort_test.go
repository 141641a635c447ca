package attr

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestDecodedSetsSorted: sets decoded from JSON hold their members in
// DynamoDB Local's order, whatever order they were sent in.
func TestDecodedSetsSorted(t *testing.T) {
	tests := []struct {
		json string
		want Value
	}{
		{`{"SS":["b","B","é","a","ab"]}`, Value{T: TypeSS, SS: []string{"B", "a", "ab", "b", "é"}}},
		{`{"NS":["10","9","-1","1E2","0.50","-20"]}`, Value{T: TypeNS, SS: []string{"-20", "-1", "0.5", "9", "10", "100"}}},
		{`{"BS":["Ag==","AQI=","/w==","AQ=="]}`, Value{T: TypeBS, BS: [][]byte{{1}, {1, 2}, {2}, {0xff}}}},
		{`{"SS":["a"]}`, Value{T: TypeSS, SS: []string{"a"}}},
	}
	for _, tt := range tests {
		var v Value
		if err := v.UnmarshalJSON([]byte(tt.json)); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if !reflect.DeepEqual(v, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.json, v, tt.want)
		}
	}
	// A duplicate is still reported with the members as sent.
	var v Value
	err := v.UnmarshalJSON([]byte(`{"SS":["b","a","b"]}`))
	if got, want := errString(err), "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."; got != want {
		t.Errorf("duplicates: got %q, want %q", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestNameSizeLimit: an attribute name, at any depth, may be up to
// MaxNameBytes long; a longer one is DynamoDB's validation error, whichever
// decoder reads the item.
func TestNameSizeLimit(t *testing.T) {
	name := func(n int) string { return strings.Repeat("n", n) }
	tests := []struct {
		json string
		ok   bool
	}{
		{`{"` + name(MaxNameBytes) + `":{"S":"x"}}`, true},
		{`{"` + name(MaxNameBytes+1) + `":{"S":"x"}}`, false},
		{`{"m":{"M":{"` + name(MaxNameBytes+1) + `":{"N":"1"}}}}`, false},
		{`{"l":{"L":[{"M":{"` + name(MaxNameBytes+1) + `":{"N":"1"}}}]}}`, false},
	}
	for i, tt := range tests {
		var it Item
		errItem := it.UnmarshalJSON([]byte(tt.json))
		var enc Encoded
		errEnc := enc.UnmarshalJSON([]byte(tt.json))
		for what, err := range map[string]error{"Item": errItem, "Encoded": errEnc} {
			switch {
			case tt.ok && err != nil:
				t.Errorf("%d %s: %v, want success", i, what, err)
			case !tt.ok && errString(err) != MsgNameTooLarge:
				t.Errorf("%d %s: got %v, want %q", i, what, err, MsgNameTooLarge)
			}
		}
	}
}

// TestDuplicatesByLayer: a set holding a member twice is worded by the
// older request layer with the members as sent (a number set's without the
// prefix and full stop) and by the current one (Error.Current) with the
// members quoted, those before the first repeat in byte order, and no
// member of a number set (paritysuite/dynamodb-conformance valueLayers,
// four regions, 2026-10-09).
func TestDuplicatesByLayer(t *testing.T) {
	const pre = "One or more parameter values were invalid: Input collection "
	tests := []struct{ json, older, current string }{
		{`{"SS":["b","a","b"]}`, pre + "[b, a, b] contains duplicates.", pre + `["a", "b", "b"] contains duplicates.`},
		{`{"SS":["c","a","c","b"]}`, pre + "[c, a, c, b] contains duplicates.", pre + `["a", "c", "c", "b"] contains duplicates.`},
		{`{"SS":["a","a"]}`, pre + "[a, a] contains duplicates.", pre + `["a", "a"] contains duplicates.`},
		{`{"BS":["/w==","AA==","AA=="]}`, pre + "[/w==, AA==, AA==]of type BS contains duplicates.", pre + `["AA==","/w==","AA=="]of type BS contains duplicates.`},
		{`{"NS":["2","1","2"]}`, "Input collection contains duplicates", pre + "contains duplicates."},
		{`{"NS":["1","1.0"]}`, "Input collection contains duplicates", pre + "contains duplicates."},
	}
	for _, tt := range tests {
		var v Value
		err := v.UnmarshalJSON([]byte(tt.json))
		var ae *Error
		if !errors.As(err, &ae) || !errors.Is(err, ErrDuplicates) {
			t.Fatalf("%s: got %v, want a duplicates *Error", tt.json, err)
		}
		if ae.Msg != tt.older || ae.CurrentMsg() != tt.current {
			t.Errorf("%s: got older %q, current %q; want %q, %q", tt.json, ae.Msg, ae.CurrentMsg(), tt.older, tt.current)
		}
	}
}
