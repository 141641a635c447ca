package attr

import (
	"encoding/base64"
	"strconv"
)

// UnmarshalJSON decodes one AttributeValue in DynamoDB-JSON ({"S":"x"},
// {"N":"1"}, {"M":{...}}, ...) and validates it completely: exactly one
// type, NULL true, numbers valid (and normalised), sets non-empty and free of
// duplicates, nesting within MaxNestingDepth. Unknown members are ignored and
// a member whose value is null counts as absent, as DynamoDB does.
//
// The error is an *Error (DynamoDB's ValidationException text) for invalid
// values, and a *SerializationError for JSON that does not fit the shape of
// an AttributeValue (wrong JSON types, bad base64, malformed JSON). On error
// v is unchanged.
func (v *Value) UnmarshalJSON(b []byte) error {
	return v.unmarshal(b, 0)
}

// unmarshal is UnmarshalJSON with maxDepth containers allowed to nest (0:
// MaxNestingDepth).
func (v *Value) unmarshal(b []byte, maxDepth int) error {
	d := jsonDecoder{b: b, maxDepth: maxDepth}
	d.ws()
	val, err := d.attributeValue(0)
	if err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	*v = val
	return nil
}

// UnmarshalJSON decodes an item in DynamoDB-JSON ({"a":{"S":"x"},...}),
// validating every value as Value.UnmarshalJSON does. JSON null leaves a nil
// Item. When a name repeats, the last value wins. On error it is unchanged.
func (it *Item) UnmarshalJSON(b []byte) error {
	return it.unmarshal(b, 0)
}

// unmarshal is UnmarshalJSON with maxDepth containers allowed to nest (0:
// MaxNestingDepth).
func (it *Item) unmarshal(b []byte, maxDepth int) error {
	d := jsonDecoder{b: b, maxDepth: maxDepth}
	d.ws()
	if d.peek() == 'n' {
		if err := d.literal("null"); err != nil {
			return err
		}
		if err := d.end(); err != nil {
			return err
		}
		*it = nil
		return nil
	}
	m, err := d.attributeMap(0)
	if err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	*it = m
	return nil
}

// jsonDecoder reads DynamoDB-JSON straight from the bytes: faster than
// encoding/json with reflection, and it knows which JSON kind it found, which
// DynamoDB's SerializationException messages name.
type jsonDecoder struct {
	b []byte
	i int
	// readNumber reads an N value or NS member as sent; nil is Number.
	readNumber func(string) (Value, error)
	// maxDepth is how many containers may nest; 0 is MaxNestingDepth.
	maxDepth int
}

// limit is how many containers d lets nest inside one another.
func (d *jsonDecoder) limit() int {
	if d.maxDepth > 0 {
		return d.maxDepth
	}
	return MaxNestingDepth
}

// DecodeValueWith is Value.UnmarshalJSON with number reading each N value
// and NS member (at any depth, in document order) in place of Number: for
// callers whose numbers are refused in other words (PartiQL parameters).
// A set is still built by NumberSet once number accepted every member.
func DecodeValueWith(b []byte, number func(string) (Value, error)) (Value, error) {
	d := jsonDecoder{b: b, readNumber: number}
	d.ws()
	v, err := d.attributeValue(0)
	if err != nil {
		return Value{}, err
	}
	if err := d.end(); err != nil {
		return Value{}, err
	}
	return v, nil
}

// typeBit marks which AttributeValue members were present (non-null).
func typeBit(t Type) uint16 { return 1 << t }

