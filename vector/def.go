package vector

import (
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
)

// Def is a vector index as maintenance and search need it. Hash.Name is ""
// when the index has no HASH element in its search schema; Filters are its
// INLINE_FILTER elements in order. The types are those the table's
// AttributeDefinitions declare.
type Def struct {
	Name      string
	Attribute string
	Dims      int
	Func      Func
	Hash      index.KeyAttr
	Filters   []index.KeyAttr
}

// NewIndex returns an empty Index for d.
func (d *Def) NewIndex() *Index { return New(d.Dims, d.Func, len(d.Filters)) }

// Entry derives item's entry in the index, parsing its vector into buf
// (grown as needed; the Entry aliases it). It reports false when the item
// does not belong in the index: its vector attribute is absent or not a
// valid vector of Dims numbers, or the index has a HASH element and the item
// lacks it or holds another type ("silently excluded from the vector index",
// as the developer guide puts it for a missing partition key). An
// INLINE_FILTER attribute that is absent or of another type is recorded as
// absent: the item is indexed and matches no equality on it.
func (d *Def) Entry(key string, item attr.Item, buf []float32) (Entry, bool) {
	v, ok := item[d.Attribute]
	if !ok {
		return Entry{}, false
	}
	vec, err := Parse(v, d.Dims, buf)
	if err != nil {
		return Entry{}, false
	}
	return d.entryWith(key, vec, item)
}

// entryWith is Entry for an item whose vector is already parsed.
func (d *Def) entryWith(key string, vec []float32, item attr.Item) (Entry, bool) {
	e := Entry{Key: key, Vector: vec, Filters: make([]string, len(d.Filters))}
	if d.Hash.Name != "" {
		h, ok := item[d.Hash.Name]
		if !ok || h.T != d.Hash.Type {
			return Entry{}, false
		}
		e.Partition = FilterValue(h)
	}
	for i, f := range d.Filters {
		if fv, ok := item[f.Name]; ok && fv.T == f.Type {
			e.Filters[i] = FilterValue(fv)
		}
	}
	return e, true
}

// FilterValue encodes a HASH or INLINE_FILTER value (S, N or B) so that two
// encodings are equal exactly when DynamoDB's = finds the values equal: the
// type, then the value's order-preserving key encoding (numbers canonical).
// It returns "" for any other type.
func FilterValue(v attr.Value) string {
	switch v.T {
	case attr.TypeS, attr.TypeN, attr.TypeB:
		return string(attr.AppendKey([]byte{byte(v.T)}, v))
	}
	return ""
}

// SchemaError is returned by Check when a search-schema attribute of an item
// has another type than the table declares, or is an empty string or binary.
type SchemaError struct {
	Attribute string
	Want, Got attr.Type
	Empty     bool
}

func (e *SchemaError) Error() string {
	if e.Empty {
		return fmt.Sprintf("vector: search schema attribute %s is empty", e.Attribute)
	}
	return fmt.Sprintf("vector: search schema attribute %s is %s, want %s", e.Attribute, e.Got, e.Want)
}

// Check validates an item about to be written to the table against the
// index, as DynamoDB does before accepting the write: a present vector
// attribute must be a list of Dims numbers that fit float32 (a *ParseError
// otherwise), and present search-schema attributes must have their declared
// type and not be empty (a *SchemaError otherwise). Absent attributes are
// not errors: the item is then simply not indexed, or not filterable.
func (d *Def) Check(item attr.Item) error {
	if v, ok := item[d.Attribute]; ok {
		var buf [64]float32
		if _, err := Parse(v, d.Dims, buf[:0]); err != nil {
			return err
		}
	}
	if d.Hash.Name != "" {
		if err := checkSchemaAttr(item, d.Hash); err != nil {
			return err
		}
	}
	for _, f := range d.Filters {
		if err := checkSchemaAttr(item, f); err != nil {
			return err
		}
	}
	return nil
}

func checkSchemaAttr(item attr.Item, k index.KeyAttr) error {
	v, ok := item[k.Name]
	switch {
	case !ok:
		return nil
	case v.T != k.Type:
		return &SchemaError{Attribute: k.Name, Want: k.Type, Got: v.T}
	case (v.T == attr.TypeS && v.S == "") || (v.T == attr.TypeB && len(v.B) == 0):
		return &SchemaError{Attribute: k.Name, Want: k.Type, Got: v.T, Empty: true}
	}
	return nil
}

// DecodeFilterValue returns the value FilterValue encoded as s, and false
// for "" or bytes FilterValue does not produce.
func DecodeFilterValue(s string) (attr.Value, bool) {
	if s == "" {
		return attr.Value{}, false
	}
	v, rest, err := attr.DecodeKey([]byte(s[1:]), attr.Type(s[0]))
	if err != nil || len(rest) != 0 || v.T != attr.Type(s[0]) {
		return attr.Value{}, false
	}
	return v, true
}
