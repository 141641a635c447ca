package codec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Decoder decodes the common shape of a request body in one pass over
// the bytes, where encoding/json makes three over every item (validate the
// whole body, find each member's extent, then attr's own decode) and
// reflects its way through each struct.
//
// It is a fast path only: it accepts exactly what the SDKs send — members
// named exactly as the struct's fields, ASCII strings without escapes
// outside attribute values, plain integers — and gives up (ok=false) on
// anything else, including every error. The caller then zeroes the target
// and runs encoding/json, so results and error messages are unchanged.
type Decoder struct {
	plans sync.Map // reflect.Type → *decodePlan
}

// decodePlan says how to fill one type; nil fields means "give up".
type decodePlan struct {
	kind   decodeKind
	fields map[string][]int // struct: member name → field index path
	elem   reflect.Type     // pointer, slice, map: element type
}

type decodeKind uint8

const (
	decodeUnsupported decodeKind = iota
	decodeUnmarshaler            // *T implements json.Unmarshaler (attr.Item, attr.Value, ...)
	decodePrefix                 // *T implements prefixUnmarshaler too (attr.Encoded)
	decodeString
	decodeBool
	decodeInt
	decodeFloat
	decodePointer // from here on composite kinds (see value); keep them last
	decodeSlice
	decodeMap
	decodeStruct
)

// Decode decodes body into v: by the fast path when it can, otherwise
// (and for every error) by Unmarshal from a zeroed v, so that what is
// decoded and how errors read never depend on which path ran.
func (fd *Decoder) Decode(body []byte, v any) error {
	if err := nullBody(body); err != nil {
		return err
	}
	// Only a zero target can be reset for the fallback without losing
	// what the caller put there.
	if rv := reflect.ValueOf(v); len(body) > 0 &&
		rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().IsZero() {
		if tried, ok := decodeFast(body, v); ok {
			return nil
		} else if tried {
			rv.Elem().SetZero()
		}
		if fd.decode(body, v) {
			return nil
		}
		rv.Elem().SetZero()
	}
	return Unmarshal(body, v)
}

// decode fills v (a non-nil pointer to a zero struct) from body and
// reports whether it succeeded; on false, v may be partly filled.
func (fd *Decoder) decode(body []byte, v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	s := scanner{b: body}
	s.ws()
	if !fd.value(&s, rv.Elem()) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

func (fd *Decoder) plan(t reflect.Type) *decodePlan {
	if p, ok := fd.plans.Load(t); ok {
		return p.(*decodePlan)
	}
	p, _ := fd.plans.LoadOrStore(t, newDecodePlan(t))
	return p.(*decodePlan)
}

func newDecodePlan(t reflect.Type) *decodePlan {
	pt := reflect.PointerTo(t)
	if pt.Implements(reflect.TypeFor[json.Unmarshaler]()) && pt.Implements(reflect.TypeFor[prefixUnmarshaler]()) {
		return &decodePlan{kind: decodePrefix}
	}
	if pt.Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return &decodePlan{kind: decodeUnmarshaler}
	}
	if pt.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return &decodePlan{}
	}
	switch t.Kind() {
	case reflect.String:
		return &decodePlan{kind: decodeString}
	case reflect.Bool:
		return &decodePlan{kind: decodeBool}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &decodePlan{kind: decodeInt}
	case reflect.Float64:
		return &decodePlan{kind: decodeFloat}
	case reflect.Pointer:
		return &decodePlan{kind: decodePointer, elem: t.Elem()}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &decodePlan{} // base64 []byte
		}
		return &decodePlan{kind: decodeSlice, elem: t.Elem()}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key() != reflect.TypeFor[string]() {
			return &decodePlan{}
		}
		return &decodePlan{kind: decodeMap, elem: t.Elem()}
	case reflect.Struct:
		fields := map[string][]int{}
		if !collectFields(t, nil, fields) {
			return &decodePlan{}
		}
		return &decodePlan{kind: decodeStruct, fields: fields}
	}
	return &decodePlan{}
}

