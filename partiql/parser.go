package partiql

import (
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// MaxStatementSize is DynamoDB's limit on a statement's length in bytes.
const MaxStatementSize = 8192

// parser is a recursive-descent parser over one statement's tokens. Each
// parse method's comment is its grammar rule; words in capitals are
// keywords, matched case-insensitively.
type parser struct {
	toks   []token
	i      int
	params int // '?' seen so far
}

// keywords cannot be bare attribute or table names (quote them instead).
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"IN": true, "IS": true, "BETWEEN": true, "LIKE": true, "INSERT": true, "INTO": true,
	"VALUE": true, "VALUES": true, "UPDATE": true, "SET": true, "REMOVE": true,
	"DELETE": true, "RETURNING": true, "ORDER": true, "BY": true, "ASC": true, "DESC": true,
	"EXISTS": true, "MISSING": true, "NULL": true, "TRUE": true, "FALSE": true, "AS": true,
	"AT": true, "LIMIT": true,
}

// wordOperators are the keywords PartiQL classes as operators.
var wordOperators = map[string]bool{"AND": true, "OR": true, "IS": true, "IN": true, "LIKE": true, "BETWEEN": true}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.typ != tEOF {
		p.i++
	}
	return t
}

func isWord(t token, w string) bool { return t.typ == tIdent && strings.EqualFold(t.text, w) }

func isKeyword(t token) bool { return t.typ == tIdent && keywords[strings.ToUpper(t.text)] }

func isPunct(t token, s string) bool { return t.typ == tPunct && t.text == s }

// accept consumes the keyword w if it is next.
func (p *parser) accept(w string) bool {
	if isWord(p.peek(), w) {
		p.next()
		return true
	}
	return false
}

// acceptPunct consumes the punctuation s if it is next.
func (p *parser) acceptPunct(s string) bool {
	if isPunct(p.peek(), s) {
		p.next()
		return true
	}
	return false
}

// unexpected describes the token at hand where a term should start.
func (p *parser) unexpected() error {
	t := p.peek()
	switch {
	case t.typ == tEOF:
		return syntaxErr(t.pos, msgTerm)
	case t.typ == tIdent && wordOperators[strings.ToUpper(t.text)]:
		return syntaxErr(t.pos, msgOperator)
	case isKeyword(t):
		return syntaxErr(t.pos, msgKeyword)
	case t.typ == tPunct && strings.Contains("=<>!=<=>=+*/%", t.text) && t.text != "<<":
		return syntaxErr(t.pos, msgOperator)
	}
	return syntaxErr(t.pos, msgTerm)
}

// expectWord consumes keyword w or fails on the token at hand.
func (p *parser) expectWord(w string) error {
	if p.accept(w) {
		return nil
	}
	if p.peek().typ == tEOF {
		return syntaxErr(p.peek().pos, msgTerm)
	}
	return p.unexpected()
}

// expectPunct consumes punctuation s or fails on the token at hand.
func (p *parser) expectPunct(s string) error {
	if p.acceptPunct(s) {
		return nil
	}
	return p.unexpected()
}

// Parse parses one statement. Every error is an *Error in DynamoDB's words.
func Parse(src string) (Statement, error) {
	s, _, err := parse(src)
	return s, err
}

// parse parses one statement and counts its '?' parameters.
//
//	statement := (select | insert | update | fromupdate | delete | exists) [';'] EOF
func parse(src string) (Statement, int, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, 0, err
	}
	p := &parser{toks: toks}
	var s Statement
	t := p.peek()
	switch {
	case isWord(t, "SELECT"):
		s, err = p.parseSelect()
	case isWord(t, "INSERT"):
		s, err = p.parseInsert()
	case isWord(t, "UPDATE"):
		s, err = p.parseUpdate()
	case isWord(t, "DELETE"):
		s, err = p.parseDelete()
	case isWord(t, "EXISTS"):
		s, err = p.parseExists()
	case isWord(t, "FROM"):
		s, err = p.parseFromUpdate()
	default:
		return nil, 0, syntaxErr(t.pos, msgNotDML)
	}
	if err != nil {
		return nil, 0, err
	}
	p.acceptPunct(";")
	if t := p.peek(); t.typ != tEOF {
		return nil, 0, syntaxErr(t.pos, msgLeftover)
	}
	return s, p.params, nil
}

