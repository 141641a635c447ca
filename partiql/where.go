package partiql

import "strings"

// splitAnd returns the conjuncts of e: the operands of its top-level ANDs.
// A one-value IN is returned as the equality it is, so that it can name a key.
func splitAnd(e Expr) []Expr {
	if e == nil {
		return nil
	}
	switch x := e.(type) {
	case *Binary:
		if x.Op == "AND" {
			return append(splitAnd(x.L), splitAnd(x.R)...)
		}
	case *In:
		if !x.Negated && len(x.List) == 1 && isConstant(x.List[0]) {
			if _, ok := topName(x.X); ok {
				return []Expr{&Binary{At: x.At, Op: "=", L: x.X, R: x.List[0]}}
			}
		}
	}
	return []Expr{e}
}

// topName returns the attribute a one-step path names.
func topName(e Expr) (string, bool) {
	p, ok := e.(*Path)
	if !ok || len(p.Steps) != 1 {
		return "", false
	}
	return p.Steps[0].Name, true
}

// equality returns the constant c fixes attribute name to (name = v or v = name).
func equality(c Expr, name string) (Expr, bool) {
	b, ok := c.(*Binary)
	if !ok || b.Op != "=" {
		return nil, false
	}
	if n, ok := topName(b.L); ok && n == name && isConstant(b.R) {
		return b.R, true
	}
	if n, ok := topName(b.R); ok && n == name && isConstant(b.L) {
		return b.L, true
	}
	return nil, false
}

// membership returns the constants of name IN [...].
func membership(c Expr, name string) ([]Expr, bool) {
	in, ok := c.(*In)
	if !ok || in.Negated || len(in.List) == 0 {
		return nil, false
	}
	if n, ok := topName(in.X); !ok || n != name {
		return nil, false
	}
	for _, e := range in.List {
		if !isConstant(e) {
			return nil, false
		}
	}
	return in.List, true
}

// flipped is each comparator seen from its right-hand side.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// sortCondition reports whether c can be a Query's sort key condition on
// name: a comparison with a constant, BETWEEN constants, or begins_with.
// It returns c rewritten with the key on the left.
func sortCondition(c Expr, name string) (Expr, bool) {
	switch c := c.(type) {
	case *Binary:
		op, ok := flipped[c.Op]
		if !ok {
			return nil, false
		}
		if n, ok := topName(c.L); ok && n == name && isConstant(c.R) {
			return c, true
		}
		if n, ok := topName(c.R); ok && n == name && isConstant(c.L) {
			return &Binary{At: c.At, Op: op, L: c.R, R: c.L}, true
		}
	case *Between:
		n, ok := topName(c.X)
		return c, ok && n == name && !c.Negated && isConstant(c.Lo) && isConstant(c.Hi)
	case *Call:
		if c.Name != "begins_with" || len(c.Args) != 2 {
			return nil, false
		}
		n, ok := topName(c.Args[0])
		return c, ok && n == name && isConstant(c.Args[1])
	}
	return nil, false
}

// mentions reports whether e reads any of the attributes names at top level.
func mentions(e Expr, names []string) bool {
	found := false
	walk(e, func(x Expr) {
		if p, ok := x.(*Path); ok {
			for _, n := range names {
				if p.Steps[0].Name == n {
					found = true
				}
			}
		}
	})
	return found
}

// walk calls fn on e and every expression below it.
func walk(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	var subs []Expr
	switch e := e.(type) {
	case *Binary:
		subs = []Expr{e.L, e.R}
	case *Not:
		subs = []Expr{e.X}
	case *Between:
		subs = []Expr{e.X, e.Lo, e.Hi}
	case *In:
		subs = append([]Expr{e.X}, e.List...)
	case *Is:
		subs = []Expr{e.X}
	case *Call:
		subs = e.Args
	case *Tuple:
		subs = e.Values
	case *List:
		subs = e.Elems
	case *Bag:
		subs = e.Elems
	}
	for _, s := range subs {
		walk(s, fn)
	}
}

// conjunction renders conjuncts joined by AND, each a condition.
func (b *builder) conjunction(cs []Expr) (string, error) {
	parts := make([]string, len(cs))
	for i, c := range cs {
		s, err := b.cond(c)
		if err != nil {
			return "", err
		}
		parts[i] = wrapIf(s, isOr(c))
	}
	return strings.Join(parts, " AND "), nil
}
