package partiql

import (
	"errors"
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
)

// binder turns the constant expressions of a statement (literals, '?'
// parameters and the collections built from them) into attribute values.
type binder struct {
	params []attr.Value
}

// itemAt is the at of an INSERT's item: DynamoDB names each of its
// attributes "root" and paths inside them from there ('m': {'x': 1e126}
// is "under root.x", 'l': [1, 1e126] "under root[1]"; the service's
// answers in paritysuite/dynamodb-conformance's partiqlGrammar capture).
const itemAt = ""

// value evaluates the constant e. at names where e sits inside a written
// value ("root", "root.a", "root[1]"), as DynamoDB's number messages do.
func (b *binder) value(e Expr, at string) (attr.Value, error) {
	switch e := e.(type) {
	case *Literal:
		if e.V.T != attr.TypeN {
			return e.V, nil
		}
		return number(e, at)
	case *Param:
		return b.params[e.N], nil
	case *Tuple:
		m := make(map[string]attr.Value, len(e.Keys))
		here, inside := at, at+"."
		if at == itemAt {
			here, inside = "root", ""
		}
		for i, k := range e.Keys {
			if _, dup := m[k]; dup {
				return attr.Value{}, semErr(e.Values[i].Pos(), "Duplicate keys in tuple. Key: %s under %s", k, here)
			}
			if c, ok := e.Values[i].(*Call); ok {
				// A function is no value (the service names the tuple's key).
				return attr.Value{}, locErr(c.At, len([]rune(c.Name)), "Unsupported data type: %s under key %s", c.Name, here)
			}
			member := inside + k
			if at == itemAt {
				member = "root"
			}
			v, err := b.value(e.Values[i], member)
			if err != nil {
				return attr.Value{}, err
			}
			m[k] = v
		}
		return attr.Map(m), nil
	case *List:
		l := make([]attr.Value, len(e.Elems))
		for i, x := range e.Elems {
			v, err := b.value(x, at+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return attr.Value{}, err
			}
			l[i] = v
		}
		return attr.List(l), nil
	case *Bag:
		return b.bag(e, at)
	case *Missing:
		return attr.Value{}, semErr(e.At, "MISSING must be compared using IS operator")
	}
	return attr.Value{}, semErr(e.Pos(), "Unsupported operation: %s", e.String())
}

// number validates a number literal as DynamoDB stores numbers.
func number(e *Literal, at string) (attr.Value, error) {
	if _, _, ok := bigDecimal(e.V.S); !ok {
		// An exponent or scale beyond 32 bits is not a literal the parser
		// can read (scale: 1.5e-2147483647, partiqlGrammar capture).
		return attr.Value{}, syntaxErr(e.At, "")
	}
	v, err := attr.Number(e.V.S)
	if err != nil {
		var ae *attr.Error
		if errors.As(err, &ae) {
			return attr.Value{}, semErr(e.At, "%s under %s", ae.Msg, at)
		}
		return attr.Value{}, err
	}
	return v, nil
}

// bag evaluates a <<...>> literal into a string, number or binary set.
func (b *binder) bag(e *Bag, at string) (attr.Value, error) {
	if len(e.Elems) == 0 {
		return attr.Value{}, semErr(e.At, "Empty bags are not supported")
	}
	var set attr.Value
	for i, x := range e.Elems {
		v, err := b.value(x, at+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return attr.Value{}, err
		}
		switch {
		case (v.T == attr.TypeS || v.T == attr.TypeN) && (i == 0 || set.T == v.T+attr.TypeSS-attr.TypeS):
			set.T = v.T + attr.TypeSS - attr.TypeS // S → SS, N → NS
			set.SS = append(set.SS, v.S)
		case v.T == attr.TypeB && (i == 0 || set.T == attr.TypeBS):
			set.T = attr.TypeBS
			set.BS = append(set.BS, v.B)
		default:
			return attr.Value{}, semErr(x.Pos(), "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags")
		}
	}
	// A set with a member twice (<<'x', 'x'>>, or <<1, 1.0>>: numbers are
	// compared as numbers) is refused, as everywhere else in the API, in
	// the words DynamoDB gives set_add's (paritysuite/dynamodb-conformance
	// partiqlFunctions: "One or more parameter values were invalid: Input
	// collection [x, x] contains duplicates.", no position), listing the
	// members as written. Stored sets keep attr's member order, as
	// JSON-decoded ones do.
	if err := set.Validate(); err != nil {
		var ae *attr.Error
		if errors.As(err, &ae) {
			return attr.Value{}, semErr(e.At, "%s", ae.Msg)
		}
		return attr.Value{}, err
	}
	attr.SortSet(set)
	return set, nil
}

// isConstant reports whether e is a value written in the statement.
func isConstant(e Expr) bool {
	switch e.(type) {
	case *Literal, *Param, *Tuple, *List, *Bag:
		return true
	}
	return false
}
