package partiql

import (
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// builder renders parts of a statement as DynamoDB expression text, with
// every name and value behind a placeholder (#n0, :v0, ...), so that the
// table package parses, checks and evaluates them as it does any request's.
type builder struct {
	bind   *binder
	names  map[string]string // placeholder → name
	byName map[string]string // name → placeholder
	values map[string]attr.Value
}

func newBuilder(bind *binder) *builder {
	return &builder{bind: bind}
}

// name returns the placeholder of an attribute name.
func (b *builder) name(n string) string {
	if p, ok := b.byName[n]; ok {
		return p
	}
	if b.names == nil {
		b.names, b.byName = map[string]string{}, map[string]string{}
	}
	p := "#n" + strconv.Itoa(len(b.names))
	b.names[p], b.byName[n] = n, p
	return p
}

// value returns the placeholder of a value.
func (b *builder) value(v attr.Value) string {
	if b.values == nil {
		b.values = map[string]attr.Value{}
	}
	p := ":v" + strconv.Itoa(len(b.values))
	b.values[p] = v
	return p
}

// path renders a document path.
func (b *builder) path(p *Path) string { return p.render(b.name) }

// operand renders a value-producing expression of a condition.
func (b *builder) operand(e Expr) (string, error) {
	switch e := e.(type) {
	case *Path:
		return b.path(e), nil
	case *Missing:
		return "", semErr(e.At, "MISSING must be compared using IS operator")
	case *Call:
		if e.Name == "size" {
			return b.call("size", e.Args)
		}
		return "", unrecognized(e)
	case *Binary:
		return "", semErr(e.At, "Unsupported operator in Condition Expression. Operator: %s", e.Op)
	}
	if !isConstant(e) {
		return "", semErr(e.Pos(), "Unsupported operation: %s", e.String())
	}
	v, err := b.bind.value(e, "root")
	if err != nil {
		return "", err
	}
	return b.value(v), nil
}

// call renders fn(args...) with each argument an operand. A call without
// arguments cannot be written as an expression; the table package checks
// every other count.
func (b *builder) call(fn string, args []Expr) (string, error) {
	if len(args) == 0 {
		return "", noOperands(-1, fn)
	}
	parts := make([]string, len(args))
	for i, a := range args {
		s, err := b.operand(a)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return fn + "(" + strings.Join(parts, ", ") + ")", nil
}

// conditionFuncs maps PartiQL's condition functions to the expression API's.
// EXISTS is not one: DynamoDB answers EXISTS(path) in a WHERE with
// "Unrecognized function: exists" (paritysuite/dynamodb-conformance capture).
var conditionFuncs = map[string]string{
	"begins_with": "begins_with", "contains": "contains", "attribute_type": "attribute_type",
	"missing":          "attribute_not_exists",
	"attribute_exists": "attribute_exists", "attribute_not_exists": "attribute_not_exists",
}

// unrecognized is DynamoDB's answer to a function it does not know where
// it is called, located at the function's name.
func unrecognized(c *Call) *Error {
	return locErr(c.At, len([]rune(c.Name)), "Unrecognized function: %s", c.Name)
}

// checkPathFunc checks the one document path attribute_exists and
// attribute_not_exists take, in the words PartiQL uses (those of the
// expression API without its "Invalid FilterExpression: " prefix).
func checkPathFunc(fn string, args []Expr) error {
	if fn != "attribute_exists" && fn != "attribute_not_exists" || len(args) == 0 {
		return nil // a call without arguments is noOperands' case
	}
	if len(args) != 1 {
		return semErr(-1, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", fn, len(args))
	}
	if _, ok := args[0].(*Path); !ok {
		return semErr(-1, "Operator or function requires a document path; operator or function: %s", fn)
	}
	return nil
}

// isTypes maps the types IS tests to DynamoDB's type names.
var isTypes = map[string]string{
	"BOOLEAN": "BOOL", "BOOL": "BOOL", "STRING": "S", "VARCHAR": "S", "NUMERIC": "N", "DECIMAL": "N",
	"INT": "N", "INTEGER": "N", "FLOAT": "N", "DOUBLE": "N", "BLOB": "B", "LIST": "L",
	"STRUCT": "M", "TUPLE": "M",
}

// cond renders a WHERE clause (or a part of one) as a condition expression.
func (b *builder) cond(e Expr) (string, error) {
	switch e := e.(type) {
	case *Binary:
		return b.binary(e)
	case *Not:
		x, err := b.cond(e.X)
		if err != nil {
			return "", err
		}
		return "NOT " + wrapIf(x, isLogical(e.X)), nil
	case *Between:
		s, err := b.call("", []Expr{e.X, e.Lo, e.Hi})
		if err != nil {
			return "", err
		}
		args := strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "("), ")"), ", ")
		out := args[0] + " BETWEEN " + args[1] + " AND " + args[2]
		return negate(out, e.Negated), nil
	case *In:
		return b.in(e)
	case *Is:
		return b.is(e)
	case *Call:
		fn, ok := conditionFuncs[e.Name]
		if !ok {
			return "", unrecognized(e)
		}
		if err := checkPathFunc(fn, e.Args); err != nil {
			return "", err
		}
		return b.call(fn, e.Args)
	}
	return "", semErr(e.Pos(), "WHERE clause must contain an expression that resolves to a boolean")
}