// parseSelect:
//
//	select     := 'SELECT' projection 'FROM' source ['WHERE' expr]
//	              ['ORDER' 'BY' order (',' order)*]
//	projection := '*' | path (',' path)*
//	order      := path ['ASC' | 'DESC']
func (p *parser) parseSelect() (*Select, error) {
	s := &Select{At: p.next().pos}
	if p.acceptPunct("*") {
		s.Star = true
	} else {
		for {
			if t := p.peek(); t.typ == tIdent && !isKeyword(t) && isPunct(p.peekAt(1), "(") {
				// A function is no projection (the service's words, located).
				return nil, locErr(t.pos, len([]rune(t.text)), "Unexpected path component")
			}
			path, err := p.parsePath()
			if err != nil {
				return nil, err
			}
			s.Projection = append(s.Projection, path)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if t := p.peek(); isWord(t, "AS") || (t.typ == tIdent && !isKeyword(t)) || t.typ == tQuoted {
		return nil, semErr(t.pos, msgAliasing)
	}
	if err := p.expectWord("FROM"); err != nil {
		return nil, err
	}
	var err error
	if s.Table, s.Index, err = p.parseSource(); err != nil {
		return nil, err
	}
	if p.accept("WHERE") {
		if s.Where, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if p.accept("ORDER") {
		if err := p.expectWord("BY"); err != nil {
			return nil, err
		}
		for {
			path, err := p.parsePath()
			if err != nil {
				return nil, err
			}
			o := Order{Path: path}
			if p.accept("DESC") {
				o.Desc = true
			} else {
				p.accept("ASC")
			}
			s.OrderBy = append(s.OrderBy, o)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	return s, nil
}

// parseSource:
//
//	source := name ['.' name]      (a table, or a table and one of its indexes)
//	name   := IDENT | QUOTED
func (p *parser) parseSource() (tableName, index string, err error) {
	t := p.peek()
	if t.typ != tQuoted && (t.typ != tIdent || isKeyword(t)) {
		return "", "", p.unexpected()
	}
	p.next()
	tableName = t.text
	if p.acceptPunct(".") {
		n := p.peek()
		if n.typ != tQuoted && n.typ != tIdent {
			return "", "", p.unexpected()
		}
		p.next()
		index = n.text
		if isPunct(p.peek(), ".") || isPunct(p.peek(), "[") {
			return "", "", semErr(p.peek().pos, "A path may contain at most 2 components in the FROM clause")
		}
		if index == "" {
			return "", "", semErr(n.pos, msgEmptyComponent)
		}
	}
	if tableName == "" {
		return "", "", semErr(t.pos, msgEmptyComponent)
	}
	if a := p.peek(); isWord(a, "AS") || (a.typ == tIdent && !isKeyword(a)) || a.typ == tQuoted {
		return "", "", semErr(a.pos, msgAliasing)
	}
	return tableName, index, nil
}

// parseTarget reads the one table name of a write:
//
//	target := IDENT | QUOTED
func (p *parser) parseTarget() (string, error) {
	t := p.peek()
	if t.typ != tQuoted && (t.typ != tIdent || isKeyword(t)) {
		return "", syntaxErr(t.pos, msgSimplePath)
	}
	p.next()
	return t.text, nil
}

// parseInsert:
//
//	insert := 'INSERT' 'INTO' target 'VALUE' primary
func (p *parser) parseInsert() (*Insert, error) {
	s := &Insert{At: p.next().pos}
	if err := p.expectWord("INTO"); err != nil {
		return nil, err
	}
	var err error
	if s.Table, err = p.parseTarget(); err != nil {
		return nil, err
	}
	if isWord(p.peek(), "VALUES") {
		return nil, semErr(p.peek().pos, "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead")
	}
	if !p.accept("VALUE") {
		return nil, syntaxErr(p.peek().pos, msgLeftover)
	}
	if s.Value, err = p.parsePrimary(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseUpdate:
//
//	update := 'UPDATE' target clause+ ['WHERE' expr] [returning]
func (p *parser) parseUpdate() (*Update, error) {
	s := &Update{At: p.next().pos}
	var err error
	if s.Table, err = p.parseTarget(); err != nil {
		return nil, err
	}
	if a := p.peek(); isWord(a, "AS") || (a.typ == tIdent && !isKeyword(a)) || a.typ == tQuoted {
		return nil, semErr(a.pos, msgAliasing)
	}
	if err := p.parseClauses(s); err != nil {
		return nil, err
	}
	if s.Where, s.Returning, err = p.parseWhereReturning(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseClauses parses an UPDATE's SET and REMOVE clauses, at least one.
//
//	clause := 'SET' path '=' additive (',' path '=' additive)*
//	        | 'REMOVE' path (',' path)*
func (p *parser) parseClauses(s *Update) error {
	for {
		set := isWord(p.peek(), "SET")
		if !set && !isWord(p.peek(), "REMOVE") {
			break
		}
		p.next()
		for {
			target, err := p.parsePath()
			if err != nil {
				return err
			}
			a := Action{Target: target}
			if set {
				if err := p.expectPunct("="); err != nil {
					return err
				}
				if a.Value, err = p.rhs(p.parseAdditive); err != nil {
					return err
				}
			}
			s.Actions = append(s.Actions, a)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if len(s.Actions) == 0 {
		return p.unexpected()
	}
	return nil
}

// parseFromUpdate parses UPDATE's other form, its WHERE before its clauses:
//
//	fromupdate := 'FROM' target ['WHERE' expr] clause+ [returning]
func (p *parser) parseFromUpdate() (*Update, error) {
	s := &Update{At: p.next().pos, FromFirst: true}
	var err error
	if s.Table, err = p.parseTarget(); err != nil {
		return nil, err
	}
	if a := p.peek(); isWord(a, "AS") || (a.typ == tIdent && !isKeyword(a)) || a.typ == tQuoted {
		return nil, semErr(a.pos, msgAliasing)
	}
	if p.accept("WHERE") {
		if s.Where, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if err := p.parseClauses(s); err != nil {
		return nil, err
	}
	s.Returning, err = p.parseReturning()
	return s, err
}

// parseDelete:
//
//	delete := 'DELETE' 'FROM' target ['WHERE' expr] [returning]
func (p *parser) parseDelete() (*Delete, error) {
	s := &Delete{At: p.next().pos}
	if err := p.expectWord("FROM"); err != nil {
		return nil, err
	}
	var err error
	if s.Table, err = p.parseTarget(); err != nil {
		return nil, err
	}
	if a := p.peek(); isWord(a, "AS") || (a.typ == tIdent && !isKeyword(a)) || a.typ == tQuoted {
		return nil, semErr(a.pos, msgAliasing)
	}
	if s.Where, s.Returning, err = p.parseWhereReturning(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseWhereReturning parses the tail of UPDATE and DELETE.
//
//	returning := 'RETURNING' ('ALL' | 'MODIFIED') ('OLD' | 'NEW') '*'
func (p *parser) parseWhereReturning() (Expr, *Returning, error) {
	var where Expr
	if p.accept("WHERE") {
		var err error
		if where, err = p.parseExpr(); err != nil {
			return nil, nil, err
		}
	}
	r, err := p.parseReturning()
	return where, r, err
}

// parseReturning parses an optional RETURNING clause (see parseWhereReturning).
func (p *parser) parseReturning() (*Returning, error) {
	if !isWord(p.peek(), "RETURNING") {
		return nil, nil
	}
	r := &Returning{At: p.next().pos}
	switch {
	case p.accept("MODIFIED"):
		r.Modified = true
	case p.accept("ALL"):
	default:
		return nil, p.unexpected()
	}
	switch {
	case p.accept("NEW"):
		r.New = true
	case p.accept("OLD"):
	default:
		return nil, p.unexpected()
	}
	if !p.acceptPunct("*") {
		return nil, semErr(p.peek().pos, "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause")
	}
	return r, nil
}

// parseExists:
//
//	exists := 'EXISTS' '(' select ')'
func (p *parser) parseExists() (*Exists, error) {
	s := &Exists{At: p.next().pos}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	if !isWord(p.peek(), "SELECT") {
		return nil, p.unexpected()
	}
	var err error
	if s.Select, err = p.parseSelect(); err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	return s, nil
}

// parsePath:
//
//	path := name ('.' name | '[' NUMBER ']' | '[' STRING ']')*
func (p *parser) parsePath() (*Path, error) {
	t := p.peek()
	if t.typ != tQuoted && (t.typ != tIdent || isKeyword(t)) {
		return nil, p.unexpected()
	}
	p.next()
	path := &Path{At: t.pos, Steps: []Step{{Name: t.text, Index: -1}}}
	for {
		switch {
		case isPunct(p.peek(), "."):
			p.next()
			n := p.peek()
			if n.typ != tQuoted && n.typ != tIdent {
				return nil, syntaxErr(n.pos, "Invalid path component, expecting either an IDENTIFIER or STAR")
			}
			p.next()
			path.Steps = append(path.Steps, Step{Name: n.text, Index: -1})
		case isPunct(p.peek(), "["):
			p.next()
			n := p.next()
			step := Step{Name: n.text, Index: -1}
			switch n.typ {
			case tString:
			case tNumber:
				i, err := strconv.ParseInt(n.text, 10, 32)
				if err != nil {
					return nil, semErr(n.pos, "List index is not within the allowable range; index: [%s]", n.text)
				}
				step = Step{Index: int(i)}
			default:
				return nil, syntaxErr(n.pos, msgTerm)
			}
			if err := p.expectPunct("]"); err != nil {
				return nil, err
			}
			path.Steps = append(path.Steps, step)
		default:
			return path, nil
		}
	}
}

// rhs parses the operand after an infix operator with fn, reporting a
// missing one as DynamoDB does.
func (p *parser) rhs(fn func() (Expr, error)) (Expr, error) {
	if p.peek().typ == tEOF {
		return nil, syntaxErr(p.peek().pos, msgMissingRight)
	}
	return fn()
}

// parseExpr:
//
//	expr := or
//	or   := and ('OR' and)*
func (p *parser) parseExpr() (Expr, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for isWord(p.peek(), "OR") {
		pos := p.next().pos
		right, err := p.rhs(p.parseAnd)
		if err != nil {
			return nil, err
		}
		left = &Binary{At: pos, Op: "OR", L: left, R: right}
	}
	return left, nil
}

// parseAnd:
//
//	and := not ('AND' not)*
func (p *parser) parseAnd() (Expr, error) {
	left, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for isWord(p.peek(), "AND") {
		pos := p.next().pos
		right, err := p.rhs(p.parseNot)
		if err != nil {
			return nil, err
		}
		left = &Binary{At: pos, Op: "AND", L: left, R: right}
	}
	return left, nil
}

// parseNot:
//
//	not := 'NOT' not | predicate
func (p *parser) parseNot() (Expr, error) {
	if isWord(p.peek(), "NOT") {
		pos := p.next().pos
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &Not{At: pos, X: x}, nil
	}
	return p.parsePredicate()
}

// isComparator reports whether t is = <> != < <= > >=.
func isComparator(t token) bool {
	if t.typ != tPunct {
		return false
	}
	switch t.text {
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// parsePredicate:
//
//	predicate := additive [ comparator additive
//	                      | ['NOT'] 'BETWEEN' additive 'AND' additive
//	                      | ['NOT'] 'IN' ('[' list ']' | '(' list ')')
//	                      | 'IS' ['NOT'] TYPE ]
func (p *parser) parsePredicate() (Expr, error) {
	x, err := p.parseAdditive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	negated := isWord(t, "NOT") && (isWord(p.peekAt(1), "BETWEEN") || isWord(p.peekAt(1), "IN"))
	if negated {
		p.next()
		t = p.peek()
	}
	switch {
	case isComparator(t):
		p.next()
		r, err := p.rhs(p.parseAdditive)
		if err != nil {
			return nil, err
		}
		return &Binary{At: t.pos, Op: t.text, L: x, R: r}, nil
	case isWord(t, "BETWEEN"):
		p.next()
		lo, err := p.rhs(p.parseAdditive)
		if err != nil {
			return nil, err
		}
		if err := p.expectWord("AND"); err != nil {
			return nil, err
		}
		hi, err := p.rhs(p.parseAdditive)
		if err != nil {
			return nil, err
		}
		return &Between{At: t.pos, X: x, Lo: lo, Hi: hi, Negated: negated}, nil
	case isWord(t, "IN"):
		p.next()
		closing := "]"
		if p.acceptPunct("(") {
			closing = ")"
		} else if err := p.expectPunct("["); err != nil {
			return nil, err
		}
		list, err := p.parseElems(closing)
		if err != nil {
			return nil, err
		}
		return &In{At: t.pos, X: x, List: list, Negated: negated}, nil
	case isWord(t, "IS"):
		p.next()
		is := &Is{At: t.pos, X: x, Negated: p.accept("NOT")}
		n := p.peek()
		if n.typ != tIdent || !isTypeName(n.text) {
			return nil, syntaxErr(n.pos, msgTypeName)
		}
		p.next()
		is.Type = strings.ToUpper(n.text)
		return is, nil
	}
	return x, nil
}

// typeNames are the words IS accepts after it.
var typeNames = map[string]bool{
	"MISSING": true, "NULL": true, "BOOLEAN": true, "BOOL": true, "STRING": true, "VARCHAR": true,
	"NUMERIC": true, "DECIMAL": true, "INT": true, "INTEGER": true, "FLOAT": true, "DOUBLE": true,
	"BLOB": true, "CLOB": true, "LIST": true, "STRUCT": true, "TUPLE": true, "BAG": true, "SEXP": true,
	"INT4": true, "INT8": true, "SMALLINT": true, "REAL": true, "TIMESTAMP": true, "SYMBOL": true,
}

func isTypeName(s string) bool { return typeNames[strings.ToUpper(s)] }

// parseAdditive:
//
//	additive := primary (('+' | '-') primary)*
func (p *parser) parseAdditive() (Expr, error) {
	left, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for t := p.peek(); isPunct(t, "+") || isPunct(t, "-"); t = p.peek() {
		p.next()
		right, err := p.rhs(p.parsePrimary)
		if err != nil {
			return nil, err
		}
		left = &Binary{At: t.pos, Op: t.text, L: left, R: right}
	}
	return left, nil
}

// parseElems parses a comma-separated list of expressions up to closing
// (an empty list is allowed here and refused where it matters).
//
//	list := [expr (',' expr)*]
func (p *parser) parseElems(closing string) ([]Expr, error) {
	var out []Expr
	if p.acceptPunct(closing) {
		return out, nil
	}
	for {
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.acceptPunct(closing) {
			return out, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// parsePrimary:
//
//	primary := '(' expr ')' | STRING | ['-'] NUMBER | '?' | 'TRUE' | 'FALSE'
//	         | 'NULL' | 'MISSING' | IDENT '(' list ')' | path
//	         | '{' [STRING ':' expr (',' STRING ':' expr)*] '}'
//	         | '[' list ']' | '<<' list '>>'
func (p *parser) parsePrimary() (Expr, error) {
	t := p.peek()
	switch {
	case isPunct(t, "("):
		p.next()
		e, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		return e, p.expectPunct(")")
	case t.typ == tString:
		p.next()
		return &Literal{At: t.pos, V: attr.String(t.text)}, nil
	case t.typ == tNumber:
		p.next()
		return &Literal{At: t.pos, V: attr.Value{T: attr.TypeN, S: t.text}}, nil
	case isPunct(t, "-") && p.peekAt(1).typ == tNumber:
		p.next()
		n := p.next()
		return &Literal{At: t.pos, V: attr.Value{T: attr.TypeN, S: "-" + n.text}}, nil
	case t.typ == tParam:
		p.next()
		p.params++
		return &Param{At: t.pos, N: p.params - 1}, nil
	case isWord(t, "TRUE"), isWord(t, "FALSE"):
		p.next()
		return &Literal{At: t.pos, V: attr.Bool(isWord(t, "TRUE"))}, nil
	case isWord(t, "NULL"):
		p.next()
		return &Literal{At: t.pos, V: attr.Null()}, nil
	case isWord(t, "MISSING"):
		p.next()
		return &Missing{At: t.pos}, nil
	case isPunct(t, "{"):
		return p.parseTuple()
	case isPunct(t, "["):
		p.next()
		elems, err := p.parseElems("]")
		return &List{At: t.pos, Elems: elems}, err
	case isPunct(t, "<<"):
		p.next()
		elems, err := p.parseElems(">>")
		return &Bag{At: t.pos, Elems: elems}, err
	case t.typ == tIdent && (!isKeyword(t) || isWord(t, "EXISTS")) && isPunct(p.peekAt(1), "("):
		// EXISTS(path) in an expression is a call, of a function DynamoDB
		// does not know (EXISTS(SELECT ...) is a statement of its own).
		p.next()
		p.next()
		args, err := p.parseElems(")")
		return &Call{At: t.pos, Name: strings.ToLower(t.text), Args: args}, err
	}
	return p.parsePath()
}

// parseTuple parses a {...} literal (see parsePrimary).
func (p *parser) parseTuple() (Expr, error) {
	tu := &Tuple{At: p.next().pos}
	if p.acceptPunct("}") {
		return tu, nil
	}
	for {
		k := p.peek()
		if k.typ != tString {
			return nil, p.unexpected()
		}
		p.next()
		if err := p.expectPunct(":"); err != nil {
			return nil, err
		}
		v, err := p.rhs(p.parseExpr)
		if err != nil {
			return nil, err
		}
		tu.Keys = append(tu.Keys, k.text)
		tu.Values = append(tu.Values, v)
		if p.acceptPunct("}") {
			return tu, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}
