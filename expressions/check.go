package expressions

import (
	"encoding/base64"

	"github.com/ddblocal/ddblocal/attr"
)

// maxInOperands is DynamoDB's limit on the list of an IN comparison.
const maxInOperands = 100

// Messages shared by several checks, in DynamoDB's words.
const (
	msgOperandType   = "Incorrect operand type for operator or function; operator or function: %s, operand type: %s"
	msgOperandCount  = "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d"
	msgNeedsPath     = "Operator or function requires a document path; operator or function: %s"
	msgBadFunction   = "Invalid function name; function: %s"
	msgMisusedFunc   = "The function is not allowed to be used this way in an expression; function: %s"
	msgUpdateFunc    = "The function is not allowed in an update expression; function: %s"
	msgConditionFunc = "The function is not allowed in a condition expression; function: %s" // pattern of msgUpdateFunc
)

// isConditionFunc reports whether name is a function that is itself a condition.
func isConditionFunc(name string) bool {
	switch name {
	case "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains":
		return true
	}
	return false
}

func isUpdateFunc(name string) bool { return name == "if_not_exists" || name == "list_append" }

// funcArity is the number of operands each function takes.
func funcArity(name string) int {
	switch name {
	case "attribute_exists", "attribute_not_exists", "size":
		return 1
	}
	return 2
}

func isScalarKeyType(t attr.Type) bool { return t == attr.TypeS || t == attr.TypeN || t == attr.TypeB }

func isSetOrCollection(t attr.Type) bool {
	switch t {
	case attr.TypeS, attr.TypeB, attr.TypeSS, attr.TypeNS, attr.TypeBS, attr.TypeL, attr.TypeM:
		return true
	}
	return false
}