func isLogical(e Expr) bool {
	x, ok := e.(*Binary)
	return ok && (x.Op == "AND" || x.Op == "OR")
}

func wrapIf(s string, paren bool) string {
	if paren {
		return "(" + s + ")"
	}
	return s
}

func negate(s string, negated bool) string {
	if negated {
		return "NOT (" + s + ")"
	}
	return s
}

// binary renders AND, OR and the comparisons.
func (b *builder) binary(e *Binary) (string, error) {
	switch e.Op {
	case "AND", "OR":
		l, err := b.cond(e.L)
		if err != nil {
			return "", err
		}
		r, err := b.cond(e.R)
		if err != nil {
			return "", err
		}
		// The expression grammar binds AND tighter than OR, as PartiQL does;
		// only an OR under an AND needs its parentheses back.
		inner := e.Op == "AND"
		return wrapIf(l, inner && isOr(e.L)) + " " + e.Op + " " + wrapIf(r, inner && isOr(e.R) || isLogicalOp(e.R, e.Op)), nil
	case "+", "-":
		return "", semErr(e.At, "Unsupported operator in Condition Expression. Operator: %s", e.Op)
	}
	l, err := b.operand(e.L)
	if err != nil {
		return "", err
	}
	r, err := b.operand(e.R)
	if err != nil {
		return "", err
	}
	op := e.Op
	if op == "!=" {
		op = "<>"
	}
	return l + " " + op + " " + r, nil
}

func isOr(e Expr) bool { x, ok := e.(*Binary); return ok && x.Op == "OR" }

func isLogicalOp(e Expr, op string) bool { x, ok := e.(*Binary); return ok && x.Op == op }

// in renders X IN [...].
func (b *builder) in(e *In) (string, error) {
	if len(e.List) == 0 {
		return "", semErr(e.At, "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member")
	}
	x, err := b.operand(e.X)
	if err != nil {
		return "", err
	}
	list, err := b.call("", e.List)
	if err != nil {
		return "", err
	}
	return negate(x+" IN "+list, e.Negated), nil
}

// is renders X IS [NOT] TYPE with the existence and type functions.
func (b *builder) is(e *Is) (string, error) {
	p, ok := e.X.(*Path)
	if !ok {
		return "", semErr(e.X.Pos(), "The left hand side argument to IS must be a Variable Reference, Literal, or Path")
	}
	path := b.path(p)
	var s string
	switch e.Type {
	case "MISSING":
		if e.Negated {
			return "attribute_exists(" + path + ")", nil
		}
		return "attribute_not_exists(" + path + ")", nil
	case "NULL":
		// In PartiQL a missing attribute IS NULL too.
		s = "attribute_not_exists(" + path + ") OR attribute_type(" + path + ", " + b.value(attr.String("NULL")) + ")"
		if e.Negated {
			return "NOT (" + s + ")", nil
		}
		return "(" + s + ")", nil
	}
	t, ok := isTypes[e.Type]
	if !ok {
		return "", semErr(e.At, "Unsupported data type for IS operator: %s. Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]", e.Type)
	}
	s = "attribute_type(" + path + ", " + b.value(attr.String(t)) + ")"
	return negate(s, e.Negated), nil
}

// noOperands is the error of a function called without arguments.
func noOperands(at int, fn string) error {
	return semErr(at, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: 0", fn)
}
