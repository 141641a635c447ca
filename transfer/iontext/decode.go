package iontext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/amazon-ion/ion-go/ion"

	"github.com/ddblocal/ddblocal/attr"
)

// maxDepth bounds nesting while reading, before attr's own 32-level rule
// applies, so a hostile line cannot exhaust the stack.
const maxDepth = 64

// DecodeLine reads one line of an Ion export or import file with the Ion
// library's reader: $ion_1_0 version markers, then one struct holding the
// record's top-level fields ({Item:{...}} or Metadata/Keys/NewImage/
// OldImage), and nothing after it. It returns the struct's members, each
// read as a DynamoDB value.
func DecodeLine(b []byte) (map[string]attr.Value, error) {
	b, err := joinSurrogates(b)
	if err != nil {
		return nil, err
	}
	r := ion.NewReaderBytes(b)
	if err := skipVersionMarkers(r); err != nil {
		return nil, err
	}
	if r.Type() != ion.StructType || r.IsNull() {
		return nil, fmt.Errorf("ion: want a struct, have %v", r.Type())
	}
	if err := noAnnotations(r); err != nil {
		return nil, err
	}
	m, err := readStruct(r, 0)
	if err != nil {
		return nil, err
	}
	if r.Next() {
		return nil, errors.New("ion: unexpected value after the struct")
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// skipVersionMarkers moves the reader to the line's first value that is
// not a version marker. The library's text reader hands a top-level
// $ion_1_0 back as a symbol; Ion's text format says it is the version
// marker, which starts every record of an export.
func skipVersionMarkers(r ion.Reader) error {
	for r.Next() {
		if r.Type() != ion.SymbolType || r.IsNull() {
			return nil
		}
		sym, err := r.SymbolValue()
		if err != nil {
			return err
		}
		if as, _ := r.Annotations(); sym == nil || sym.Text == nil || *sym.Text != "$ion_1_0" || len(as) > 0 {
			return errors.New("ion: want a struct, have a symbol")
		}
	}
	return orErr(r.Err(), "want a struct")
}

// joinSurrogates rewrites each pair of \uHHHH escapes that encodes one
// code point in UTF-16 surrogates (as JSON writers escape characters
// beyond the Basic Multilingual Plane) into the \UHHHHHHHH escape Ion has
// for it: the library reads each half as a code point of its own and
// stores U+FFFD in its place. A surrogate escape that is not half of such
// a pair is refused (a surrogate is no code point). A line without \u is
// returned as it is.
func joinSurrogates(b []byte) ([]byte, error) {
	if !bytes.Contains(b, []byte(`\u`)) {
		return b, nil
	}
	var out []byte
	last := 0
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		hi, ok := hexEscape(b, i)
		if !ok || hi < 0xd800 || hi > 0xdfff {
			i++ // the escaped character, which may be a backslash
			continue
		}
		lo, ok := hexEscape(b, i+6)
		if !ok || hi >= 0xdc00 || lo < 0xdc00 || lo > 0xdfff {
			return nil, errors.New("ion: a \\u escape of half a surrogate pair")
		}
		out = fmt.Appendf(append(out, b[last:i]...), `\U%08x`, 0x10000+(hi-0xd800)<<10+(lo-0xdc00))
		i += 11
		last = i + 1
	}
	return append(out, b[last:]...), nil
}

// hexEscape reads the \uHHHH escape at b[i:], if there is one.
func hexEscape(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
	return rune(n), err == nil
}

// orErr returns err, or an error saying msg when err is nil.
func orErr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New("ion: " + msg)
}

// noAnnotations refuses an annotated value where no set may stand.
func noAnnotations(r ion.Reader) error {
	as, err := r.Annotations()
	if err != nil || len(as) == 0 {
		return err
	}
	return fmt.Errorf("ion: unsupported annotation %s", symbolText(as[0]))
}

func symbolText(t ion.SymbolToken) string {
	if t.Text != nil {
		return *t.Text
	}
	return "$" + strconv.FormatInt(t.LocalSID, 10)
}