// checkCondition validates functions and constant operand types of a condition tree.
func checkCondition(k kind, c *Condition) error {
	switch c.kind {
	case condAnd, condOr, condNot:
		for _, s := range c.sub {
			if err := checkCondition(k, s); err != nil {
				return err
			}
		}
		return nil
	case condFunc:
		return checkConditionFunc(k, c.op, c.args, c.pos)
	case condIn:
		if n := len(c.args) - 1; n > maxInOperands {
			// Message pattern inferred from the other operand-count errors.
			return k.errf(c.pos, "The IN operator is provided with too many operands; number of operands: %d", n)
		}
	}
	for _, a := range c.args {
		if err := checkConditionOperand(k, a); err != nil {
			return err
		}
	}
	if err := checkDistinct(k, c.op, c.args, c.pos); err != nil {
		return err
	}
	ordered := c.kind == condBetween || (c.kind == condCompare && c.op != "=" && c.op != "<>")
	if ordered {
		// Ordering is defined only on S, N and B; a constant of any other type
		// can never compare, which DynamoDB rejects up front.
		for _, a := range c.args {
			if a.kind == opValue && !isScalarKeyType(a.value.T) {
				return k.errf(a.pos, msgOperandType, c.op, a.value.T)
			}
		}
	}
	if c.kind == condBetween && c.args[1].kind == opValue && c.args[2].kind == opValue {
		lo, hi := c.args[1].value, c.args[2].value
		if n, ok := attr.Compare(lo, hi); ok && n > 0 {
			return k.errf(c.pos, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", describe(lo), describe(hi))
		}
	}
	return nil
}

// checkDistinct rejects an operator whose first operand, a path, appears again
// among its other operands ("contains (a, a) returns an error", says the guide).
func checkDistinct(k kind, op string, args []*operand, pos int) error {
	first := args[0]
	if first.kind != opPath {
		return nil
	}
	for _, a := range args[1:] {
		if a.kind == opPath && equalPaths(a.path, first.path) {
			return k.errf(pos, "The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, first.path)
		}
	}
	return nil
}

func equalPaths(a, b Path) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// describe renders a scalar value as DynamoDB's messages do ("N:5").
func describe(v attr.Value) string {
	if v.T == attr.TypeB {
		return "B:" + base64.StdEncoding.EncodeToString(v.B)
	}
	return v.T.String() + ":" + v.S
}

// checkConditionOperand validates a value-producing operand of a condition:
// a path, a value, or size(path | value).
func checkConditionOperand(k kind, o *operand) error {
	if o.kind != opFunc {
		return nil
	}
	if o.name != "size" {
		return funcOperandErr(k, o)
	}
	if len(o.args) != 1 {
		return k.errf(o.pos, msgOperandCount, o.name, len(o.args))
	}
	a := o.args[0]
	if a.kind == opFunc {
		return funcOperandErr(k, a)
	}
	if a.kind == opValue && !isSetOrCollection(a.value.T) {
		return k.errf(a.pos, msgOperandType, o.name, a.value.T)
	}
	return nil
}

// funcOperandErr reports why function o cannot appear where it does.
func funcOperandErr(k kind, o *operand) error {
	switch {
	case isUpdateFunc(o.name):
		return k.errf(o.pos, msgConditionFunc, o.name)
	case isConditionFunc(o.name) || o.name == "size":
		return k.errf(o.pos, msgMisusedFunc, o.name)
	}
	return k.errf(o.pos, msgBadFunction, o.name)
}

// checkConditionFunc validates a function used as a condition.
func checkConditionFunc(k kind, name string, args []*operand, pos int) error {
	switch {
	case name == "size":
		return k.errf(pos, msgMisusedFunc, name)
	case isUpdateFunc(name):
		return k.errf(pos, msgConditionFunc, name)
	case !isConditionFunc(name):
		return k.errf(pos, msgBadFunction, name)
	}
	if len(args) != funcArity(name) {
		return k.errf(pos, msgOperandCount, name, len(args))
	}
	for _, a := range args {
		if err := checkConditionOperand(k, a); err != nil {
			return err
		}
	}
	if name == "begins_with" || name == "contains" {
		if err := checkDistinct(k, name, args, pos); err != nil {
			return err
		}
	}
	switch name {
	case "attribute_exists", "attribute_not_exists", "attribute_type":
		if args[0].kind != opPath {
			return k.errf(args[0].pos, msgNeedsPath, name)
		}
	}
	switch name {
	case "attribute_type":
		t := args[1]
		if t.kind != opValue {
			// DynamoDB takes the type only from a value placeholder.
			return k.errf(t.pos, msgOperandType, name, "PATH")
		}
		if t.value.T != attr.TypeS {
			return k.errf(t.pos, msgOperandType, name, t.value.T)
		}
		if attr.ParseType(t.value.S) == 0 {
			return k.errf(t.pos, "Invalid attribute type name found; type: %s, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }", t.value.S)
		}
	case "begins_with":
		for _, a := range args {
			if a.kind == opValue && a.value.T != attr.TypeS && a.value.T != attr.TypeB {
				return k.errf(a.pos, msgOperandType, name, a.value.T)
			}
		}
	}
	return nil
}

// longTypeName is the type spelling DynamoDB uses in ADD/DELETE operand errors.
func longTypeName(t attr.Type) string {
	switch t {
	case attr.TypeS:
		return "STRING"
	case attr.TypeN:
		return "NUMBER"
	case attr.TypeB:
		return "BINARY"
	case attr.TypeBOOL:
		return "BOOLEAN"
	case attr.TypeNULL:
		return "NULL"
	case attr.TypeM:
		return "MAP"
	case attr.TypeL:
		return "LIST"
	}
	return t.String()
}

// checkUpdate validates functions, constant operand types and path overlaps of
// an update expression.
func checkUpdate(u *Update) error {
	k := kindUpdate
	paths := make([]Path, 0, len(u.actions))
	for _, a := range u.actions {
		switch a.kind {
		case actSet:
			if err := checkUpdateValue(a.value); err != nil {
				return err
			}
		case actAdd:
			t := a.value.value.T
			if t != attr.TypeN && t != attr.TypeSS && t != attr.TypeNS && t != attr.TypeBS {
				return k.errf(a.value.pos, "Incorrect operand type for operator or function; operator: ADD, operand type: %s", longTypeName(t))
			}
		case actDelete:
			t := a.value.value.T
			if t != attr.TypeSS && t != attr.TypeNS && t != attr.TypeBS {
				return k.errf(a.value.pos, "Incorrect operand type for operator or function; operator: DELETE, operand type: %s", longTypeName(t))
			}
		}
		paths = append(paths, a.target.path)
	}
	return checkOverlap(k, paths)
}

// checkUpdateValue validates the right-hand side of a SET action.
func checkUpdateValue(o *operand) error {
	k := kindUpdate
	switch o.kind {
	case opPlus, opMinus:
		for _, a := range o.args {
			if err := checkUpdateValue(a); err != nil {
				return err
			}
			if a.kind == opValue && a.value.T != attr.TypeN {
				return k.errf(a.pos, msgOperandType, o.name, a.value.T)
			}
		}
	case opFunc:
		switch {
		case isConditionFunc(o.name) || o.name == "size":
			return k.errf(o.pos, msgUpdateFunc, o.name)
		case !isUpdateFunc(o.name):
			return k.errf(o.pos, msgBadFunction, o.name)
		}
		if len(o.args) != 2 {
			return k.errf(o.pos, msgOperandCount, o.name, len(o.args))
		}
		for _, a := range o.args {
			if err := checkUpdateValue(a); err != nil {
				return err
			}
		}
		if o.name == "if_not_exists" && o.args[0].kind != opPath {
			return k.errf(o.args[0].pos, msgNeedsPath, o.name)
		}
		if o.name == "list_append" {
			for _, a := range o.args {
				if a.kind == opValue && a.value.T != attr.TypeL {
					return k.errf(a.pos, msgOperandType, o.name, a.value.T)
				}
			}
		}
	}
	return nil
}

// checkOverlap rejects two paths where one is a prefix of (or equal to) the
// other, or where they address the same element once as a map and once as a list.
func checkOverlap(k kind, paths []Path) error {
	for i := 1; i < len(paths); i++ {
		for j := 0; j < i; j++ {
			a, b := paths[j], paths[i]
			n := min(len(a), len(b))
			l := 0
			for l < n && a[l] == b[l] {
				l++
			}
			if l == n {
				return k.errf(-1, "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", a, b)
			}
			if (a[l].Index < 0) != (b[l].Index < 0) {
				return k.errf(-1, "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", a, b)
			}
		}
	}
	return nil
}