// attributeValue parses one AttributeValue object; depth is how many M/L
// containers enclose it.
func (d *jsonDecoder) attributeValue(depth int) (Value, error) {
	switch d.peek() {
	case '{':
	case 'n':
		if err := d.literal("null"); err != nil {
			return Value{}, err
		}
		return Value{}, invalid(ErrEmptyValue, msgEmptyValue)
	default:
		return Value{}, d.mismatch(kindStructure)
	}
	var (
		v       Value
		present uint16
		rawN    string   // N as sent; S and N share v.S, so keep it apart
		rawNS   []string // NS members as sent, for the duplicates message
	)
	err := d.members(func(name string) error {
		t := ParseType(name)
		if t == 0 {
			return d.skip(0)
		}
		if d.peek() == 'n' {
			if err := d.literal("null"); err != nil {
				return err
			}
			present &^= typeBit(t) // a later null undoes an earlier value
			return nil
		}
		present |= typeBit(t)
		var err error
		switch t {
		case TypeS:
			v.S, err = d.expectString()
		case TypeN:
			rawN, err = d.expectString() // checked below, once the type is known
		case TypeB:
			v.B, err = d.base64()
		case TypeBOOL, TypeNULL:
			v.Bool, err = d.expectBool()
		case TypeM:
			if depth >= d.limit() {
				return invalid(ErrNesting, msgNesting)
			}
			if d.peek() != '{' {
				return d.mismatch(kindStructure)
			}
			v.M, err = d.attributeMap(depth + 1)
		case TypeL:
			if depth >= d.limit() {
				return invalid(ErrNesting, msgNesting)
			}
			v.L, err = d.list(depth + 1)
		case TypeSS:
			v.SS, err = d.stringList()
		case TypeNS:
			rawNS, err = d.stringList()
		case TypeBS:
			v.BS, err = d.binaryList()
		}
		if err != nil {
			return err
		}
		v.T = t
		return nil
	})
	if err != nil {
		return Value{}, err
	}
	return d.finishPresent(v, present, rawN, rawNS)
}

// finishPresent checks that exactly one type is present (a bit per type,
// typeBit) and finishes v as that type.
func (d *jsonDecoder) finishPresent(v Value, present uint16, rawN string, rawNS []string) (Value, error) {
	switch {
	case present == 0:
		return Value{}, invalid(ErrEmptyValue, msgEmptyValue)
	case present&(present-1) != 0:
		return Value{}, invalid(ErrManyTypes, msgManyTypes)
	}
	// The last member seen may have been nulled; take the one that is set.
	for t := TypeS; t <= TypeBS; t++ {
		if present == typeBit(t) {
			v.T = t
		}
	}
	return d.finish(v, rawN, rawNS)
}

// finish validates a value whose single type is known and keeps only that
// type's field, so that a value is the same whatever else the JSON held.
func (d *jsonDecoder) finish(v Value, rawN string, rawNS []string) (Value, error) {
	switch v.T {
	case TypeS:
		return Value{T: TypeS, S: v.S}, nil
	case TypeN:
		if d.readNumber != nil {
			return d.readNumber(rawN)
		}
		return Number(rawN)
	case TypeB:
		return Value{T: TypeB, B: v.B}, nil
	case TypeBOOL:
		return Value{T: TypeBOOL, Bool: v.Bool}, nil
	case TypeNULL:
		if !v.Bool {
			return Value{}, invalid(ErrNullFalse, msgNullFalse)
		}
		return Null(), nil
	case TypeM:
		if v.M == nil {
			v.M = map[string]Value{}
		}
		return Value{T: TypeM, M: v.M}, nil
	case TypeL:
		if v.L == nil {
			v.L = []Value{}
		}
		return Value{T: TypeL, L: v.L}, nil
	case TypeSS:
		out := Value{T: TypeSS, SS: v.SS}
		if err := checkSet(out); err != nil {
			return Value{}, err
		}
		SortSet(out)
		return out, nil
	case TypeNS:
		if len(rawNS) == 0 {
			return Value{}, invalid(ErrEmptySet, msgEmptyNS)
		}
		for _, m := range rawNS {
			if d.readNumber == nil {
				break
			}
			if _, err := d.readNumber(m); err != nil {
				return Value{}, err
			}
		}
		return NumberSet(rawNS...)
	case TypeBS:
		out := Value{T: TypeBS, BS: v.BS}
		if err := checkSet(out); err != nil {
			return Value{}, err
		}
		SortSet(out)
		return out, nil
	}
	return Value{}, invalid(ErrEmptyValue, msgEmptyValue)
}

