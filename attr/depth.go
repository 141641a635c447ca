package attr

// MaxDecodeDepth bounds how many containers a value read by
// UnmarshalJSONDeep may nest: far past MaxNestingDepth, so that a request
// holding a value nested too deeply can be read whole and refused in the
// order DynamoDB checks it (api's deep requests), and low enough that no
// body, however hostile, can exhaust the stack. Past it the value is
// refused as too deep, as UnmarshalJSON refuses one past MaxNestingDepth.
const MaxDecodeDepth = 256

// UnmarshalJSONDeep is UnmarshalJSON letting up to MaxDecodeDepth
// containers nest. Such a value is only for finding what to refuse: it must
// never be stored or evaluated (Depth says whether it is over the limit).
func (v *Value) UnmarshalJSONDeep(b []byte) error {
	return v.unmarshal(b, MaxDecodeDepth)
}

// UnmarshalJSONDeep is Item's UnmarshalJSON letting up to MaxDecodeDepth
// containers nest (see Value.UnmarshalJSONDeep).
func (it *Item) UnmarshalJSONDeep(b []byte) error {
	return it.unmarshal(b, MaxDecodeDepth)
}

// Depth is how many M and L containers nest inside one another in v: 0
// for a scalar or a set, 1 for a map or list of scalars. A value of more
// than MaxNestingDepth is one DynamoDB refuses.
func (v Value) Depth() int {
	deepest := 0
	switch v.T {
	case TypeM:
		for _, e := range v.M {
			deepest = max(deepest, e.Depth())
		}
	case TypeL:
		for _, e := range v.L {
			deepest = max(deepest, e.Depth())
		}
	default:
		return 0
	}
	return deepest + 1
}

// Depth is the greatest Depth of its values.
func (it Item) Depth() int {
	deepest := 0
	for _, v := range it {
		deepest = max(deepest, v.Depth())
	}
	return deepest
}

// MsgNesting is DynamoDB's answer to a value nested past MaxNestingDepth.
const MsgNesting = msgNesting
