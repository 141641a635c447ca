// Package iontext writes and reads DynamoDB items in Amazon Ion text, as
// the service's exports and imports hold them (developer guide, "DynamoDB
// table export output format", Amazon Ion): S is an Ion string, N a
// decimal, B a blob, BOOL a bool, NULL null, M a struct, L a list, and SS,
// NS and BS lists annotated $dynamodb_SS, $dynamodb_NS and $dynamodb_BS.
//
// The Ion itself is the Amazon Ion library for Go's (github.com/amazon-ion/
// ion-go): its text Writer writes and its Reader reads. This package only
// maps DynamoDB's ten types onto Ion's and back, refusing every Ion value
// DynamoDB has no counterpart for. Only the library's Reader and Writer are
// used (not its reflection-based Marshal), so the linker keeps little of it.
package iontext

import (
	"math/big"
	"slices"
	"strings"

	"github.com/amazon-ion/ion-go/ion"

	"github.com/ddblocal/ddblocal/attr"
)

// Set annotations, as the service writes them.
const (
	annSS = "$dynamodb_SS"
	annNS = "$dynamodb_NS"
	annBS = "$dynamodb_BS"
)

// appender is an io.Writer that appends to a byte slice.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// Encoder writes Ion text records; it reuses its writer, so one Encoder
// per goroutine writes a stream of records without allocating a writer
// for each.
type Encoder struct {
	out appender
	w   ion.Writer
	// names holds the member names of the structs being written, each
	// struct's sorted in its own stretch, so that no struct allocates its
	// own.
	names []string
}

// NewEncoder returns an Encoder.
func NewEncoder() *Encoder {
	e := &Encoder{}
	e.w = ion.NewTextWriter(&e.out)
	return e
}

// Field is one top-level member of a record: a name and a struct of
// attributes.
type Field struct {
	Name string
	Item attr.Item
}

// AppendRecord appends "$ion_1_0 ", the struct of fields, in order, and
// a newline: one line of an export data file; on an error it returns dst
// as it was. The common records are appended directly (encodefast.go),
// every other through the Ion library's writer, with the same bytes.
func (e *Encoder) AppendRecord(dst []byte, fields ...Field) ([]byte, error) {
	n := len(dst)
	out, ok := e.appendRecordFast(dst, fields)
	if ok {
		return out, nil
	}
	return e.appendRecordPlain(out[:n], fields)
}

// appendRecordPlain is AppendRecord through the Ion library's writer: the
// encoder of record, and the fast path's twin.
func (e *Encoder) appendRecordPlain(dst []byte, fields []Field) ([]byte, error) {
	e.names = e.names[:0]
	e.out.b = append(dst, "$ion_1_0 "...)
	err := e.w.BeginStruct()
	for _, f := range fields {
		if err == nil {
			err = e.w.FieldName(ion.NewSymbolTokenFromString(f.Name))
		}
		if err == nil {
			err = e.writeStruct(f.Item)
		}
	}
	if err == nil {
		err = e.w.EndStruct()
	}
	if err == nil {
		err = e.w.Finish()
	}
	out := e.out.b
	e.out.b = nil
	if err != nil {
		e.w = ion.NewTextWriter(&e.out) // a failed writer keeps its error
		return out[:len(dst)], err
	}
	return out, nil
}

// AppendItem appends it as an Ion struct, members in name order, and a
// newline.
func AppendItem(dst []byte, it attr.Item) ([]byte, error) {
	e := NewEncoder()
	e.out.b = dst
	err := e.writeStruct(it)
	if err == nil {
		err = e.w.Finish()
	}
	return e.out.b, err
}

func (e *Encoder) writeStruct(m map[string]attr.Value) error {
	base := len(e.names)
	defer func() { e.names = e.names[:base] }()
	for k := range m {
		e.names = append(e.names, k)
	}
	slices.Sort(e.names[base:])
	if err := e.w.BeginStruct(); err != nil {
		return err
	}
	for i := range len(m) {
		k := e.names[base+i] // a member's struct may have grown e.names
		if err := e.w.FieldName(ion.NewSymbolTokenFromString(k)); err != nil {
			return err
		}
		if err := e.writeValue(m[k]); err != nil {
			return err
		}
	}
	return e.w.EndStruct()
}

// writeValue writes v; it is one type switch over the ten DynamoDB types.
func (e *Encoder) writeValue(v attr.Value) error {
	switch v.T {
	case attr.TypeS:
		return e.w.WriteString(v.S)
	case attr.TypeN:
		return e.writeDecimal(v.S)
	case attr.TypeB:
		return e.w.WriteBlob(v.B)
	case attr.TypeBOOL:
		return e.w.WriteBool(v.Bool)
	case attr.TypeM:
		return e.writeStruct(v.M)
	case attr.TypeL:
		if err := e.w.BeginList(); err != nil {
			return err
		}
		for _, x := range v.L {
			if err := e.writeValue(x); err != nil {
				return err
			}
		}
		return e.w.EndList()
	case attr.TypeSS:
		return writeSet(e, annSS, v.SS, e.w.WriteString)
	case attr.TypeNS:
		return writeSet(e, annNS, v.SS, e.writeDecimal)
	case attr.TypeBS:
		return writeSet(e, annBS, v.BS, e.w.WriteBlob)
	}
	return e.w.WriteNull()
}

func writeSet[T any](e *Encoder, ann string, xs []T, elem func(T) error) error {
	if err := e.w.Annotation(ion.NewSymbolTokenFromString(ann)); err != nil {
		return err
	}
	if err := e.w.BeginList(); err != nil {
		return err
	}
	for _, x := range xs {
		if err := elem(x); err != nil {
			return err
		}
	}
	return e.w.EndList()
}

func (e *Encoder) writeDecimal(n string) error {
	d, err := Decimal(n)
	if err != nil {
		return err
	}
	return e.w.WriteDecimal(d)
}

// Decimal returns a DynamoDB number (canonical: plain notation, no
// trailing fractional zeros) as an Ion decimal the way the service writes
// one: an integer's trailing zeros move into the exponent, so that the
// library writes 600 as 6d2 and 103 as 103. (a decimal, not an Ion int),
// and a fraction keeps its digits (1.5).
func Decimal(n string) (*ion.Decimal, error) {
	coef, exp := n, int32(0)
	if i := strings.IndexByte(n, '.'); i >= 0 {
		coef, exp = n[:i]+n[i+1:], -int32(len(n)-i-1)
	} else if trimmed := strings.TrimRight(n, "0"); trimmed != "" && trimmed != "-" {
		coef, exp = trimmed, int32(len(n)-len(trimmed))
	}
	c, ok := new(big.Int).SetString(coef, 10)
	if !ok {
		return nil, &ion.UsageError{API: "iontext.Decimal", Msg: "not a number: " + n}
	}
	return ion.NewDecimal(c, exp, false), nil
}
