// Package expressions parses, resolves, checks and evaluates DynamoDB's five
// expression languages (condition, filter, key condition, projection, update)
// and translates the legacy request parameters (Expected, AttributeUpdates,
// AttributesToGet, KeyConditions, QueryFilter, ScanFilter) onto the same trees.
//
// Compile does all validation up front, so that evaluation (Condition.Eval,
// Update.Apply, Projection.Apply) only ever fails for reasons that depend on
// the stored item. Compiled trees are immutable and safe for concurrent use.
package expressions

import (
	"maps"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// Input is every expression-related parameter of one request. A nil *string means the
// parameter was absent (an empty string present is DynamoDB's "can not be empty" error).
// Likewise a nil map or slice is an absent parameter and a non-nil empty one a
// present but empty parameter.
type Input struct {
	ConditionExpression, FilterExpression, KeyConditionExpression,
	ProjectionExpression, UpdateExpression *string
	SearchConditionExpression *string               // SearchVectors
	Names                     map[string]string     // ExpressionAttributeNames
	Values                    map[string]attr.Value // ExpressionAttributeValues
	Op                        Op                    // the request's operation, for messages
	// Single marks PutItem, UpdateItem and DeleteItem, which refuse
	// ExpressionAttributeValues given with no expression without naming
	// the expressions that could use them (paritysuite/dynamodb-conformance,
	// eu-west-2 and us-east-1, 2026-10-09); their transaction actions and
	// the reads name them.
	Single bool
	// Legacy parameters (translated onto the same AST):
	Expected            map[string]ExpectedAttributeValue
	ConditionalOperator *string // AND | OR
	AttributeUpdates    map[string]AttributeValueUpdate
	AttributesToGet     []string
	KeyConditions       map[string]LegacyCondition
	QueryFilter         map[string]LegacyCondition
	ScanFilter          map[string]LegacyCondition
}

// ExpectedAttributeValue is one entry of the legacy Expected parameter.
type ExpectedAttributeValue struct {
	Value              *attr.Value  `json:"Value,omitempty"`
	Exists             *bool        `json:"Exists,omitempty"`
	ComparisonOperator string       `json:"ComparisonOperator,omitempty" ddb:"enum=IN|NULL|BETWEEN|LT|NOT_CONTAINS|EQ|GT|NOT_NULL|NE|LE|BEGINS_WITH|GE|CONTAINS"`
	AttributeValueList []attr.Value `json:"AttributeValueList,omitempty"`
}

// AttributeValueUpdate is one entry of the legacy AttributeUpdates parameter.
type AttributeValueUpdate struct {
	Value  *attr.Value `json:"Value,omitempty"`
	Action string      `json:"Action,omitempty" ddb:"enum=ADD|PUT|DELETE"`
}

// LegacyCondition is one entry of the legacy KeyConditions, QueryFilter or
// ScanFilter parameters (DynamoDB's Condition shape).
type LegacyCondition struct {
	ComparisonOperator string       `json:"ComparisonOperator" ddb:"required;enum=IN|NULL|BETWEEN|LT|NOT_CONTAINS|EQ|GT|NOT_NULL|NE|LE|BEGINS_WITH|GE|CONTAINS"`
	AttributeValueList []attr.Value `json:"AttributeValueList,omitempty"`
}

// Compiled is the parsed, resolved and checked result. Fields are nil when absent.
// Condition comes from ConditionExpression or Expected; Filter from FilterExpression,
// QueryFilter or ScanFilter; KeyCondition from KeyConditionExpression or KeyConditions;
// Projection from ProjectionExpression or AttributesToGet; Update from UpdateExpression
// or AttributeUpdates.
type Compiled struct {
	Condition, Filter, KeyCondition *Condition
	SearchCondition                 *Condition // see Condition.Equalities
	Projection                      *Projection
	Update                          *Update
}

// Compile parses and resolves everything at once, so the checks that span all
// expressions of a request (unused names/values; mixing legacy and expression
// parameters; names/values given without any expression) are done exactly as
// DynamoDB does. Every error is an *Error carrying DynamoDB's message.
func Compile(in Input) (*Compiled, error) {
	if err := checkParameterMix(&in); err != nil {
		return nil, err
	}
	out := &Compiled{}
	r := &resolver{names: in.Names, values: in.Values}
	var err error
	if in.UpdateExpression != nil {
		if out.Update, err = compileUpdate(*in.UpdateExpression, r); err != nil {
			return nil, err
		}
	}
	conds := []struct {
		src *string
		k   kind
		dst **Condition
	}{
		{in.ConditionExpression, kindCondition, &out.Condition},
		{in.KeyConditionExpression, kindKeyCondition, &out.KeyCondition},
		{in.FilterExpression, kindFilter, &out.Filter},
		{in.SearchConditionExpression, kindSearchCondition, &out.SearchCondition},
	}
	for _, c := range conds {
		if c.src == nil {
			continue
		}
		if *c.dst, err = compileCondition(c.k, *c.src, r); err != nil {
			return nil, err
		}
	}
	if in.ProjectionExpression != nil {
		if out.Projection, err = compileProjection(*in.ProjectionExpression, r); err != nil {
			return nil, err
		}
	}
	if err := r.unused(); err != nil {
		return nil, err
	}
	if err := translateLegacy(&in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Op names the operation a request belongs to, for the one message that lists
// the operation's expression parameters. The zero Op names none (that message
// then has no list).
type Op uint8

// The operations whose ExpressionAttributeValues message lists the
// expressions that could use the values.
const (
	OpNone   Op = iota
	OpWrite     // PutItem, DeleteItem and their transaction actions
	OpUpdate    // UpdateItem and the transaction Update action
	OpQuery     // Query
	OpScan      // Scan
)

// valueExpressions are the expression parameters of op that can hold values
// (every one but ProjectionExpression), in DynamoDB's order.
func (op Op) valueExpressions() []string {
	switch op {
	case OpWrite:
		return []string{"ConditionExpression"}
	case OpUpdate:
		return []string{"UpdateExpression", "ConditionExpression"}
	case OpQuery:
		return []string{"FilterExpression", "KeyConditionExpression"}
	case OpScan:
		return []string{"FilterExpression"}
	}
	return nil
}

// checkParameterMix does the request-level checks that come before any parsing.
//
// DynamoDB lists, in the order used below, every expression parameter present
// against every legacy one present, with one exception: KeyConditions go with
// any expression but KeyConditionExpression (libraries such as guregu/dynamo
// send KeyConditions with a FilterExpression and a ProjectionExpression).
func checkParameterMix(in *Input) error {
	var expr, legacy []string
	for _, p := range []struct {
		name    string
		present bool
	}{
		{"UpdateExpression", in.UpdateExpression != nil},
		{"ConditionExpression", in.ConditionExpression != nil},
		{"ProjectionExpression", in.ProjectionExpression != nil},
		{"FilterExpression", in.FilterExpression != nil},
		{"KeyConditionExpression", in.KeyConditionExpression != nil},
		{"SearchConditionExpression", in.SearchConditionExpression != nil},
	} {
		if p.present {
			expr = append(expr, p.name)
		}
	}
	for _, p := range []struct {
		name    string
		present bool
	}{
		{"AttributesToGet", in.AttributesToGet != nil},
		{"AttributeUpdates", in.AttributeUpdates != nil},
		{"QueryFilter", in.QueryFilter != nil},
		{"ScanFilter", in.ScanFilter != nil},
		{"Expected", in.Expected != nil},
		{"ConditionalOperator", in.ConditionalOperator != nil},
		{"KeyConditions", in.KeyConditions != nil && in.KeyConditionExpression != nil},
	} {
		if p.present {
			legacy = append(legacy, p.name)
		}
	}
	if len(expr) > 0 && len(legacy) > 0 {
		return plainErr("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
			strings.Join(legacy, ", "), strings.Join(expr, ", "))
	}
	if len(expr) == 0 && in.Names != nil {
		return plainErr("ExpressionAttributeNames can only be specified when using expressions")
	}
	if err := checkValuesUsable(in, len(expr) > 0); err != nil {
		return err
	}
	if in.Names != nil && len(in.Names) == 0 {
		return plainErr("ExpressionAttributeNames must not be empty")
	}
	if in.Values != nil && len(in.Values) == 0 {
		return plainErr("ExpressionAttributeValues must not be empty")
	}
	return checkEntries(in)
}

// checkEntries checks the entries of ExpressionAttributeNames and then of
// ExpressionAttributeValues, each map in key order: every key's length and
// then its syntax, and a name's value. Maps are sorted only when something
// is wrong, so a good request allocates nothing here.
func checkEntries(in *Input) error {
	bad := false
	for k, v := range in.Names {
		bad = bad || nameEntryErr(k, v) != nil
	}
	for k := range in.Values {
		bad = bad || valueEntryErr(k) != nil
	}
	if !bad {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(in.Names)) {
		if err := nameEntryErr(k, in.Names[k]); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.Values)) {
		if err := valueEntryErr(k); err != nil {
			return err
		}
	}
	return nil
}

// nameEntryErr checks one entry of ExpressionAttributeNames.
func nameEntryErr(k, v string) *Error {
	switch {
	case len(k) > maxPlaceholderBytes:
		return plainErr("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: %d", len(k))
	case !validPlaceholder(k, '#'):
		return plainErr("ExpressionAttributeNames contains invalid key: Syntax error; key: \"%s\"", k)
	case v == "":
		return plainErr("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s", k)
	case len(v) > attr.MaxNameBytes:
		return plainErr(attr.MsgNameTooLarge)
	}
	return nil
}

// valueEntryErr checks one key of ExpressionAttributeValues. Unlike the
// names' message, the too-long one gives no size.
func valueEntryErr(k string) *Error {
	switch {
	case len(k) > maxPlaceholderBytes:
		return plainErr("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
	case !validPlaceholder(k, ':'):
		return plainErr("ExpressionAttributeValues contains invalid key: Syntax error; key: \"%s\"", k)
	}
	return nil
}

// checkValuesUsable rejects ExpressionAttributeValues given with none of the
// expressions that could use them; anyExpr says whether any expression is present.
func checkValuesUsable(in *Input, anyExpr bool) error {
	if in.Values == nil {
		return nil
	}
	users := in.Op.valueExpressions()
	if users == nil {
		if anyExpr {
			return nil
		}
		return plainErr("ExpressionAttributeValues can only be specified when using expressions")
	}
	for _, u := range users {
		if in.expression(u) != nil {
			return nil
		}
	}
	if in.Single {
		return plainErr("ExpressionAttributeValues can only be specified when using expressions")
	}
	verb := "is"
	if len(users) > 1 {
		verb = "are"
	}
	return plainErr("ExpressionAttributeValues can only be specified when using expressions: %s %s null", strings.Join(users, " and "), verb)
}

// expression returns the expression parameter called name.
func (in *Input) expression(name string) *string {
	switch name {
	case "UpdateExpression":
		return in.UpdateExpression
	case "ConditionExpression":
		return in.ConditionExpression
	case "FilterExpression":
		return in.FilterExpression
	case "KeyConditionExpression":
		return in.KeyConditionExpression
	}
	return in.ProjectionExpression
}

// maxPlaceholderBytes is the longest key of ExpressionAttributeNames or
// ExpressionAttributeValues, its prefix included. A longer key is refused
// before its syntax is looked at, and a name mapped to "" after it
// (ExtendDB/extenddb's dual-target expression_attribute_entries tests, their
// messages captured from DynamoDB in us-east-1, 2026).
const maxPlaceholderBytes = 255

// validPlaceholder reports whether key is prefix followed by one or more
// identifier characters, the only keys the lexer can ever match.
func validPlaceholder(key string, prefix byte) bool {
	if len(key) < 2 || key[0] != prefix {
		return false
	}
	for i := 1; i < len(key); i++ {
		if !isIdentChar(key[i]) {
			return false
		}
	}
	return true
}

// checkSource does the checks on the raw text of any expression.
func checkSource(k kind, src string) error {
	if len(src) == 0 {
		return k.errf(-1, "The expression can not be empty;")
	}
	if len(src) > maxExpressionSize && k == kindUpdate {
		// An UpdateExpression's size is not named (paritysuite/dynamodb-
		// conformance deepRequests capture, ten Regions, October 2026).
		return k.errf(-1, "Expression size has exceeded the maximum allowed size;")
	}
	if len(src) > maxExpressionSize {
		return k.errf(-1, "Expression size has exceeded the maximum allowed size; expression size: %d", len(src))
	}
	return nil
}

func compileCondition(k kind, src string, r *resolver) (*Condition, error) {
	c, err := resolveCondition(k, src, r)
	if err != nil {
		return nil, err
	}
	if err := checkCondition(k, c); err != nil {
		return nil, err
	}
	return c, nil
}

// resolveCondition parses a condition and resolves its placeholders, without
// the checks that depend on the values' types (see Cache).
func resolveCondition(k kind, src string, r *resolver) (*Condition, error) {
	if err := checkSource(k, src); err != nil {
		return nil, err
	}
	c, err := parseCondition(k, src)
	if err != nil {
		return nil, err
	}
	if err := r.resolve(k, c.operands(nil)); err != nil {
		return nil, err
	}
	return c, nil
}

func compileUpdate(src string, r *resolver) (*Update, error) {
	u, err := resolveUpdate(src, r)
	if err != nil {
		return nil, err
	}
	if err := checkUpdate(u); err != nil {
		return nil, err
	}
	return u, nil
}

// resolveUpdate parses an update expression and resolves its placeholders,
// without the checks that depend on the values' types (see Cache).
func resolveUpdate(src string, r *resolver) (*Update, error) {
	if err := checkSource(kindUpdate, src); err != nil {
		return nil, err
	}
	u, dup, err := parseUpdate(src)
	if err != nil {
		return nil, err
	}
	var ops []*operand
	for _, a := range u.actions {
		ops = collect(ops, a.target)
		if a.value != nil {
			ops = collect(ops, a.value)
		}
	}
	if err := parsedNames(kindUpdate, ops); err != nil {
		return nil, err
	}
	if dup != nil {
		return nil, dup
	}
	if err := r.resolve(kindUpdate, ops); err != nil {
		return nil, err
	}
	return u, nil
}

// parsedNames is what DynamoDB finds while it parses an update expression,
// in source order: a reserved word used as a name, and a function it does
// not know. Both come before a clause given twice and before any
// placeholder is looked up (architect/dynalite's suite, written against the
// service: "set #c = if_not_exist(:c) set c = d" is an invalid function name,
// " set #c = :c set abOrt = true " a reserved keyword).
func parsedNames(k kind, ops []*operand) error {
	for _, o := range ops {
		switch o.kind {
		case opPath:
			for _, raw := range o.raw {
				if raw[0] != '#' && raw[0] != '[' && isReserved(raw) {
					return k.errf(o.pos, "Attribute name is a reserved keyword; reserved keyword: %s", raw)
				}
			}
		case opFunc:
			if !isUpdateFunc(o.name) && !isConditionFunc(o.name) && o.name != "size" {
				return k.errf(o.pos, msgBadFunction, o.name)
			}
		}
	}
	return nil
}

func compileProjection(src string, r *resolver) (*Projection, error) {
	if err := checkSource(kindProjection, src); err != nil {
		return nil, err
	}
	p, err := parseProjection(src)
	if err != nil {
		return nil, err
	}
	if err := r.resolve(kindProjection, p.paths); err != nil {
		return nil, err
	}
	paths := p.Paths()
	if err := checkOverlap(kindProjection, paths); err != nil {
		return nil, err
	}
	p.tree = buildTree(paths)
	return p, nil
}