// readStruct reads the struct the reader is on into a map; a repeated
// field keeps the last.
func readStruct(r ion.Reader, depth int) (map[string]attr.Value, error) {
	if err := r.StepIn(); err != nil {
		return nil, err
	}
	m := map[string]attr.Value{}
	for r.Next() {
		name, err := r.FieldName()
		if err != nil {
			return nil, err
		}
		if name == nil || name.Text == nil {
			return nil, errors.New("ion: a field name without text")
		}
		v, err := readValue(r, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", *name.Text, err)
		}
		m[*name.Text] = v
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return m, r.StepOut()
}

// readList reads the list the reader is on.
func readList(r ion.Reader, depth int) ([]attr.Value, error) {
	if err := r.StepIn(); err != nil {
		return nil, err
	}
	l := []attr.Value{}
	for r.Next() {
		v, err := readValue(r, depth+1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return l, r.StepOut()
}

// readValue reads the value the reader is on, depth containers deep.
func readValue(r ion.Reader, depth int) (attr.Value, error) {
	if depth > maxDepth {
		return attr.Value{}, errors.New("ion: nested too deeply")
	}
	as, err := r.Annotations()
	if err != nil {
		return attr.Value{}, err
	}
	if len(as) > 0 {
		return readSet(r, as, depth)
	}
	if r.IsNull() {
		return attr.Null(), nil
	}
	return readScalar(r, depth)
}

// readScalar reads a value that is neither null nor annotated; it is one
// type switch over Ion's types, refusing those DynamoDB has none for.
func readScalar(r ion.Reader, depth int) (attr.Value, error) {
	switch t := r.Type(); t {
	case ion.BoolType:
		b, err := r.BoolValue()
		if err != nil || b == nil {
			return attr.Value{}, orErr(err, "bad bool")
		}
		return attr.Bool(*b), nil
	case ion.IntType, ion.DecimalType, ion.FloatType:
		return readNumber(r)
	case ion.StringType:
		s, err := r.StringValue()
		if err != nil || s == nil {
			return attr.Value{}, orErr(err, "bad string")
		}
		return attr.String(*s), nil
	case ion.BlobType:
		b, err := r.ByteValue()
		if err != nil {
			return attr.Value{}, err
		}
		return attr.Binary(append([]byte{}, b...)), nil
	case ion.StructType:
		m, err := readStruct(r, depth)
		return attr.Map(m), err
	case ion.ListType:
		l, err := readList(r, depth)
		return attr.List(l), err
	default:
		return attr.Value{}, fmt.Errorf("ion: unsupported value of type %v", t)
	}
}

// readNumber reads an Ion int, decimal or float as a DynamoDB number: an
// int or a decimal exactly, a float (a binary64 in Ion) as the shortest
// decimal that reads back as it; nan and the infinities are refused.
func readNumber(r ion.Reader) (attr.Value, error) {
	var text string
	switch r.Type() {
	case ion.IntType:
		n, err := r.BigIntValue()
		if err != nil || n == nil {
			return attr.Value{}, orErr(err, "bad int")
		}
		text = n.String()
	case ion.DecimalType:
		d, err := r.DecimalValue()
		if err != nil || d == nil {
			return attr.Value{}, orErr(err, "bad decimal")
		}
		coef, exp := d.CoEx()
		text = coef.String() + "E" + strconv.FormatInt(int64(exp), 10)
	default:
		f, err := r.FloatValue()
		if err != nil || f == nil {
			return attr.Value{}, orErr(err, "bad float")
		}
		if math.IsNaN(*f) || math.IsInf(*f, 0) {
			return attr.Value{}, fmt.Errorf("ion: unsupported number %v", *f)
		}
		text = strconv.FormatFloat(*f, 'g', -1, 64)
	}
	return attr.Number(text)
}

// readSet reads a list annotated $dynamodb_SS, $dynamodb_NS or
// $dynamodb_BS as that set; any other annotation is refused.
func readSet(r ion.Reader, as []ion.SymbolToken, depth int) (attr.Value, error) {
	ann := symbolText(as[0])
	want, ok := map[string]attr.Type{annSS: attr.TypeS, annNS: attr.TypeN, annBS: attr.TypeB}[ann]
	if !ok || len(as) > 1 {
		return attr.Value{}, fmt.Errorf("ion: unsupported annotation %s", symbolText(as[len(as)-1]))
	}
	if r.Type() != ion.ListType || r.IsNull() {
		return attr.Value{}, fmt.Errorf("ion: annotation %s on a value that is not a list", ann)
	}
	l, err := readList(r, depth)
	if err != nil {
		return attr.Value{}, err
	}
	var ss []string
	var bs [][]byte
	for _, v := range l {
		if v.T != want {
			return attr.Value{}, fmt.Errorf("ion: %s holds a value of another type", ann)
		}
		ss, bs = append(ss, v.S), append(bs, v.B)
	}
	v := attr.BinarySet(bs...)
	switch want {
	case attr.TypeS:
		v = attr.StringSet(ss...)
	case attr.TypeN:
		if v, err = attr.NumberSet(ss...); err != nil {
			return attr.Value{}, err
		}
	}
	return v, v.Validate()
}
