package attr

import (
	"encoding/base64"
	"slices"
)

// MarshalJSON returns v in DynamoDB-JSON (see AppendJSON).
func (v Value) MarshalJSON() ([]byte, error) {
	return AppendJSON(make([]byte, 0, 32), v), nil
}

// MarshalJSON returns it in DynamoDB-JSON (see AppendItemJSON).
func (it Item) MarshalJSON() ([]byte, error) {
	return AppendItemJSON(make([]byte, 0, 64*len(it)+2), it), nil
}

// AppendJSON appends v in DynamoDB-JSON ({"S":"x"}, {"N":"1"},
// {"M":{...}}, ...) to dst and returns the extended slice. Map keys are
// written in sorted order so that output is deterministic; set members keep
// their order. A Value with no type is written as {}.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.T {
	case TypeS:
		dst = append(dst, `{"S":`...)
		dst = AppendJSONString(dst, v.S)
	case TypeN:
		dst = append(dst, `{"N":`...)
		dst = AppendJSONString(dst, v.S)
	case TypeB:
		dst = append(dst, `{"B":`...)
		dst = appendBase64(dst, v.B)
	case TypeBOOL:
		if v.Bool {
			return append(dst, `{"BOOL":true}`...)
		}
		return append(dst, `{"BOOL":false}`...)
	case TypeNULL:
		return append(dst, `{"NULL":true}`...)
	case TypeM:
		dst = append(dst, `{"M":`...)
		dst = AppendItemJSON(dst, v.M)
	case TypeL:
		dst = appendArray(append(dst, `{"L":`...), v.L, AppendJSON)
	case TypeSS:
		dst = appendArray(append(dst, `{"SS":`...), v.SS, AppendJSONString)
	case TypeNS:
		dst = appendArray(append(dst, `{"NS":`...), v.SS, AppendJSONString)
	case TypeBS:
		dst = appendArray(append(dst, `{"BS":`...), v.BS, appendBase64)
	default:
		return append(dst, '{', '}')
	}
	return append(dst, '}')
}

// appendArray appends xs as a JSON array, each element by appendElem.
func appendArray[T any](dst []byte, xs []T, appendElem func([]byte, T) []byte) []byte {
	dst = append(dst, '[')
	for i, x := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendElem(dst, x)
	}
	return append(dst, ']')
}

// AppendItemJSON appends it as a DynamoDB-JSON object of attribute values
// ({"a":{"S":"x"},...}), names sorted, to dst and returns the extended
// slice. A nil or empty item is written as {}.
func AppendItemJSON(dst []byte, it Item) []byte {
	dst = append(dst, '{')
	var small [16]string
	keys := small[:0]
	for k := range it {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, k)
		dst = append(dst, ':')
		dst = AppendJSON(dst, it[k])
	}
	return append(dst, '}')
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}
