package attr

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestErrorKinds checks that each failure matches its sentinel with
// errors.Is and still carries DynamoDB's words.
func TestErrorKinds(t *testing.T) {
	unmarshal := func(js string) error {
		var v Value
		return json.Unmarshal([]byte(js), &v)
	}
	deep, end := `{"S":"x"}`, ""
	for range 40 {
		deep, end = `{"L":[`+deep, end+`]}`
	}
	deep += end
	for _, c := range []struct {
		name    string
		err     error
		kind    error
		wantMsg string
	}{
		{"empty value", unmarshal(`{}`), ErrEmptyValue, msgEmptyValue},
		{"two types", unmarshal(`{"S":"a","N":"1"}`), ErrManyTypes, msgManyTypes},
		{"null false", unmarshal(`{"NULL":false}`), ErrNullFalse, msgNullFalse},
		{"not a number", func() error { _, err := ParseNumber("1x"); return err }(), ErrNotNumber, msgUnconvertible + ": 1x"},
		{"precision", func() error { _, err := ParseNumber("1234567890123456789012345678901234567891"); return err }(), ErrPrecision, msgPrecision},
		{"overflow", func() error { _, err := ParseNumber("1E126"); return err }(), ErrOverflow, msgOverflow},
		{"underflow", func() error { _, err := ParseNumber("1E-131"); return err }(), ErrUnderflow, msgUnderflow},
		{"empty set", func() error { _, err := NumberSet(); return err }(), ErrEmptySet, msgEmptyNS},
		{"duplicates", unmarshal(`{"SS":["a","a"]}`), ErrDuplicates, ""},
		{"nesting", unmarshal(deep), ErrNesting, msgNesting},
		{"malformed", unmarshal(`{"S":1}`), ErrMalformed, ""},
		{"corrupt", func() error { _, err := DecodeBinary([]byte{0xff, 0xff}); return err }(), ErrCorrupt, ""},
		{"bad key", func() error { _, _, err := DecodeKey([]byte{}, TypeS); return err }(), ErrBadKey, ""},
		{"not a key type", func() error { _, _, err := DecodeKey([]byte{1}, TypeBOOL); return err }(), ErrNotKeyType, ""},
	} {
		if c.err == nil {
			t.Errorf("%s: got no error", c.name)
			continue
		}
		if c.kind != nil && !errors.Is(c.err, c.kind) {
			t.Errorf("%s: errors.Is(%v, %v) is false", c.name, c.err, c.kind)
		}
		if c.wantMsg != "" && c.err.Error() != c.wantMsg {
			t.Errorf("%s: got message %q, want %q", c.name, c.err, c.wantMsg)
		}
		for _, other := range []error{ErrEmptyValue, ErrNotNumber, ErrCorrupt} {
			if other != c.kind && errors.Is(c.err, other) {
				t.Errorf("%s: %v also matches %v", c.name, c.err, other)
			}
		}
	}
}
