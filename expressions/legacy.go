package expressions

import (
	"sort"

	"github.com/ddblocal/ddblocal/attr"
)

// The legacy (pre-expression) parameters are translated onto the same trees as
// expressions, so evaluation has one implementation. Their validation messages
// are DynamoDB's where known; the ones marked "guess" follow the same pattern.

const msgInvalid = "One or more parameter values were invalid: "

// translateLegacy fills out from the legacy parameters of in. Compile has already
// rejected requests mixing them with expressions.
func translateLegacy(in *Input, out *Compiled) error {
	andOr := condAnd
	if in.ConditionalOperator != nil {
		switch *in.ConditionalOperator {
		case "AND":
		case "OR":
			andOr = condOr
		default:
			return plainErr("1 validation error detected: Value '%s' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]", *in.ConditionalOperator)
		}
		// DynamoDB's words (responses of the service recorded by a
		// dual-target suite, 2026): an operator needs two conditions
		// to join; KeyConditions do not count.
		switch len(in.Expected) + len(in.QueryFilter) + len(in.ScanFilter) {
		case 0:
			return plainErr("ConditionalOperator cannot be used without Filter or Expected")
		case 1:
			return plainErr("ConditionalOperator can only be used when Filter or Expected has two or more elements")
		}
	}
	var err error
	if in.Expected != nil {
		if out.Condition, err = translateExpected(in.Expected, andOr); err != nil {
			return err
		}
	}
	for _, f := range []map[string]LegacyCondition{in.QueryFilter, in.ScanFilter} {
		if f == nil {
			continue
		}
		if out.Filter, err = translateFilter(f, andOr, false); err != nil {
			return err
		}
	}
	if in.KeyConditions != nil {
		if out.KeyCondition, err = translateFilter(in.KeyConditions, condAnd, true); err != nil {
			return err
		}
	}
	if in.AttributesToGet != nil {
		if out.Projection, err = translateAttributesToGet(in.AttributesToGet); err != nil {
			return err
		}
	}
	if in.AttributeUpdates != nil {
		if out.Update, err = translateAttributeUpdates(in.AttributeUpdates); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func legacyPath(name string) *operand {
	return &operand{kind: opPath, path: Path{{Name: name, Index: -1}}, raw: []string{name}, pos: -1}
}

func legacyValue(v attr.Value) *operand { return &operand{kind: opValue, value: v, pos: -1} }

// combine joins conditions with AND or OR; nil for none.
func combine(conds []*Condition, k condKind) *Condition {
	if len(conds) == 0 {
		return nil
	}
	c := conds[0]
	for _, d := range conds[1:] {
		c = &Condition{kind: k, sub: []*Condition{c, d}, pos: -1}
	}
	return c
}

func translateExpected(exp map[string]ExpectedAttributeValue, andOr condKind) (*Condition, error) {
	var conds []*Condition
	for _, name := range sortedKeys(exp) {
		c, err := expectedTerm(name, exp[name])
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return combine(conds, andOr), nil
}

// expectedTerm translates one Expected entry, refusing the combinations
// of its members that DynamoDB refuses, in its words and order (as
// architect/dynalite's suite, written against the service, records them):
// Value with AttributeValueList; with a ComparisonOperator, Exists, or no
// value for an operator that takes one (Value stands for a list of one);
// an AttributeValueList without an operator; Exists true (or absent)
// without a Value, or false with one.
func expectedTerm(name string, e ExpectedAttributeValue) (*Condition, error) {
	switch {
	case e.Value != nil && e.AttributeValueList != nil:
		return nil, plainErr(msgInvalid+"Value and AttributeValueList cannot be used together for Attribute: %s", name)
	case e.ComparisonOperator != "" && e.Exists != nil:
		return nil, plainErr(msgInvalid+"Exists and ComparisonOperator cannot be used together for Attribute: %s", name)
	case e.ComparisonOperator != "":
		args := e.AttributeValueList
		if e.Value != nil {
			args = []attr.Value{*e.Value}
		}
		if n, ok := legacyArity(e.ComparisonOperator); ok && n != 0 && e.AttributeValueList == nil && e.Value == nil {
			return nil, plainErr(msgInvalid+"Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", e.ComparisonOperator, name)
		}
		return legacyTerm(name, e.ComparisonOperator, args, false)
	case e.AttributeValueList != nil:
		return nil, plainErr(msgInvalid+"AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", name)
	case e.Exists != nil && !*e.Exists:
		if e.Value != nil {
			return nil, plainErr(msgInvalid+"Value cannot be used when Exists is false for Attribute: %s", name)
		}
		return &Condition{kind: condFunc, op: "attribute_not_exists", args: []*operand{legacyPath(name)}, pos: -1}, nil
	case e.Value == nil:
		exists := "null"
		if e.Exists != nil {
			exists = "true"
		}
		return nil, plainErr(msgInvalid+"Value must be provided when Exists is %s for Attribute: %s", exists, name)
	}
	return &Condition{kind: condCompare, op: "=", args: []*operand{legacyPath(name), legacyValue(*e.Value)}, pos: -1}, nil
}

func translateFilter(f map[string]LegacyCondition, andOr condKind, key bool) (*Condition, error) {
	var conds []*Condition
	for _, name := range sortedKeys(f) {
		lc := f[name]
		c, err := legacyTerm(name, lc.ComparisonOperator, lc.AttributeValueList, key)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return combine(conds, andOr), nil
}

// legacyArity is the number of values each ComparisonOperator takes (-1: one or more).
func legacyArity(op string) (int, bool) {
	switch op {
	case "NULL", "NOT_NULL":
		return 0, true
	case "EQ", "NE", "LE", "LT", "GE", "GT", "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH":
		return 1, true
	case "BETWEEN":
		return 2, true
	case "IN":
		return -1, true
	}
	return 0, false
}

// legacyTerm translates one ComparisonOperator condition on attribute name.
func legacyTerm(name, op string, args []attr.Value, key bool) (*Condition, error) {
	n, ok := legacyArity(op)
	if !ok {
		// guess: the wire layer normally rejects unknown enum values first.
		return nil, plainErr(msgInvalid+"Unsupported ComparisonOperator: %s", op)
	}
	if key {
		switch op {
		case "EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN":
		default:
			return nil, plainErr("Attempted conditional constraint is not an indexable operation")
		}
	}
	if (n >= 0 && len(args) != n) || (n < 0 && len(args) == 0) {
		return nil, plainErr(msgInvalid+"Invalid number of argument(s) for the %s ComparisonOperator", op)
	}
	for _, a := range args {
		var okType bool
		switch op {
		case "LE", "LT", "GE", "GT", "BETWEEN", "IN", "CONTAINS", "NOT_CONTAINS":
			okType = isScalarKeyType(a.T)
		case "BEGINS_WITH":
			okType = a.T == attr.TypeS || a.T == attr.TypeB
		default:
			okType = true
		}
		if !okType {
			return nil, plainErr(msgInvalid+"ComparisonOperator %s is not valid for %s AttributeValue type", op, a.T)
		}
	}
	if op == "IN" || op == "BETWEEN" {
		for _, a := range args[1:] {
			if a.T != args[0].T {
				return nil, plainErr(msgInvalid + "AttributeValues inside AttributeValueList must all be of the same type")
			}
		}
	}
	if op == "BETWEEN" {
		if n, ok := attr.Compare(args[0], args[1]); ok && n > 0 {
			return nil, plainErr("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	ops := []*operand{legacyPath(name)}
	for _, a := range args {
		ops = append(ops, legacyValue(a))
	}
	c := &Condition{args: ops, pos: -1}
	switch op {
	case "EQ", "NE", "LE", "LT", "GE", "GT":
		c.kind = condCompare
		c.op = map[string]string{"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}[op]
	case "NULL":
		c.kind, c.op = condFunc, "attribute_not_exists"
	case "NOT_NULL":
		c.kind, c.op = condFunc, "attribute_exists"
	case "CONTAINS":
		c.kind, c.op = condFunc, "contains"
	case "NOT_CONTAINS":
		c.kind, c.op = condFunc, "contains"
		c = &Condition{kind: condNot, sub: []*Condition{c}, pos: -1}
	case "BEGINS_WITH":
		c.kind, c.op = condFunc, "begins_with"
	case "IN":
		c.kind, c.op = condIn, "IN"
	case "BETWEEN":
		c.kind, c.op = condBetween, "BETWEEN"
	}
	return c, nil
}

func translateAttributesToGet(names []string) (*Projection, error) {
	if len(names) == 0 {
		return nil, plainErr("1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	p := &Projection{}
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			// guess
			return nil, plainErr(msgInvalid+"Duplicate value in attribute name: %s", n)
		}
		seen[n] = true
		p.paths = append(p.paths, legacyPath(n))
	}
	p.tree = buildTree(p.Paths())
	return p, nil
}

func translateAttributeUpdates(ups map[string]AttributeValueUpdate) (*Update, error) {
	u := &Update{legacy: true}
	for _, name := range sortedKeys(ups) {
		if name == "" {
			// As the service refuses an item's empty top-level name (see
			// table's emptyNameError).
			return nil, plainErr("Empty attribute name")
		}
		up := ups[name]
		a := action{target: legacyPath(name)}
		action := up.Action
		if action == "" {
			action = "PUT"
		}
		if up.Value == nil && action != "DELETE" {
			return nil, plainErr(msgInvalid + "Only DELETE action is allowed when no attribute value is specified")
		}
		switch action {
		case "PUT":
			a.kind, a.value = actSet, legacyValue(*up.Value)
		case "DELETE":
			if up.Value == nil {
				a.kind = actRemove
				break
			}
			switch up.Value.T {
			case attr.TypeSS, attr.TypeNS, attr.TypeBS:
			default:
				return nil, plainErr(msgInvalid+"Action DELETE is not supported for the type %s", up.Value.T)
			}
			a.kind, a.value = actDelete, legacyValue(*up.Value)
		case "ADD":
			switch up.Value.T {
			case attr.TypeN, attr.TypeSS, attr.TypeNS, attr.TypeBS:
			case attr.TypeL:
				a.legacyList = true
			default:
				return nil, plainErr(msgInvalid+"Action ADD is not supported for the type %s", up.Value.T)
			}
			a.kind, a.value = actAdd, legacyValue(*up.Value)
		default:
			return nil, plainErr("1 validation error detected: Value '%s' at 'attributeUpdates.%s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]", up.Action, name)
		}
		u.actions = append(u.actions, a)
		if !containsKind(u.clauses, a.kind) {
			u.clauses = append(u.clauses, a.kind)
		}
	}
	return u, nil
}

func containsKind(list []actionKind, k actionKind) bool {
	for _, x := range list {
		if x == k {
			return true
		}
	}
	return false
}
