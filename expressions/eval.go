package expressions

import (
	"bytes"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// lookup returns the value at path p in item, and whether it exists. A step that
// meets the wrong type (an index into a map, a name into a list) finds nothing.
func lookup(item attr.Item, p Path) (attr.Value, bool) {
	v, ok := item[p[0].Name]
	if !ok {
		return attr.Value{}, false
	}
	for _, e := range p[1:] {
		if e.Index >= 0 {
			if v.T != attr.TypeL || e.Index >= len(v.L) {
				return attr.Value{}, false
			}
			v = v.L[e.Index]
			continue
		}
		if v.T != attr.TypeM {
			return attr.Value{}, false
		}
		if v, ok = v.M[e.Name]; !ok {
			return attr.Value{}, false
		}
	}
	return v, true
}

// sizeOf is DynamoDB's size(): bytes of S and B, members of sets, elements of L
// and entries of M. Other types have no size.
func sizeOf(v attr.Value) (int, bool) {
	switch v.T {
	case attr.TypeS:
		return len(v.S), true
	case attr.TypeB:
		return len(v.B), true
	case attr.TypeSS, attr.TypeNS:
		return len(v.SS), true
	case attr.TypeBS:
		return len(v.BS), true
	case attr.TypeL:
		return len(v.L), true
	case attr.TypeM:
		return len(v.M), true
	}
	return 0, false
}

// eval computes a condition operand; ok is false when it has no value (a
// missing attribute, or the size of something that has none).
func (o *operand) eval(item attr.Item) (attr.Value, bool) {
	switch o.kind {
	case opPath:
		return lookup(item, o.path)
	case opValue:
		return o.value, true
	case opFunc: // only size survives checking in conditions
		v, ok := o.args[0].eval(item)
		if !ok {
			return attr.Value{}, false
		}
		n, ok := sizeOf(v)
		if !ok {
			return attr.Value{}, false
		}
		return attr.Int(int64(n)), true
	}
	return attr.Value{}, false
}

// Eval reports whether item satisfies the condition. item may be nil (absent item),
// in which case every path is missing. Comparisons between different types are
// false, except <> which is then true; comparisons involving a missing attribute
// are false, except <> which is then true.
func (c *Condition) Eval(item attr.Item) bool {
	switch c.kind {
	case condAnd:
		return c.sub[0].Eval(item) && c.sub[1].Eval(item)
	case condOr:
		return c.sub[0].Eval(item) || c.sub[1].Eval(item)
	case condNot:
		return !c.sub[0].Eval(item)
	case condCompare:
		l, lok := c.args[0].eval(item)
		r, rok := c.args[1].eval(item)
		if c.op == "<>" {
			return !lok || !rok || !attr.Equal(l, r)
		}
		if !lok || !rok {
			return false
		}
		if c.op == "=" {
			return attr.Equal(l, r)
		}
		n, ok := attr.Compare(l, r)
		if !ok {
			return false
		}
		switch c.op {
		case "<":
			return n < 0
		case "<=":
			return n <= 0
		case ">":
			return n > 0
		}
		return n >= 0
	case condBetween:
		v, ok := c.args[0].eval(item)
		lo, lok := c.args[1].eval(item)
		hi, hok := c.args[2].eval(item)
		if !ok || !lok || !hok {
			return false
		}
		a, aok := attr.Compare(v, lo)
		b, bok := attr.Compare(v, hi)
		return aok && bok && a >= 0 && b <= 0
	case condIn:
		v, ok := c.args[0].eval(item)
		if !ok {
			return false
		}
		for _, o := range c.args[1:] {
			if w, ok := o.eval(item); ok && attr.Equal(v, w) {
				return true
			}
		}
		return false
	case condFunc:
		return c.evalFunc(item)
	}
	return false
}

func (c *Condition) evalFunc(item attr.Item) bool {
	v, ok := c.args[0].eval(item)
	switch c.op {
	case "attribute_exists":
		return ok
	case "attribute_not_exists":
		return !ok
	}
	w, wok := c.args[1].eval(item)
	if !ok || !wok {
		return false
	}
	switch c.op {
	case "attribute_type":
		return w.T == attr.TypeS && v.T.String() == w.S
	case "begins_with":
		switch {
		case v.T == attr.TypeS && w.T == attr.TypeS:
			return strings.HasPrefix(v.S, w.S)
		case v.T == attr.TypeB && w.T == attr.TypeB:
			return bytes.HasPrefix(v.B, w.B)
		}
		return false
	case "contains":
		return contains(v, w)
	}
	return false
}

// contains is DynamoDB's contains(): substring of S, byte subsequence of B
// (the legacy CONTAINS's documented rule), member of a set of the operand's
// type, or element of L.
func contains(v, w attr.Value) bool {
	switch v.T {
	case attr.TypeS:
		return w.T == attr.TypeS && strings.Contains(v.S, w.S)
	case attr.TypeB:
		return w.T == attr.TypeB && bytes.Contains(v.B, w.B)
	case attr.TypeSS:
		if w.T == attr.TypeS {
			for _, s := range v.SS {
				if s == w.S {
					return true
				}
			}
		}
	case attr.TypeNS:
		if w.T == attr.TypeN {
			for _, s := range v.SS {
				if attr.CompareNumbers(s, w.S) == 0 {
					return true
				}
			}
		}
	case attr.TypeBS:
		if w.T == attr.TypeB {
			for _, b := range v.BS {
				if bytes.Equal(b, w.B) {
					return true
				}
			}
		}
	case attr.TypeL:
		for _, e := range v.L {
			if attr.Equal(e, w) {
				return true
			}
		}
	}
	return false
}

// TopLevelNames returns the distinct top-level attribute names the condition
// reads, in first-use order (callers reject key attributes in filters with it).
func (c *Condition) TopLevelNames() []string {
	var names []string
	for _, o := range c.operands(nil) {
		if o.kind == opPath {
			names = appendUnique(names, o.path[0].Name)
		}
	}
	return names
}
