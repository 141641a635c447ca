package partiql

import (
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
)

// The String methods render a statement in canonical form: upper-case
// keywords, every name double-quoted, strings single-quoted, single spaces
// and only the parentheses the tree needs. Parsing the canonical form again
// gives an equal tree, so String is a fixed point of Parse ∘ String.

// quoteIdent renders a name as a quoted identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString renders a string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (s *Select) String() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Star {
		b.WriteString("*")
	}
	for i, p := range s.Projection {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.String())
	}
	b.WriteString(" FROM " + quoteIdent(s.Table))
	if s.Index != "" {
		b.WriteString("." + quoteIdent(s.Index))
	}
	if s.Where != nil {
		b.WriteString(" WHERE " + s.Where.String())
	}
	for i, o := range s.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(o.Path.String())
		if o.Desc {
			b.WriteString(" DESC")
		}
	}
	return b.String()
}

func (s *Insert) String() string {
	return "INSERT INTO " + quoteIdent(s.Table) + " VALUE " + s.Value.String()
}

func (s *Update) String() string {
	var b strings.Builder
	if s.FromFirst {
		b.WriteString("FROM " + quoteIdent(s.Table))
		writeTail(&b, s.Where, nil)
	} else {
		b.WriteString("UPDATE " + quoteIdent(s.Table))
	}
	for _, a := range s.Actions {
		if a.Value == nil {
			b.WriteString(" REMOVE " + a.Target.String())
		} else {
			b.WriteString(" SET " + a.Target.String() + " = " + a.Value.String())
		}
	}
	if s.FromFirst {
		writeTail(&b, nil, s.Returning)
	} else {
		writeTail(&b, s.Where, s.Returning)
	}
	return b.String()
}

func (s *Delete) String() string {
	var b strings.Builder
	b.WriteString("DELETE FROM " + quoteIdent(s.Table))
	writeTail(&b, s.Where, s.Returning)
	return b.String()
}

func writeTail(b *strings.Builder, where Expr, r *Returning) {
	if where != nil {
		b.WriteString(" WHERE " + where.String())
	}
	if r != nil {
		b.WriteString(" RETURNING " + r.String())
	}
}

// String renders the clause after RETURNING: "ALL OLD *" and so on.
func (r *Returning) String() string {
	s := "ALL "
	if r.Modified {
		s = "MODIFIED "
	}
	if r.New {
		return s + "NEW *"
	}
	return s + "OLD *"
}

func (s *Exists) String() string { return "EXISTS(" + s.Select.String() + ")" }

func (e *Path) String() string { return e.render(quoteIdent) }

// render writes the path with each name as name renders it.
func (e *Path) render(name func(string) string) string {
	var b strings.Builder
	for i, s := range e.Steps {
		switch {
		case s.Index >= 0:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case i > 0:
			b.WriteString("." + name(s.Name))
		default:
			b.WriteString(name(s.Name))
		}
	}
	return b.String()
}

func (e *Literal) String() string {
	switch e.V.T {
	case attr.TypeS:
		return quoteString(e.V.S)
	case attr.TypeBOOL:
		if e.V.Bool {
			return "TRUE"
		}
		return "FALSE"
	case attr.TypeNULL:
		return "NULL"
	}
	return e.V.S // a number as written
}

func (e *Missing) String() string { return "MISSING" }
func (e *Param) String() string   { return "?" }

func (e *Tuple) String() string {
	parts := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		parts[i] = quoteString(k) + ": " + e.Values[i].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func joinExprs(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func (e *List) String() string { return "[" + joinExprs(e.Elems) + "]" }
func (e *Bag) String() string  { return "<<" + joinExprs(e.Elems) + ">>" }
func (e *Call) String() string { return e.Name + "(" + joinExprs(e.Args) + ")" }

// prec is how tightly an expression binds: OR < AND < NOT < predicates <
// + and - < everything else.
func prec(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		switch e.Op {
		case "OR":
			return 1
		case "AND":
			return 2
		case "+", "-":
			return 5
		}
		return 4
	case *Not:
		return 3
	case *Between, *In, *Is:
		return 4
	}
	return 6
}

// sub renders e, parenthesized when it binds looser than min.
func sub(e Expr, min int) string {
	if prec(e) < min {
		return "(" + e.String() + ")"
	}
	return e.String()
}

func (e *Binary) String() string {
	p := prec(e)
	// Left-associative: the right operand needs parentheses at equal precedence.
	// Comparisons do not chain, so both their operands bind tighter.
	left, right := p, p+1
	if p == 4 {
		left = 5
	}
	return sub(e.L, left) + " " + e.Op + " " + sub(e.R, right)
}

func (e *Not) String() string { return "NOT " + sub(e.X, 3) }

func not(negated bool) string {
	if negated {
		return "NOT "
	}
	return ""
}

func (e *Between) String() string {
	return sub(e.X, 5) + " " + not(e.Negated) + "BETWEEN " + sub(e.Lo, 5) + " AND " + sub(e.Hi, 5)
}

func (e *In) String() string {
	return sub(e.X, 5) + " " + not(e.Negated) + "IN [" + joinExprs(e.List) + "]"
}

func (e *Is) String() string {
	return sub(e.X, 5) + " IS " + not(e.Negated) + e.Type
}
