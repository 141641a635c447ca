package expressions

import (
	"strconv"
	"strings"
)

// maxExpressionSize is DynamoDB's limit on the length of any expression string.
const maxExpressionSize = 4096

// maxOperators is DynamoDB's limit on the operators and functions in one
// expression ("The maximum number of operators or functions allowed in an
// UpdateExpression is 300"). Comparators, AND, OR, NOT, BETWEEN, IN, function
// calls and update + and - count; parentheses, SET's '=' and the clause words
// do not. DynamoDB stops at the 301st, so its message always says 301.
const maxOperators = 300

// parser is a recursive-descent parser over the tokens of one expression. Each
// parse method's comment is its grammar rule. Parsing only builds the tree;
// placeholders are resolved and types checked afterwards (resolve.go, check.go)
// because DynamoDB reports any syntax error before any semantic one.
type parser struct {
	k    kind
	src  string
	toks []token
	i    int
	// keywords are the bare words that cannot start a path in this kind of
	// expression (they are reserved words anyway, but here they are grammar).
	keywords []string
	// lastParen is the token span [open, close] of the parenthesized group that
	// ended last; redundant is the first group found wrapping exactly another
	// group, which DynamoDB rejects once the whole expression has parsed.
	lastParen [2]int
	redundant *Error
	// parenArgs lets a function argument be wrapped in parentheses, as update
	// expressions allow.
	parenArgs bool
	// ops counts operators and functions against maxOperators.
	ops int
}

func newParser(k kind, src string, keywords []string) *parser {
	return &parser{k: k, src: src, toks: lex(src), keywords: keywords}
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.typ != tEOF {
		p.i++
	}
	return t
}

// countOp counts one operator or function, found at pos, against maxOperators.
func (p *parser) countOp(pos int) error {
	p.ops++
	if p.ops > maxOperators {
		return p.k.errf(pos, "The expression contains too many operators; operator count: %d", p.ops)
	}
	return nil
}

// fail reports a syntax error at the current token.
func (p *parser) fail() error { return syntaxErr(p.k, p.src, p.toks, p.i) }

// isWord reports whether t is the bare word w, compared case-insensitively as
// DynamoDB compares keywords.
func isWord(t token, w string) bool { return t.typ == tIdent && strings.EqualFold(t.text, w) }

func (p *parser) isKeyword(t token) bool {
	for _, kw := range p.keywords {
		if isWord(t, kw) {
			return true
		}
	}
	return false
}

func isPunct(t token, s string) bool { return t.typ == tPunct && t.text == s }

func (p *parser) expect(s string) error {
	if !isPunct(p.peek(), s) {
		return p.fail()
	}
	p.next()
	return nil
}

// atEnd requires that all input was consumed.
func (p *parser) atEnd() error {
	if p.peek().typ != tEOF {
		return p.fail()
	}
	return nil
}

// parsePath:
//
//	path := (IDENT | #NAME) ( '.' (IDENT | #NAME) | '[' NUMBER ']' )*
func (p *parser) parsePath() (*operand, error) {
	t := p.peek()
	if !(t.typ == tName || (t.typ == tIdent && !p.isKeyword(t))) {
		return nil, p.fail()
	}
	p.next()
	o := &operand{kind: opPath, raw: []string{t.text}, pos: t.pos}
	for {
		switch t := p.peek(); {
		case isPunct(t, "."):
			p.next()
			n := p.peek()
			if n.typ != tName && n.typ != tIdent {
				return nil, p.fail()
			}
			p.next()
			o.raw = append(o.raw, n.text)
		case isPunct(t, "["):
			p.next()
			n := p.peek()
			if n.typ != tNumber {
				return nil, p.fail()
			}
			if _, err := strconv.ParseInt(n.text, 10, 32); err != nil {
				// An index beyond int32 can never address a list element.
				return nil, p.fail()
			}
			p.next()
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			o.raw = append(o.raw, "["+n.text+"]")
		default:
			return o, nil
		}
	}
}

