package codec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ddblocal/ddblocal/attr"
)

// Encoder writes handler results as JSON without encoding/json's costs on
// item-heavy responses: encoding/json calls attr.Item's MarshalJSON and then
// re-scans and compacts every byte it returned (half of a Query's CPU in
// the profile). Here attr.Item and attr.Value are appended directly, and the
// reflection walk of the surrounding structs is planned once per type.
//
// The output is what encoding/json produces with SetEscapeHTML(false): same
// member names and order, omitempty, null for nil pointers, slices and maps,
// sorted map keys, base64 []byte, the same number formats. Anything this
// Encoder does not model (embedded structs, ",string", omitzero, Marshaler
// and TextMarshaler types other than attr's, non-string map keys) is handed
// to encoding/json for that value, so the result stays correct.
type Encoder struct {
	plans sync.Map // reflect.Type → encodeFunc
}

// encodeFunc appends the JSON of v to dst.
type encodeFunc func(e *Encoder, dst []byte, v reflect.Value) ([]byte, error)

// Types the planner recognises; set once, never modified.
var (
	itemType          = reflect.TypeFor[attr.Item]()
	valueType         = reflect.TypeFor[attr.Value]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// AppendValue appends the JSON of v (nil → null) to dst.
func (e *Encoder) AppendValue(dst []byte, v any) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	rv := reflect.ValueOf(v)
	return e.planFor(rv.Type())(e, dst, rv)
}

// planFor returns t's encodeFunc, building and caching it on first use.
// Plans look up their element types' plans only when they run, so building
// one never recurses and recursive types need no special care.
func (e *Encoder) planFor(t reflect.Type) encodeFunc {
	if f, ok := e.plans.Load(t); ok {
		return f.(encodeFunc)
	}
	f, _ := e.plans.LoadOrStore(t, newPlan(t))
	return f.(encodeFunc)
}

// newPlan builds the encodeFunc of t.
func newPlan(t reflect.Type) encodeFunc {
	switch t {
	case itemType:
		return encodeItem
	case valueType:
		return encodeAttrValue
	case readOutputType:
		return encodeReadOutput
	case getItemOutputType:
		return encodeGetItemOutput
	}
	if t.Kind() != reflect.Pointer && (t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return encodeFallback
	}
	switch t.Kind() {
	case reflect.Bool:
		return encodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return encodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return encodeUint
	case reflect.Float32, reflect.Float64:
		return encodeFloat
	case reflect.String:
		return encodeString
	case reflect.Interface:
		return encodeInterface
	case reflect.Pointer:
		if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
			return encodeFallback
		}
		return newPointerPlan(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(marshalerType) &&
			!reflect.PointerTo(t.Elem()).Implements(textMarshalerType) {
			return encodeBytes
		}
		return newSlicePlan(t)
	case reflect.Array:
		return newArrayPlan(t)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return encodeFallback
		}
		return newMapPlan(t)
	case reflect.Struct:
		return newStructPlan(t)
	}
	return encodeFallback
}

// encodeFallback lets encoding/json encode v: the path for shapes this
// Encoder does not model, and for its errors (NaN, channels, ...).
func encodeFallback(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

func encodeItem(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	return attr.AppendItemJSON(dst, v.Interface().(attr.Item)), nil
}

func encodeAttrValue(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	return attr.AppendJSON(dst, v.Interface().(attr.Value)), nil
}

func encodeBool(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	return strconv.AppendBool(dst, v.Bool()), nil
}

func encodeInt(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	return strconv.AppendInt(dst, v.Int(), 10), nil
}

func encodeUint(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	return strconv.AppendUint(dst, v.Uint(), 10), nil
}

// encodeFloat formats as encoding/json does: shortest representation,
// exponent form only for very small or large magnitudes, "e-07" as "e-7".
func encodeFloat(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	f := v.Float()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return encodeFallback(e, dst, v) // encoding/json's UnsupportedValueError
	}
	bits := v.Type().Bits()
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

func encodeString(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	return attr.AppendJSONString(dst, v.String()), nil
}

func encodeBytes(_ *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, v.Bytes())
	return append(dst, '"'), nil
}

func encodeInterface(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	el := v.Elem()
	return e.planFor(el.Type())(e, dst, el)
}

func newPointerPlan(t reflect.Type) encodeFunc {
	elem := t.Elem()
	return func(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		return e.planFor(elem)(e, dst, v.Elem())
	}
}

func newSlicePlan(t reflect.Type) encodeFunc {
	arr := newArrayPlan(t)
	return func(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		return arr(e, dst, v)
	}
}

func newArrayPlan(t reflect.Type) encodeFunc {
	elem := t.Elem()
	return func(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
		dst = append(dst, '[')
		n := v.Len()
		if n > 0 {
			f := e.planFor(elem)
			var err error
			for i := range n {
				if i > 0 {
					dst = append(dst, ',')
				}
				if dst, err = f(e, dst, v.Index(i)); err != nil {
					return dst, err
				}
			}
		}
		return append(dst, ']'), nil
	}
}

func newMapPlan(t reflect.Type) encodeFunc {
	elem := t.Elem()
	return func(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		keys := make([]string, 0, v.Len())
		vals := make(map[string]reflect.Value, v.Len())
		for it := v.MapRange(); it.Next(); {
			k := it.Key().String()
			keys = append(keys, k)
			vals[k] = it.Value()
		}
		slices.Sort(keys)
		f := e.planFor(elem)
		dst = append(dst, '{')
		var err error
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = attr.AppendJSONString(dst, k)
			dst = append(dst, ':')
			if dst, err = f(e, dst, vals[k]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
}

// field is one member of a struct plan.
type field struct {
	index     int
	prefix    string // `"Name":`, with the comma for all but the first written
	omitEmpty bool
	typ       reflect.Type
}

// newStructPlan plans t's exported fields in declaration order, following
// their json tags. Embedded fields, duplicate or unusual names and tag
// options other than omitempty make the whole struct fall back.
func newStructPlan(t reflect.Type) encodeFunc {
	var fields []field
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return encodeFallback
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omit := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				omit = true
			default:
				return encodeFallback // ",string", omitzero, ...
			}
		}
		if name == "" {
			name = sf.Name
		} else if !plainName(name) {
			return encodeFallback
		}
		if seen[name] {
			return encodeFallback
		}
		seen[name] = true
		fields = append(fields, field{index: i, prefix: `"` + name + `":`, omitEmpty: omit, typ: sf.Type})
	}
	return func(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
		dst = append(dst, '{')
		first := true
		var err error
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmpty(fv) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, f.prefix...)
			if dst, err = e.planFor(f.typ)(e, dst, fv); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
}

// plainName reports whether a tag name can be written between quotes as is
// and would be accepted by encoding/json (letters, digits, and a few
// punctuation marks).
func plainName(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.', c == '$':
		default:
			return false
		}
	}
	return true
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