// attributeMap parses {"name": AttributeValue, ...}; it is both an item and
// the contents of an M.
func (d *jsonDecoder) attributeMap(depth int) (map[string]Value, error) {
	if d.peek() != '{' {
		return nil, d.mismatch(kindStructure)
	}
	m := make(map[string]Value)
	err := d.members(func(name string) error {
		if len(name) > MaxNameBytes {
			return invalid(ErrNameSize, MsgNameTooLarge)
		}
		v, err := d.attributeValue(depth)
		m[name] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// array parses a JSON array, calling elem with the decoder at each element.
func (d *jsonDecoder) array(elem func() error) error {
	if d.peek() != '[' {
		return d.mismatch(kindList)
	}
	return d.elements(']', elem)
}

// elements steps through the comma-separated elements of the object or
// array whose opening bracket is at the decoder, calling each at every
// element, up to the closing bracket.
func (d *jsonDecoder) elements(closing byte, each func() error) error {
	d.i++ // the opening bracket
	for first := true; ; first = false {
		d.ws()
		if d.peek() == closing {
			d.i++
			return nil
		}
		if !first {
			if err := d.expect(','); err != nil {
				return err
			}
			d.ws()
		}
		if err := each(); err != nil {
			return err
		}
	}
}

// members is elements for an object: it reads each member's name and colon,
// then calls each with the decoder at the member's value.
func (d *jsonDecoder) members(each func(name string) error) error {
	return d.elements('}', func() error {
		name, err := d.str()
		if err != nil {
			return err
		}
		d.ws()
		if err := d.expect(':'); err != nil {
			return err
		}
		d.ws()
		return each(name)
	})
}

// list parses the contents of an L.
func (d *jsonDecoder) list(depth int) ([]Value, error) {
	l := []Value{}
	err := d.array(func() error {
		v, err := d.attributeValue(depth)
		l = append(l, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// stringList parses the members of an SS or NS.
func (d *jsonDecoder) stringList() ([]string, error) {
	var l []string
	err := d.array(func() error {
		s, err := d.setMemberString()
		l = append(l, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// binaryList parses the members of a BS.
func (d *jsonDecoder) binaryList() ([][]byte, error) {
	var l [][]byte
	err := d.array(func() error {
		if d.peek() == 'n' {
			return &SerializationError{msgNullInSet}
		}
		b, err := d.base64()
		l = append(l, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (d *jsonDecoder) setMemberString() (string, error) {
	if d.peek() == 'n' {
		return "", &SerializationError{msgNullInSet}
	}
	return d.expectString()
}

// base64 reads a JSON string holding standard base64 and decodes it.
func (d *jsonDecoder) base64() ([]byte, error) {
	s, err := d.expectString()
	if err != nil {
		return nil, err
	}
	if len(s)%4 != 0 {
		return nil, &SerializationError{msgBase64Length + strconv.Itoa(len(s))}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(out, []byte(s))
	if err != nil {
		return nil, &SerializationError{msgBase64Invalid}
	}
	return out[:n], nil
}

func (d *jsonDecoder) expectString() (string, error) {
	if d.peek() != '"' {
		return "", d.mismatch(kindString)
	}
	return d.str()
}

func (d *jsonDecoder) expectBool() (bool, error) {
	switch d.peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	}
	return false, d.mismatch(kindBoolean)
}

// JSON kinds an AttributeValue member can expect.
const (
	kindString = iota
	kindBoolean
	kindStructure
	kindList
)

// mismatch is the SerializationException for a JSON value of the wrong kind
// at d.i, in the words of DynamoDB's JSON deserialiser.
func (d *jsonDecoder) mismatch(want int) error {
	var found string
	switch c := d.peek(); {
	case c == '{':
		if want == kindStructure {
			return d.syntax()
		}
		return &SerializationError{msgStartStructure}
	case c == '[':
		if want == kindList {
			return d.syntax()
		}
		return &SerializationError{msgStartList}
	case c == '"':
		found = "STRING_VALUE"
	case c == 't':
		found = "TRUE_VALUE"
	case c == 'f':
		found = "FALSE_VALUE"
	case c == '-' || (c >= '0' && c <= '9'):
		found = "NUMBER_VALUE"
	default:
		return d.syntax()
	}
	switch want {
	case kindString:
		return &SerializationError{found + " cannot be converted to String"}
	case kindBoolean:
		return &SerializationError{found + " can not be converted to a Boolean"}
	}
	return &SerializationError{msgUnexpectedValue}
}
