package codec

import (
	"reflect"

	"github.com/ddblocal/ddblocal/attr"
)

// deepUnmarshaler is a json.Unmarshaler that can also read a value nested
// past DynamoDB's limit, up to a bound of its own (attr's values and items).
type deepUnmarshaler interface {
	UnmarshalJSONDeep(b []byte) error
}

// DecodeDeep decodes body into v (a pointer to a zero struct) as the fast
// path does, except that attribute values may nest up to
// attr.MaxDecodeDepth containers: for a request that Decode refused as
// nested too deeply, so that the caller can find what else is wrong with it
// and report what DynamoDB reports first. What it decodes must never be
// executed. It reports false when the body is not one the fast path reads
// (or nests past the bound); the caller then keeps Decode's answer.
func (fd *Decoder) DecodeDeep(body []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || !rv.Elem().IsZero() {
		return false
	}
	// Two JSON levels per container, and a few for the request around it.
	s := scanner{b: body, deeper: 2*attr.MaxDecodeDepth + 16 - maxSkipDepth}
	s.ws()
	if !fd.value(&s, rv.Elem()) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// deepValue decodes the value at s into v, a type that decodes itself, by
// its deepUnmarshaler when it has one.
func (s *scanner) deepValue(v reflect.Value) bool {
	start := s.i
	if !s.skip(0) {
		return false
	}
	raw := s.b[start:s.i]
	if d, ok := v.Addr().Interface().(deepUnmarshaler); ok {
		return d.UnmarshalJSONDeep(raw) == nil
	}
	return v.Addr().Interface().(interface{ UnmarshalJSON([]byte) error }).UnmarshalJSON(raw) == nil
}
