// Package attr is DynamoDB's value model: attribute values, items and keys,
// their DynamoDB-JSON form, 38-digit decimal numbers, size accounting, and the
// order-preserving byte encoding used for storage keys.
package attr

// Type is an attribute value's data type, named as on the wire.
type Type uint8

// The ten DynamoDB data types. The zero Type is invalid (an empty AttributeValue).
const (
	TypeS Type = iota + 1
	TypeN
	TypeB
	TypeBOOL
	TypeNULL
	TypeM
	TypeL
	TypeSS
	TypeNS
	TypeBS
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns the wire name of t ("S", "N", ... "BS"), or "" for an invalid Type.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// ParseType returns the Type with wire name s, or 0 if s names no type.
func ParseType(s string) Type {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i)
		}
	}
	return 0
}

// Value is one attribute value. Exactly the field(s) that belong to T are set:
//
//	S:    S            N: S holds the canonical decimal text (see ParseNumber)
//	B:    B            BOOL: Bool          NULL: nothing (always true on the wire)
//	M:    M            L: L
//	SS:   SS           NS: SS holds canonical decimal texts       BS: BS
//
// Values are treated as immutable once built: functions that derive a new item
// copy what they change and may share the rest.
type Value struct {
	T    Type
	S    string
	B    []byte
	Bool bool
	M    map[string]Value
	L    []Value
	SS   []string
	BS   [][]byte
}

// Item is a whole item, or a key, or a projection of an item: attribute name → value.
type Item map[string]Value

// String returns an S value.
func String(s string) Value { return Value{T: TypeS, S: s} }

// Binary returns a B value.
func Binary(b []byte) Value { return Value{T: TypeB, B: b} }

// Bool returns a BOOL value.
func Bool(b bool) Value { return Value{T: TypeBOOL, Bool: b} }

// Null returns the NULL value.
func Null() Value { return Value{T: TypeNULL, Bool: true} }

// Map returns an M value.
func Map(m map[string]Value) Value { return Value{T: TypeM, M: m} }

// List returns an L value.
func List(l []Value) Value { return Value{T: TypeL, L: l} }