// collectFields adds t's JSON members (promoting those of embedded structs)
// to fields. It returns false for anything whose member set it does not
// model exactly like encoding/json: tag options beyond omitempty, names
// that repeat at any depth, embedded pointers or non-structs.
func collectFields(t reflect.Type, prefix []int, fields map[string][]int) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" && opts != "omitempty" {
			return false
		}
		path := append(append([]int(nil), prefix...), i)
		if sf.Anonymous && name == "" {
			if sf.Type.Kind() != reflect.Struct {
				return false
			}
			if !collectFields(sf.Type, path, fields) {
				return false
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		} else if !plainName(name) {
			return false
		}
		if _, dup := fields[name]; dup {
			return false
		}
		fields[name] = path
	}
	return true
}

// prefixUnmarshaler is a json.Unmarshaler that can decode a value at the
// start of longer input and say where it ends, sparing the fast path the
// pass that finds the value's extent before UnmarshalJSON reads it again.
// ok=false decides nothing: the value then goes through UnmarshalJSON.
type prefixUnmarshaler interface {
	UnmarshalJSONPrefix(b []byte) (n int, ok bool)
}

// value decodes the JSON value at s into v.
func (fd *Decoder) value(s *scanner, v reflect.Value) bool {
	p := fd.plan(v.Type())
	if p.kind >= decodePointer {
		return fd.composite(s, v, p)
	}
	return fd.scalar(s, v, p)
}

// scalar decodes a value of a kind below decodePointer: one the type
// decodes itself, a string, a bool or a number.
func (fd *Decoder) scalar(s *scanner, v reflect.Value, p *decodePlan) bool {
	if s.deeper != 0 && (p.kind == decodePrefix || p.kind == decodeUnmarshaler) {
		return s.deepValue(v)
	}
	switch p.kind {
	case decodePrefix:
		if n, ok := v.Addr().Interface().(prefixUnmarshaler).UnmarshalJSONPrefix(s.b[s.i:]); ok {
			s.i += n
			return true
		}
		start := s.i
		if !s.skip(0) {
			return false
		}
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(s.b[start:s.i]) == nil
	case decodeUnmarshaler:
		start := s.i
		if !s.skip(0) {
			return false
		}
		u := v.Addr().Interface().(json.Unmarshaler)
		return u.UnmarshalJSON(s.b[start:s.i]) == nil
	case decodeString:
		str, ok := s.plainBytes()
		if ok {
			v.SetString(string(str))
		}
		return ok
	case decodeBool:
		switch {
		case s.literal("true"):
			v.SetBool(true)
		case s.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
		return true
	case decodeInt:
		num, ok := s.integer()
		if !ok {
			return false
		}
		n, err := strconv.ParseInt(num, 10, v.Type().Bits())
		if err != nil {
			return false
		}
		v.SetInt(n)
		return true
	case decodeFloat:
		num, ok := s.number()
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return false
		}
		v.SetFloat(f)
		return true
	}
	return false
}

