package expressions

import "github.com/ddblocal/ddblocal/attr"

// Equality is one term of a SearchConditionExpression: an attribute path
// equal to a value.
type Equality struct {
	Path  Path
	Value attr.Value
}

// Equalities returns the terms of a compiled SearchConditionExpression,
// which may only join equalities between an attribute and a value with AND
// (the developer guide: "The equality operator (=) is supported ...
// Comparison, range, and set-membership operators (<>, <, <=, >, >=, IN) are
// not yet available"). Anything else is an *Error with the service's
// "Invalid comparator used in SearchConditionExpression"; the guide names
// that text for the comparators, and ddblocal uses it for OR, NOT and
// functions too, where the service's text is not documented.
func (c *Condition) Equalities() ([]Equality, error) {
	return c.appendEqualities(nil)
}

func (c *Condition) appendEqualities(dst []Equality) ([]Equality, error) {
	switch {
	case c.kind == condAnd:
		var err error
		for _, s := range c.sub {
			if dst, err = s.appendEqualities(dst); err != nil {
				return nil, err
			}
		}
		return dst, nil
	case c.kind == condCompare && c.op == "=":
		a, b := c.args[0], c.args[1]
		if a.kind == opValue && b.kind == opPath {
			a, b = b, a
		}
		if a.kind == opPath && b.kind == opValue {
			return append(dst, Equality{Path: a.path, Value: b.value}), nil
		}
	}
	return nil, kindSearchCondition.errf(c.pos, "Invalid comparator used in SearchConditionExpression")
}