// parseOperand:
//
//	operand := FUNCNAME '(' arg (',' arg)* ')' | path | :VALUE
//	arg     := operand                 (conditions)
//	arg     := term                    (updates, see parseTerm)
func (p *parser) parseOperand() (*operand, error) {
	t := p.peek()
	switch {
	case t.typ == tValue:
		p.next()
		return &operand{kind: opValue, name: t.text, pos: t.pos}, nil
	case t.typ == tIdent && isPunct(p.toks[p.i+1], "("):
		p.next()
		p.next()
		if err := p.countOp(t.pos); err != nil {
			return nil, err
		}
		f := &operand{kind: opFunc, name: t.text, pos: t.pos}
		for {
			var a *operand
			var err error
			if p.parenArgs {
				a, err = p.parseTerm(false)
			} else {
				a, err = p.parseOperand()
			}
			if err != nil {
				return nil, err
			}
			f.args = append(f.args, a)
			if isPunct(p.peek(), ",") {
				p.next()
				continue
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return f, nil
		}
	default:
		return p.parsePath()
	}
}

// conditionKeywords are the grammar words of condition expressions.
var conditionKeywords = []string{"AND", "OR", "NOT", "BETWEEN", "IN"}

// parseCondition parses a whole condition, filter or key condition expression.
//
//	expression := or EOF
func parseCondition(k kind, src string) (*Condition, error) {
	p := newParser(k, src, conditionKeywords)
	c, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if err := p.atEnd(); err != nil {
		return nil, err
	}
	if p.redundant != nil {
		return nil, p.redundant
	}
	return c, nil
}

// parseOr:
//
//	or := and ('OR' and)*
func (p *parser) parseOr() (*Condition, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for isWord(p.peek(), "OR") {
		pos := p.next().pos
		if err := p.countOp(pos); err != nil {
			return nil, err
		}
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = &Condition{kind: condOr, sub: []*Condition{left, right}, pos: pos}
	}
	return left, nil
}

// parseAnd:
//
//	and := not ('AND' not)*
func (p *parser) parseAnd() (*Condition, error) {
	left, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for isWord(p.peek(), "AND") {
		pos := p.next().pos
		if err := p.countOp(pos); err != nil {
			return nil, err
		}
		right, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		left = &Condition{kind: condAnd, sub: []*Condition{left, right}, pos: pos}
	}
	return left, nil
}

// parseNot:
//
//	not := 'NOT' not | primary
func (p *parser) parseNot() (*Condition, error) {
	if isWord(p.peek(), "NOT") {
		pos := p.next().pos
		if err := p.countOp(pos); err != nil {
			return nil, err
		}
		c, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &Condition{kind: condNot, sub: []*Condition{c}, pos: pos}, nil
	}
	return p.parsePrimary()
}

// isComparator reports whether t is one of = <> < <= > >=.
func isComparator(t token) bool {
	if t.typ != tPunct {
		return false
	}
	switch t.text {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// parsePrimary:
//
//	primary := '(' or ')'
//	         | operand comparator operand
//	         | operand 'BETWEEN' operand 'AND' operand
//	         | operand 'IN' '(' operand (',' operand)* ')'
//	         | function
func (p *parser) parsePrimary() (*Condition, error) {
	if isPunct(p.peek(), "(") {
		open := p.i
		p.next()
		c, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		close := p.i - 1
		if p.lastParen == [2]int{open + 1, close - 1} && p.redundant == nil {
			p.redundant = p.k.errf(p.toks[open].pos, "The expression has redundant parentheses;")
		}
		p.lastParen = [2]int{open, close}
		return c, nil
	}
	left, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case isComparator(t):
		p.next()
		if err := p.countOp(t.pos); err != nil {
			return nil, err
		}
		right, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		return &Condition{kind: condCompare, op: t.text, args: []*operand{left, right}, pos: t.pos}, nil
	case isWord(t, "BETWEEN"):
		p.next()
		if err := p.countOp(t.pos); err != nil {
			return nil, err
		}
		lo, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		if !isWord(p.peek(), "AND") {
			return nil, p.fail()
		}
		p.next()
		hi, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		return &Condition{kind: condBetween, op: "BETWEEN", args: []*operand{left, lo, hi}, pos: t.pos}, nil
	case isWord(t, "IN"):
		p.next()
		if err := p.countOp(t.pos); err != nil {
			return nil, err
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		c := &Condition{kind: condIn, op: "IN", args: []*operand{left}, pos: t.pos}
		for {
			o, err := p.parseOperand()
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, o)
			if isPunct(p.peek(), ",") {
				p.next()
				continue
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			return c, nil
		}
	case left.kind == opFunc:
		return &Condition{kind: condFunc, op: left.name, args: left.args, pos: left.pos}, nil
	}
	return nil, p.fail()
}

// updateKeywords are the clause words of update expressions.
var updateKeywords = []string{"SET", "REMOVE", "ADD", "DELETE"}

// parseUpdate parses an update expression.
//
//	update := clause+ EOF
//	clause := 'SET' set (',' set)* | 'REMOVE' path (',' path)*
//	        | 'ADD' path :VALUE (',' path :VALUE)* | 'DELETE' path :VALUE (',' path :VALUE)*
//	set    := path '=' value
//	value  := term (('+' | '-') term)?     (neither term itself arithmetic)
//	term   := '(' value ')' | operand
//
// So a value, an operand and a function argument may be wrapped in
// parentheses (ElectroDB sends "SET #a = (if_not_exists(#a, :z) + :v)"), but
// one SET value holds at most one '+' or '-'.
//
// A clause given twice is returned apart (dup), not as the error: DynamoDB
// reports it only after the whole expression has parsed and its names have
// been checked for reserved words and unknown functions (see resolveUpdate).
func parseUpdate(src string) (u *Update, dup, err error) {
	p := newParser(kindUpdate, src, updateKeywords)
	p.parenArgs = true
	u = &Update{}
	seen := [4]bool{}
	for {
		t := p.peek()
		var ak actionKind
		switch {
		case isWord(t, "SET"):
			ak = actSet
		case isWord(t, "REMOVE"):
			ak = actRemove
		case isWord(t, "ADD"):
			ak = actAdd
		case isWord(t, "DELETE"):
			ak = actDelete
		default:
			if len(u.clauses) > 0 && t.typ == tEOF {
				return u, dup, nil
			}
			return nil, nil, p.fail()
		}
		if seen[ak] && dup == nil {
			dup = p.k.errf(t.pos, "The %q section can only be used once in an update expression;", strings.ToUpper(t.text))
		}
		seen[ak] = true
		u.clauses = append(u.clauses, ak)
		p.next()
		for {
			a, err := p.parseAction(ak)
			if err != nil {
				return nil, nil, err
			}
			u.actions = append(u.actions, a)
			if !isPunct(p.peek(), ",") {
				break
			}
			p.next()
		}
	}
}

// parseAction parses one item of a clause (see parseUpdate).
func (p *parser) parseAction(ak actionKind) (action, error) {
	target, err := p.parsePath()
	if err != nil {
		return action{}, err
	}
	a := action{kind: ak, target: target}
	switch ak {
	case actSet:
		if err := p.expect("="); err != nil {
			return action{}, err
		}
		v, err := p.parseValue()
		if err != nil {
			return action{}, err
		}
		a.value = v
	case actAdd, actDelete:
		t := p.peek()
		if t.typ != tValue {
			return action{}, p.fail()
		}
		p.next()
		a.value = &operand{kind: opValue, name: t.text, pos: t.pos}
	}
	return a, nil
}

// parseValue parses a SET action's value (see parseUpdate).
func (p *parser) parseValue() (*operand, error) {
	v, err := p.parseTerm(true)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if !isPunct(t, "+") && !isPunct(t, "-") {
		return v, nil
	}
	if v.kind == opPlus || v.kind == opMinus {
		return nil, p.fail()
	}
	p.next()
	if err := p.countOp(t.pos); err != nil {
		return nil, err
	}
	r, err := p.parseTerm(false)
	if err != nil {
		return nil, err
	}
	k := opPlus
	if t.text == "-" {
		k = opMinus
	}
	return &operand{kind: k, name: t.text, args: []*operand{v, r}, pos: t.pos}, nil
}

// parseTerm parses a term of a SET value (see parseUpdate); inside its
// parentheses a '+' or '-' is allowed only when arith is true.
func (p *parser) parseTerm(arith bool) (*operand, error) {
	if !isPunct(p.peek(), "(") {
		return p.parseOperand()
	}
	p.next()
	var v *operand
	var err error
	if arith {
		v, err = p.parseValue()
	} else {
		v, err = p.parseTerm(false)
	}
	if err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return v, nil
}

// parseProjection parses a projection expression.
//
//	projection := path (',' path)* EOF
func parseProjection(src string) (*Projection, error) {
	p := newParser(kindProjection, src, nil)
	pr := &Projection{}
	for {
		o, err := p.parsePath()
		if err != nil {
			return nil, err
		}
		pr.paths = append(pr.paths, o)
		if !isPunct(p.peek(), ",") {
			break
		}
		p.next()
	}
	if err := p.atEnd(); err != nil {
		return nil, err
	}
	return pr, nil
}
