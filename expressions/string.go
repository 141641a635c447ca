package expressions

import "strings"

// String returns the condition in canonical form: single spaces, upper-case
// keywords, placeholders as written and only the parentheses the tree needs, so
// that parsing it again (with the same names and values) gives an equal tree.
func (c *Condition) String() string {
	var b strings.Builder
	c.write(&b)
	return b.String()
}

func (c *Condition) write(b *strings.Builder) {
	switch c.kind {
	case condAnd, condOr:
		word := " AND "
		if c.kind == condOr {
			word = " OR "
		}
		// The left child needs parentheses only when it binds looser; the right
		// child also when it is the same operator, since parsing is left-associative.
		writeSub(b, c.sub[0], c.kind == condAnd && c.sub[0].kind == condOr)
		b.WriteString(word)
		writeSub(b, c.sub[1], c.sub[1].kind == c.kind || (c.kind == condAnd && c.sub[1].kind == condOr))
	case condNot:
		b.WriteString("NOT ")
		writeSub(b, c.sub[0], c.sub[0].kind == condAnd || c.sub[0].kind == condOr)
	case condCompare:
		c.args[0].write(b)
		b.WriteString(" " + c.op + " ")
		c.args[1].write(b)
	case condBetween:
		c.args[0].write(b)
		b.WriteString(" BETWEEN ")
		c.args[1].write(b)
		b.WriteString(" AND ")
		c.args[2].write(b)
	case condIn:
		c.args[0].write(b)
		b.WriteString(" IN (")
		writeArgs(b, c.args[1:])
		b.WriteString(")")
	case condFunc:
		b.WriteString(c.op + "(")
		writeArgs(b, c.args)
		b.WriteString(")")
	}
}

func writeSub(b *strings.Builder, c *Condition, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	c.write(b)
	if paren {
		b.WriteByte(')')
	}
}

func writeArgs(b *strings.Builder, args []*operand) {
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.write(b)
	}
}

// write renders an operand as written. Legacy literals have no placeholder name;
// they are rendered by their position-free stand-in ":legacy" (not parseable
// without a matching value, which is acceptable: only expressions are cached by text).
func (o *operand) write(b *strings.Builder) {
	switch o.kind {
	case opPath:
		for i, r := range o.raw {
			if i > 0 && r[0] != '[' {
				b.WriteByte('.')
			}
			b.WriteString(r)
		}
	case opValue:
		if o.name == "" {
			b.WriteString(":legacy")
		} else {
			b.WriteString(o.name)
		}
	case opFunc:
		b.WriteString(o.name + "(")
		writeArgs(b, o.args)
		b.WriteString(")")
	case opPlus, opMinus:
		o.args[0].write(b)
		b.WriteString(" " + o.name + " ")
		o.args[1].write(b)
	}
}

func (k actionKind) String() string {
	return [...]string{"SET", "REMOVE", "ADD", "DELETE"}[k]
}

// String returns the update in canonical form: clauses in the order written,
// each listing its actions, e.g. "SET a = :v, b = b + :n REMOVE c".
func (u *Update) String() string {
	var b strings.Builder
	for ci, ck := range u.clauses {
		if ci > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ck.String() + " ")
		n := 0
		for _, a := range u.actions {
			if a.kind != ck {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			a.target.write(&b)
			switch a.kind {
			case actSet:
				b.WriteString(" = ")
				a.value.write(&b)
			case actAdd, actDelete:
				b.WriteByte(' ')
				a.value.write(&b)
			}
		}
	}
	return b.String()
}

// String returns the projection in canonical form: "a, b.c, d[1]".
func (p *Projection) String() string {
	var b strings.Builder
	writeArgs(&b, p.paths)
	return b.String()
}
