package attr

// Limits shared with table/ and api/.
const (
	// MaxItemSize is the largest item DynamoDB stores, in Size() bytes.
	MaxItemSize = 400 * 1024
	// MaxPartitionKeySize is the largest partition key value, in bytes.
	MaxPartitionKeySize = 2048
	// MaxSortKeySize is the largest sort key value, in bytes.
	MaxSortKeySize = 1024
	// MaxNestingDepth is how many M/L containers may nest inside one another.
	// DynamoDB supports "nested attributes up to 32 levels deep" counting the
	// attribute itself as level 1: 31 nested maps or lists hold a leaf at
	// level 32, and a 32nd container is refused with msgNesting.
	MaxNestingDepth = 31
)

// Validate reports whether v is a value DynamoDB would accept, with the
// error (an *Error) DynamoDB would give: a type set, numbers
// valid and canonical, sets non-empty and free of duplicates, at most
// MaxNestingDepth nested containers. Values decoded by UnmarshalJSON are
// already valid; Validate is for values built in code (update expressions).
func (v Value) Validate() error {
	return v.validate(0)
}

// Validate reports whether every attribute value of it is valid (see
// Value.Validate).
func (it Item) Validate() error {
	for _, v := range it {
		if err := v.validate(0); err != nil {
			return err
		}
	}
	return nil
}

// validate checks v, which sits inside depth containers.
func (v Value) validate(depth int) error {
	switch v.T {
	case TypeS, TypeB, TypeBOOL, TypeNULL:
		// NULL's Bool is ignored here: only the wire form can say false, and
		// UnmarshalJSON refuses that; code that writes Value{T: TypeNULL}
		// means NULL.
		return nil
	case TypeN:
		return checkCanonicalNumber(v.S)
	case TypeSS, TypeBS:
		return checkSet(v)
	case TypeNS:
		for _, s := range v.SS {
			if err := checkCanonicalNumber(s); err != nil {
				return err
			}
		}
		return checkSet(v)
	case TypeM:
		if depth >= MaxNestingDepth {
			return invalid(ErrNesting, msgNesting)
		}
		for _, e := range v.M {
			if err := e.validate(depth + 1); err != nil {
				return err
			}
		}
		return nil
	case TypeL:
		if depth >= MaxNestingDepth {
			return invalid(ErrNesting, msgNesting)
		}
		for _, e := range v.L {
			if err := e.validate(depth + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return invalid(ErrEmptyValue, msgEmptyValue)
}

// checkCanonicalNumber accepts s only if it is a valid number already in the
// canonical form, since Equal, Compare and key encoding rely on that form.
func checkCanonicalNumber(s string) error {
	c, err := ParseNumber(s)
	if err != nil {
		return err
	}
	if c != s {
		return invalid(ErrNotNumber, msgNotNumber)
	}
	return nil
}
