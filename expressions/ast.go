package expressions

import (
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// PathElem is one step of a document path: an attribute or map key name, or a
// list index.
type PathElem struct {
	Name  string // the name when Index < 0
	Index int    // the list index, or -1 for a name step
}

// Path is a resolved document path: a top-level attribute name followed by map
// keys and list indexes ("a.b[3].c" is {a, b, [3], c}).
type Path []PathElem

// String renders p as DynamoDB does in its messages: "[a, b, [3], c]".
func (p Path) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if e.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		} else {
			b.WriteString(e.Name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// operandKind says what an operand computes.
type operandKind uint8

const (
	opPath  operandKind = iota // a document path in the item
	opValue                    // an expression attribute value (or a legacy literal)
	opFunc                     // a function call: size, if_not_exists, list_append, ...
	opPlus                     // args[0] + args[1] (update SET only)
	opMinus                    // args[0] - args[1] (update SET only)
)

// operand is a value-producing node. raw keeps the text as written (placeholders
// included) so String() can reproduce the expression.
type operand struct {
	kind  operandKind
	path  Path
	raw   []string // for opPath: each step's source text ("#n", "a", "[3]")
	value attr.Value
	name  string // for opValue: ":v" (empty for legacy literals); for opFunc: function name
	args  []*operand
	pos   int
}

// condKind says what a condition node tests.
type condKind uint8

const (
	condAnd     condKind = iota // sub[0] AND sub[1]
	condOr                      // sub[0] OR sub[1]
	condNot                     // NOT sub[0]
	condCompare                 // args[0] op args[1]
	condBetween                 // args[0] BETWEEN args[1] AND args[2]
	condIn                      // args[0] IN (args[1:]...)
	condFunc                    // op(args...): attribute_exists, begins_with, ...
)

// Condition is a parsed, resolved and checked condition: a ConditionExpression,
// FilterExpression or KeyConditionExpression, or a legacy Expected, QueryFilter,
// ScanFilter or KeyConditions translated onto the same tree.
type Condition struct {
	kind condKind
	op   string // comparator ("=", "<>", ...) or function name
	sub  []*Condition
	args []*operand
	pos  int
}

// actionKind is one update action's verb.
type actionKind uint8

const (
	actSet actionKind = iota
	actRemove
	actAdd
	actDelete
)

// action is one comma-separated item of an update clause. legacyList marks a
// legacy AttributeUpdates ADD of a list value, which appends (expressions cannot).
type action struct {
	kind       actionKind
	target     *operand // always opPath
	value      *operand // nil for REMOVE
	legacyList bool
}

// Update is a parsed, resolved and checked UpdateExpression (or legacy
// AttributeUpdates). Its Apply is a pure function of the old item.
type Update struct {
	actions []action
	// clauses records the clause order as written, for String().
	clauses []actionKind
	// legacy marks a translation of AttributeUpdates, whose type errors
	// read differently.
	legacy bool
}

// Projection is a parsed and resolved ProjectionExpression (or legacy
// AttributesToGet): the list of document paths to keep.
type Projection struct {
	paths []*operand
	tree  *projNode // built once by Compile; read-only afterwards
}

// Paths returns the projected document paths in the order written.
func (p *Projection) Paths() []Path {
	out := make([]Path, len(p.paths))
	for i, o := range p.paths {
		out[i] = o.path
	}
	return out
}

// TopLevelNames returns the distinct top-level attribute names the projection
// reads, in first-use order.
func (p *Projection) TopLevelNames() []string {
	var names []string
	for _, o := range p.paths {
		names = appendUnique(names, o.path[0].Name)
	}
	return names
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
