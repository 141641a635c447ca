package partiql

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// Parameters are a statement's '?' values. They decode as any attribute
// values do, except numbers: DynamoDB reads a PartiQL parameter's number
// the way Java's BigDecimal reads a string, so its refusals differ from an
// attribute value's (the service's answers captured in
// paritysuite/dynamodb-conformance, tests/tier3/error-messages/
// partiqlParameterNumbers, eu-west-2 and us-east-1, October 2026):
//
//   - text that is no number, or whose exponent or scale does not fit a
//     32-bit integer, "cannot be converted", with the text echoed (an empty
//     text: nothing echoed);
//   - the magnitude is judged on precision minus scale in 32-bit
//     arithmetic, which wraps: 1e2147483647 is an underflow.
type Parameters []attr.Value

// UnmarshalJSON decodes a JSON array of attribute values, in order, so the
// first problem in document order is the one reported.
func (ps *Parameters) UnmarshalJSON(b []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return err
	}
	if raws == nil {
		*ps = nil
		return nil
	}
	out := make(Parameters, len(raws))
	for i, raw := range raws {
		v, err := attr.DecodeValueWith(raw, parameterNumber)
		if err != nil {
			return err
		}
		out[i] = v
	}
	*ps = out
	return nil
}

const msgUnconvertible = "The parameter cannot be converted to a numeric value"

// parameterNumber reads one number of a parameter (see Parameters).
func parameterNumber(text string) (attr.Value, error) {
	if text == "" {
		return attr.Value{}, &attr.Error{Msg: msgUnconvertible, Kind: attr.ErrNotNumber}
	}
	precision, scale, ok := bigDecimal(text)
	if !ok {
		return attr.Value{}, &attr.Error{Msg: msgUnconvertible + ": " + text, Kind: attr.ErrNotNumber}
	}
	switch adjusted := int32(precision - scale); { // wraps, as the service's does
	case adjusted > 126:
		return attr.Value{}, attr.OutOfRange(true)
	case adjusted < -129:
		return attr.Value{}, attr.OutOfRange(false)
	}
	return attr.Number(text)
}

// bigDecimal reads text as Java's BigDecimal(String) would: the precision
// (digits of the unscaled value, 1 for zero) and the scale (digits after
// the point, less the exponent). ok is false for text that is no number or
// whose exponent or scale does not fit a 32-bit integer.
func bigDecimal(text string) (precision, scale int64, ok bool) {
	s := strings.TrimPrefix(strings.TrimPrefix(text, "+"), "-")
	if len(s) < len(text)-1 {
		return 0, 0, false // "+-1"
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		if exp == "" {
			return 0, 0, false
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || !allDigits(digits) {
		return 0, 0, false
	}
	e, ok := exponent(exp)
	if !ok {
		return 0, 0, false
	}
	scale = int64(len(frac)) - e
	if scale > math.MaxInt32 || scale < math.MinInt32 {
		return 0, 0, false
	}
	precision = int64(len(strings.TrimLeft(digits, "0")))
	if precision == 0 {
		precision = 1
	}
	return precision, scale, true
}

// exponent reads an exponent ("" is 0); ok is false unless it is a signed
// run of digits whose value fits a 32-bit integer.
func exponent(exp string) (int64, bool) {
	body := strings.TrimPrefix(strings.TrimPrefix(exp, "+"), "-")
	if exp == "" {
		return 0, true
	}
	if body == "" || len(body) < len(exp)-1 || !allDigits(body) {
		return 0, false
	}
	var e int64
	for _, c := range body {
		if e = e*10 + int64(c-'0'); e > math.MaxInt32+1 {
			return 0, false
		}
	}
	if exp[0] == '-' {
		e = -e
	}
	return e, e >= math.MinInt32 && e <= math.MaxInt32
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
