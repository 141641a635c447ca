package expressions

import "github.com/ddblocal/ddblocal/attr"

// template is the part of a compilation that depends only on the expression
// texts and ExpressionAttributeNames: every expression parsed, its names
// resolved and (for a projection) checked. Value placeholders are left
// unbound; bind copies the parts of the trees that hold them for each
// request. A template is never modified once built, so requests share it.
type template struct {
	update                          *Update
	condition, keyCondition, filter *Condition
	projection                      *Projection
	// values are the distinct value placeholders the expressions use.
	values []string
	// namesUnused is set when some ExpressionAttributeName is never used,
	// which is always an error.
	namesUnused bool
}

// prepare builds the template of in, which must have no legacy parameters
// and must have passed checkParameterMix. Its errors are those Compile
// would return only when no value placeholder is undefined; callers use
// Compile to get the exact error.
func prepare(in *Input) (*template, error) {
	r := &resolver{names: in.Names, unbound: true}
	t := &template{}
	var err error
	if in.UpdateExpression != nil {
		if t.update, err = resolveUpdate(*in.UpdateExpression, r); err != nil {
			return nil, err
		}
	}
	for _, c := range []struct {
		src *string
		k   kind
		dst **Condition
	}{
		{in.ConditionExpression, kindCondition, &t.condition},
		{in.KeyConditionExpression, kindKeyCondition, &t.keyCondition},
		{in.FilterExpression, kindFilter, &t.filter},
	} {
		if c.src == nil {
			continue
		}
		if *c.dst, err = resolveCondition(c.k, *c.src, r); err != nil {
			return nil, err
		}
	}
	if in.ProjectionExpression != nil {
		// A projection has no values, so it is compiled (and checked) once.
		if t.projection, err = compileProjection(*in.ProjectionExpression, r); err != nil {
			return nil, err
		}
	}
	for name := range r.usedValues {
		t.values = append(t.values, name)
	}
	t.namesUnused = len(r.usedNames) < len(r.names)
	return t, nil
}

// bind returns the compilation of the template with values, or false when
// the request would fail: a value undefined or unused, a name unused, or a
// check that depends on the values' types. The caller then compiles the
// request from scratch to get the exact error, so bind only has to be right
// about success.
func (t *template) bind(values map[string]attr.Value) (*Compiled, bool) {
	if t.namesUnused || len(values) != len(t.values) {
		return nil, false
	}
	for _, name := range t.values {
		if _, ok := values[name]; !ok {
			return nil, false
		}
	}
	out := &Compiled{Projection: t.projection}
	if t.update != nil {
		out.Update = t.update.bind(values)
		if checkUpdate(out.Update) != nil {
			return nil, false
		}
	}
	for _, c := range []struct {
		src *Condition
		k   kind
		dst **Condition
	}{
		{t.condition, kindCondition, &out.Condition},
		{t.keyCondition, kindKeyCondition, &out.KeyCondition},
		{t.filter, kindFilter, &out.Filter},
	} {
		if c.src == nil {
			continue
		}
		*c.dst = c.src.bind(values)
		if checkCondition(c.k, *c.dst) != nil {
			return nil, false
		}
	}
	return out, true
}

// hasValue reports whether a value placeholder occurs in o.
func (o *operand) hasValue() bool {
	if o.kind == opValue {
		return true
	}
	for _, a := range o.args {
		if a.hasValue() {
			return true
		}
	}
	return false
}

// bind returns o with its value placeholders set from values: o itself when
// it has none (paths are immutable once resolved), else a copy.
func (o *operand) bind(values map[string]attr.Value) *operand {
	if !o.hasValue() {
		return o
	}
	c := *o
	if o.kind == opValue {
		c.value = values[o.name]
		return &c
	}
	c.args = bindOperands(o.args, values)
	return &c
}

func bindOperands(ops []*operand, values map[string]attr.Value) []*operand {
	out := make([]*operand, len(ops))
	for i, a := range ops {
		out[i] = a.bind(values)
	}
	return out
}

// hasValue reports whether a value placeholder occurs in c.
func (c *Condition) hasValue() bool {
	for _, s := range c.sub {
		if s.hasValue() {
			return true
		}
	}
	for _, a := range c.args {
		if a.hasValue() {
			return true
		}
	}
	return false
}

// bind returns c with its value placeholders set from values, copying only
// the nodes that hold one.
func (c *Condition) bind(values map[string]attr.Value) *Condition {
	if !c.hasValue() {
		return c
	}
	out := *c
	if len(c.sub) > 0 {
		out.sub = make([]*Condition, len(c.sub))
		for i, s := range c.sub {
			out.sub[i] = s.bind(values)
		}
	}
	if len(c.args) > 0 {
		out.args = bindOperands(c.args, values)
	}
	return &out
}

// bind returns u with its value placeholders set from values. Targets are
// paths and shared; clauses are read-only and shared.
func (u *Update) bind(values map[string]attr.Value) *Update {
	out := *u
	out.actions = make([]action, len(u.actions))
	for i, a := range u.actions {
		if a.value != nil {
			a.value = a.value.bind(values)
		}
		out.actions[i] = a
	}
	return &out
}
