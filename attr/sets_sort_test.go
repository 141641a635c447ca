package attr

import (
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
