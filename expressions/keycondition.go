package expressions

import (
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// KeyCondition is a Query's key condition broken down by key attribute:
// equality on every partition key attribute, then conditions on a
// left-to-right prefix of the sort key attributes (only the last may be a
// range condition).
type KeyCondition struct {
	Partition []KeyTerm
	Sort      []KeyTerm
}

// KeyTerm is the condition on one key attribute.
type KeyTerm struct {
	Name   string
	Op     string // "=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"
	Values []attr.Value
}

// errKeyUnsupported is DynamoDB's error for a key condition of a shape it
// cannot use; built on demand, as the success path is the common one.
func errKeyUnsupported() *Error { return plainErr("Query key condition not supported") }

// flipped turns "v op path" into "path op' v".
func flipped(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// keyTerms flattens a tree of ANDs into key terms, rejecting every other shape.
func (c *Condition) keyTerms(dst []KeyTerm) ([]KeyTerm, error) {
	switch c.kind {
	case condAnd:
		var err error
		if dst, err = c.sub[0].keyTerms(dst); err != nil {
			return nil, err
		}
		return c.sub[1].keyTerms(dst)
	case condOr, condNot, condIn:
		return nil, plainErr("Invalid operator used in KeyConditionExpression: %s", [...]string{condOr: "OR", condNot: "NOT", condIn: "IN"}[c.kind])
	case condFunc:
		if c.op != "begins_with" {
			return nil, plainErr("Invalid operator used in KeyConditionExpression: %s", c.op)
		}
	case condCompare:
		if c.op == "<>" {
			return nil, plainErr("Invalid operator used in KeyConditionExpression: <>")
		}
	}
	args, op := c.args, c.op
	if c.kind == condCompare && args[0].kind == opValue && args[1].kind == opPath {
		args, op = []*operand{args[1], args[0]}, flipped(op)
	}
	if args[0].kind != opPath || len(args[0].path) != 1 {
		return nil, errKeyUnsupported()
	}
	t := KeyTerm{Name: args[0].path[0].Name, Op: op}
	for _, a := range args[1:] {
		if a.kind != opValue {
			return nil, errKeyUnsupported()
		}
		t.Values = append(t.Values, a.value)
	}
	return append(dst, t), nil
}

// KeyCondition analyses c as a Query key condition for a key schema with the
// given partition and sort key attribute names (sort may be empty; a
// multi-attribute index key gives up to four of each). Errors are *Error with
// DynamoDB's messages; checking value types against the schema is the caller's.
func (c *Condition) KeyCondition(partition, sort []string) (*KeyCondition, error) {
	terms, err := c.keyTerms(nil)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]KeyTerm, len(terms))
	for _, t := range terms {
		if _, dup := byName[t.Name]; dup {
			return nil, plainErr("KeyConditionExpressions must only contain one condition per key")
		}
		byName[t.Name] = t
	}
	kc := &KeyCondition{}
	for _, name := range partition {
		t, ok := byName[name]
		if !ok {
			return nil, plainErr("Query condition missed key schema element: %s", name)
		}
		if t.Op != "=" {
			return nil, plainErr("Query key condition not supported")
		}
		kc.Partition = append(kc.Partition, t)
		delete(byName, name)
	}
	if len(sort) > 1 {
		if err := rangePrefix(sort, byName); err != nil {
			return nil, err
		}
	}
	for i, name := range sort {
		t, ok := byName[name]
		if !ok {
			// A later sort attribute, or any other attribute, may not be
			// constrained without this one.
			for _, later := range sort[i+1:] {
				if _, ok := byName[later]; ok {
					return nil, plainErr("Query condition missed key schema element: %s", name)
				}
			}
			if len(byName) > 0 {
				return nil, plainErr("Query condition missed key schema element: %s", name)
			}
			break
		}
		if len(kc.Sort) > 0 && kc.Sort[len(kc.Sort)-1].Op != "=" {
			return nil, plainErr("Query key condition not supported")
		}
		kc.Sort = append(kc.Sort, t)
		delete(byName, name)
	}
	if len(byName) > 0 {
		return nil, plainErr("Query key condition not supported")
	}
	return kc, nil
}

// rangePrefix checks the RANGE attributes of a multi-attribute index key:
// every one before the last the condition names must have an equality
// condition. The service's words, with the attributes that lack one in key
// schema order, are recorded from DynamoDB by the paritysuite conformance
// suite (tier1 query/multiAttributeGsiKey, eu-west-2, eu-central-1 and
// us-east-1, October 2026) for one such attribute; how it joins several
// is not recorded (", " here).
func rangePrefix(sort []string, byName map[string]KeyTerm) error {
	last := -1
	for i, name := range sort {
		if _, ok := byName[name]; ok {
			last = i
		}
	}
	var lacking []string
	for _, name := range sort[:max(last, 0)] {
		if t, ok := byName[name]; !ok || t.Op != "=" {
			lacking = append(lacking, name)
		}
	}
	if len(lacking) == 0 {
		return nil
	}
	return plainErr("RANGE key attributes %s must have equality conditions specified in the query because a condition is present on key attribute %s",
		strings.Join(lacking, ", "), sort[last])
}