// composite decodes a pointer, slice, map or struct.
func (fd *Decoder) composite(s *scanner, v reflect.Value, p *decodePlan) bool {
	switch p.kind {
	case decodePointer:
		if s.literal("null") {
			v.SetZero()
			return true
		}
		if v.IsNil() {
			v.Set(reflect.New(p.elem))
		}
		return fd.value(s, v.Elem())
	case decodeSlice:
		if s.literal("null") {
			v.SetZero()
			return true
		}
		if s.i >= len(s.b) || s.b[s.i] != '[' {
			return false
		}
		sl := reflect.MakeSlice(v.Type(), 0, 4)
		ok := s.elements(']', func() bool {
			sl = reflect.Append(sl, reflect.Zero(p.elem))
			return fd.value(s, sl.Index(sl.Len()-1))
		})
		v.Set(sl)
		return ok
	case decodeMap:
		if s.literal("null") {
			v.SetZero()
			return true
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		elem := reflect.New(p.elem).Elem()
		return s.object(func(key []byte) bool {
			elem.SetZero()
			if !fd.value(s, elem) {
				return false
			}
			v.SetMapIndex(reflect.ValueOf(string(key)), elem)
			return true
		})
	case decodeStruct:
		if s.literal("null") {
			return true
		}
		return s.object(func(key []byte) bool {
			path, ok := p.fields[string(key)] // no copy: a map lookup converts in place
			if !ok {
				return false // unknown, or differently cased: leave it to encoding/json
			}
			return fd.value(s, v.FieldByIndex(path))
		})
	}
	return false
}

// scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
	// deeper, when not 0, is how many JSON levels more than maxSkipDepth
	// skip allows, and says that values decode by their deepUnmarshaler
	// (see DecodeDeep).
	deeper int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// object reads {"k":v,...}, calling member with s positioned at each value.
func (s *scanner) object(member func(key []byte) bool) bool {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	return s.elements('}', func() bool {
		key, ok := s.plainBytes()
		return ok && s.colon() && member(key)
	})
}

// elements steps through the comma-separated elements of the object or
// array whose opening bracket is at the scanner, calling each at every
// element, up to the closing bracket.
func (s *scanner) elements(closing byte, each func() bool) bool {
	s.i++ // the opening bracket
	for first := true; ; first = false {
		s.ws()
		if s.consume(closing) {
			return true
		}
		if !first {
			if !s.consume(',') {
				return false
			}
			s.ws()
		}
		if !each() {
			return false
		}
	}
}

// colon reads the colon after a member's name and the whitespace around it.
func (s *scanner) colon() bool {
	s.ws()
	if !s.consume(':') {
		return false
	}
	s.ws()
	return true
}

// plainBytes reads a string of printable ASCII without escapes; the result
// aliases the input.
func (s *scanner) plainBytes() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			str := s.b[start:s.i]
			s.i++
			return str, true
		case c < 0x20 || c == '\\' || c >= 0x7f:
			return nil, false
		}
	}
	return nil, false
}

// integer reads -?(0|[1-9][0-9]*) not followed by a fraction or exponent.
func (s *scanner) integer() (string, bool) {
	start := s.i
	num, ok := s.number()
	if !ok || strings.ContainsAny(num, ".eE") {
		s.i = start
		return "", false
	}
	return num, true
}

// number reads a JSON number exactly as the grammar allows.
func (s *scanner) number() (string, bool) {
	start := s.i
	s.consume('-')
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	switch {
	case s.consume('0'):
	case digits() == 0:
		return "", false
	}
	if s.consume('.') && digits() == 0 {
		return "", false
	}
	if s.consume('e') || s.consume('E') {
		if !s.consume('+') {
			s.consume('-')
		}
		if digits() == 0 {
			return "", false
		}
	}
	return string(s.b[start:s.i]), true
}

// maxSkipDepth bounds nesting in skipped values: an attribute value nested
// to DynamoDB's limit of 32 levels is about 70 JSON levels deep; deeper
// input (encoding/json allows 10000) simply takes the slow path.
const maxSkipDepth = 128

// skip steps over one JSON value, checking its syntax as strictly as
// encoding/json does.
func (s *scanner) skip(depth int) bool {
	if s.i >= len(s.b) || depth > maxSkipDepth+s.deeper {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.elements('}', func() bool { return s.skipString() && s.colon() && s.skip(depth+1) })
	case c == '[':
		return s.elements(']', func() bool { return s.skip(depth + 1) })
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

// skipString steps over a string, checking its escapes; like encoding/json
// it lets invalid UTF-8 through (it is replaced when decoded).
func (s *scanner) skipString() bool {
	if !s.consume('"') {
		return false
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if s.i >= len(s.b) {
				return false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if s.i+4 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i : s.i+4] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.i += 4
			default:
				return false
			}
		}
	}
	return false
}
