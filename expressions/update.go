package expressions

import (
	"bytes"
	"slices"
	"sort"

	"github.com/ddblocal/ddblocal/attr"
)

// DynamoDB's runtime update errors (no "Invalid UpdateExpression:" prefix).
const (
	msgNoSuchAttribute = "The provided expression refers to an attribute that does not exist in the item"
	msgWrongType       = "An operand in the update expression has an incorrect data type"
	msgTypeMismatch    = "Type mismatch for attribute to update"
	msgInvalidPath     = "The document path provided in the update expression is invalid for update"
)

func runtimeErr(msg string) *Error { return &Error{Msg: msg, Pos: -1} }

// Paths returns the document paths the update writes, in the order written (for
// ReturnValues UPDATED_OLD / UPDATED_NEW).
func (u *Update) Paths() []Path {
	out := make([]Path, len(u.actions))
	for i, a := range u.actions {
		out[i] = a.target.path
	}
	return out
}

// TopLevelNames returns the distinct top-level attributes any action touches, in
// the order written (callers reject updates of key attributes with it).
func (u *Update) TopLevelNames() []string {
	var names []string
	for _, a := range u.actions {
		names = appendUnique(names, a.target.path[0].Name)
	}
	return names
}

// Apply returns the item that results from applying the update to old (nil when
// the item does not exist yet). It is pure: old and everything it references
// are never modified; unchanged nested values are shared with old. Every
// right-hand side is computed from old, as DynamoDB does. The error is an
// *Error with DynamoDB's runtime message when the item's contents do not fit
// the update (missing operand, wrong type, invalid path, number overflow).
func (u *Update) Apply(old attr.Item) (attr.Item, error) {
	values := make([]attr.Value, len(u.actions))
	for i, a := range u.actions {
		if a.kind != actSet {
			continue
		}
		v, err := a.value.evalUpdate(old)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	item := make(attr.Item, len(old)+len(u.actions))
	for k, v := range old {
		item[k] = v
	}
	var removes []Path
	for i, a := range u.actions {
		var err error
		switch a.kind {
		case actSet:
			err = setPath(item, a.target.path, values[i])
		case actRemove:
			removes = append(removes, a.target.path)
		case actAdd:
			err = addPath(item, a.target.path, a.value.value, a.legacyList)
		case actDelete:
			err = deletePath(item, a.target.path, a.value.value)
		}
		if err != nil {
			if e, ok := err.(*Error); ok && u.legacy && e.Msg == msgWrongType {
				// AttributeUpdates words an ADD or DELETE of the wrong type its own way.
				return nil, runtimeErr(msgTypeMismatch)
			}
			return nil, err
		}
	}
	// Indexes in REMOVE refer to the list as it was; removing the highest index
	// first keeps the others valid.
	sort.SliceStable(removes, func(i, j int) bool { return pathAfter(removes[i], removes[j]) })
	for _, p := range removes {
		if err := removePath(item, p); err != nil {
			return nil, err
		}
	}
	return item, nil
}

// pathAfter orders paths so that, within one list, higher indexes come first.
func pathAfter(a, b Path) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x.Index >= 0 && y.Index >= 0 {
			return x.Index > y.Index
		}
		return x.Name < y.Name
	}
	return len(a) > len(b)
}

// evalPair evaluates o's two arguments (of +, - or list_append).
func (o *operand) evalPair(old attr.Item) (a, b attr.Value, err error) {
	if a, err = o.args[0].evalUpdate(old); err != nil {
		return a, b, err
	}
	b, err = o.args[1].evalUpdate(old)
	return a, b, err
}

// evalUpdate computes the right-hand side of a SET action against the old item.
func (o *operand) evalUpdate(old attr.Item) (attr.Value, error) {
	switch o.kind {
	case opPath:
		v, ok := lookup(old, o.path)
		if !ok {
			return attr.Value{}, runtimeErr(msgNoSuchAttribute)
		}
		return v, nil
	case opValue:
		return o.value, nil
	case opPlus, opMinus:
		a, b, err := o.evalPair(old)
		if err != nil {
			return attr.Value{}, err
		}
		if a.T != attr.TypeN || b.T != attr.TypeN {
			return attr.Value{}, runtimeErr(msgWrongType)
		}
		return arithmetic(a.S, b.S, o.kind == opMinus)
	case opFunc:
		if o.name == "if_not_exists" {
			if v, ok := lookup(old, o.args[0].path); ok {
				return v, nil
			}
			return o.args[1].evalUpdate(old)
		}
		// list_append
		a, b, err := o.evalPair(old)
		if err != nil {
			return attr.Value{}, err
		}
		if a.T != attr.TypeL || b.T != attr.TypeL {
			return attr.Value{}, runtimeErr(msgWrongType)
		}
		l := make([]attr.Value, 0, len(a.L)+len(b.L))
		return attr.List(append(append(l, a.L...), b.L...)), nil
	}
	return attr.Value{}, runtimeErr(msgWrongType)
}

func arithmetic(a, b string, subtract bool) (attr.Value, error) {
	var s string
	var err error
	if subtract {
		s, err = attr.SubtractNumbers(a, b)
	} else {
		s, err = attr.AddNumbers(a, b)
	}
	if err != nil {
		return attr.Value{}, &Error{Msg: err.Error(), Pos: -1}
	}
	return attr.Value{T: attr.TypeN, S: s}, nil
}

// setIn returns a copy of cur with the value at p (relative to cur) set to v,
// copying only the containers along p. An index past the end of a list appends.
func setIn(cur attr.Value, p Path, v attr.Value) (attr.Value, error) {
	e := p[0]
	if e.Index >= 0 {
		if cur.T != attr.TypeL {
			return attr.Value{}, runtimeErr(msgInvalidPath)
		}
		l := append(make([]attr.Value, 0, len(cur.L)+1), cur.L...)
		if e.Index >= len(l) {
			if len(p) > 1 {
				return attr.Value{}, runtimeErr(msgInvalidPath)
			}
			return attr.List(append(l, v)), nil
		}
		if len(p) > 1 {
			var err error
			if v, err = setIn(l[e.Index], p[1:], v); err != nil {
				return attr.Value{}, err
			}
		}
		l[e.Index] = v
		return attr.List(l), nil
	}
	if cur.T != attr.TypeM {
		return attr.Value{}, runtimeErr(msgInvalidPath)
	}
	m := make(map[string]attr.Value, len(cur.M)+1)
	for k, x := range cur.M {
		m[k] = x
	}
	if len(p) > 1 {
		child, ok := m[e.Name]
		if !ok {
			return attr.Value{}, runtimeErr(msgInvalidPath)
		}
		var err error
		if v, err = setIn(child, p[1:], v); err != nil {
			return attr.Value{}, err
		}
	}
	m[e.Name] = v
	return attr.Map(m), nil
}

// setPath sets the value at p in item (whose top level is already a private copy).
func setPath(item attr.Item, p Path, v attr.Value) error {
	name := p[0].Name
	if len(p) == 1 {
		item[name] = v
		return nil
	}
	child, ok := item[name]
	if !ok {
		return runtimeErr(msgInvalidPath)
	}
	nv, err := setIn(child, p[1:], v)
	if err != nil {
		return err
	}
	item[name] = nv
	return nil
}

// removeIn returns a copy of cur without the element at p. A missing final
// element is not an error; a missing or mistyped container on the way is.
func removeIn(cur attr.Value, p Path) (attr.Value, error) {
	e := p[0]
	if e.Index >= 0 {
		if cur.T != attr.TypeL {
			return attr.Value{}, runtimeErr(msgInvalidPath)
		}
		if e.Index >= len(cur.L) {
			if len(p) > 1 {
				return attr.Value{}, runtimeErr(msgInvalidPath)
			}
			return cur, nil
		}
		l := append(make([]attr.Value, 0, len(cur.L)), cur.L...)
		if len(p) == 1 {
			return attr.List(append(l[:e.Index], l[e.Index+1:]...)), nil
		}
		v, err := removeIn(l[e.Index], p[1:])
		if err != nil {
			return attr.Value{}, err
		}
		l[e.Index] = v
		return attr.List(l), nil
	}
	if cur.T != attr.TypeM {
		return attr.Value{}, runtimeErr(msgInvalidPath)
	}
	child, ok := cur.M[e.Name]
	if !ok {
		if len(p) > 1 {
			return attr.Value{}, runtimeErr(msgInvalidPath)
		}
		return cur, nil
	}
	m := make(map[string]attr.Value, len(cur.M))
	for k, x := range cur.M {
		m[k] = x
	}
	if len(p) == 1 {
		delete(m, e.Name)
		return attr.Map(m), nil
	}
	v, err := removeIn(child, p[1:])
	if err != nil {
		return attr.Value{}, err
	}
	m[e.Name] = v
	return attr.Map(m), nil
}

func removePath(item attr.Item, p Path) error {
	name := p[0].Name
	child, ok := item[name]
	if len(p) == 1 || !ok {
		if !ok && len(p) > 1 {
			return runtimeErr(msgInvalidPath)
		}
		delete(item, name)
		return nil
	}
	nv, err := removeIn(child, p[1:])
	if err != nil {
		return err
	}
	item[name] = nv
	return nil
}

// addPath is the ADD action: numbers are summed, sets united, and a missing
// attribute takes the operand's value. A legacy list ADD appends.
func addPath(item attr.Item, p Path, v attr.Value, legacyList bool) error {
	cur, ok := lookup(item, p)
	if !ok {
		return setPath(item, p, v)
	}
	if cur.T != v.T {
		return runtimeErr(msgWrongType)
	}
	var nv attr.Value
	switch v.T {
	case attr.TypeN:
		var err error
		if nv, err = arithmetic(cur.S, v.S, false); err != nil {
			return err
		}
	case attr.TypeSS, attr.TypeNS:
		ss := append([]string(nil), cur.SS...)
		for _, s := range v.SS {
			if !hasString(cur.SS, s) {
				ss = append(ss, s)
			}
		}
		nv = attr.Value{T: v.T, SS: ss}
		attr.SortSet(nv)
	case attr.TypeBS:
		bs := append([][]byte(nil), cur.BS...)
		for _, b := range v.BS {
			if !hasBytes(cur.BS, b) {
				bs = append(bs, b)
			}
		}
		nv = attr.Value{T: v.T, BS: bs}
		attr.SortSet(nv)
	case attr.TypeL:
		if !legacyList {
			return runtimeErr(msgWrongType)
		}
		nv = attr.List(append(append([]attr.Value(nil), cur.L...), v.L...))
	default:
		return runtimeErr(msgWrongType)
	}
	return setPath(item, p, nv)
}

// deletePath is the DELETE action: set difference; a set left empty is removed,
// since DynamoDB has no empty sets. A missing attribute is left alone.
func deletePath(item attr.Item, p Path, v attr.Value) error {
	cur, ok := lookup(item, p)
	if !ok {
		if !parentFits(item, p) {
			return runtimeErr(msgInvalidPath)
		}
		return nil
	}
	if cur.T != v.T {
		return runtimeErr(msgWrongType)
	}
	nv := attr.Value{T: v.T}
	switch v.T {
	case attr.TypeSS, attr.TypeNS:
		for _, s := range cur.SS {
			if !hasString(v.SS, s) {
				nv.SS = append(nv.SS, s)
			}
		}
		if len(nv.SS) == 0 {
			return removePath(item, p)
		}
	case attr.TypeBS:
		for _, b := range cur.BS {
			if !hasBytes(v.BS, b) {
				nv.BS = append(nv.BS, b)
			}
		}
		if len(nv.BS) == 0 {
			return removePath(item, p)
		}
	default:
		return runtimeErr(msgWrongType)
	}
	return setPath(item, p, nv)
}

// parentFits reports whether the document holding p's last element is in
// item and of the kind that element needs (a map for a name, a list for an
// index). DELETE, like REMOVE, may name an element that is not there, but
// not one inside a document that is not (architect/dynalite's suite:
// "delete y.a :a" on an item without y is an invalid document path).
func parentFits(item attr.Item, p Path) bool {
	if len(p) == 1 {
		return true
	}
	parent, ok := lookup(item, p[:len(p)-1])
	if !ok {
		return false
	}
	if p[len(p)-1].Index >= 0 {
		return parent.T == attr.TypeL
	}
	return parent.T == attr.TypeM
}

// hasString reports membership; NS members are canonical, so text equality is
// numeric equality.
func hasString(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

func hasBytes(set [][]byte, b []byte) bool {
	for _, x := range set {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}

// CreatesItem reports whether applying u to a missing item creates it. An
// update made only of removals (REMOVE, DELETE, AttributeUpdates DELETE)
// does not: the API reference says of AttributeUpdates DELETE "Nothing
// happens; there is no attribute to delete", and the service does the same
// for the expression clauses. An update with no action at all does create
// the key-only item.
func (u *Update) CreatesItem() bool {
	for _, a := range u.actions {
		if a.kind != actRemove && a.kind != actDelete {
			return true
		}
	}
	return len(u.actions) == 0
}

// Byte costs of an update's actions in UpdateItem's statement-sized limit
// (see WriteCost).
const (
	updateBaseCost   = 3
	updateSetCost    = 19 // SET or ADD
	updateIndexCost  = 1  // more, for a SET through a list index
	updateRemoveCost = 2  // REMOVE or DELETE
)

// WriteCost returns what DynamoDB's standalone UpdateItem charges u against
// the 400 KB limit besides the finished item: the top-level attributes it
// writes (whose finished name and value count) and the fixed cost of its
// actions, 3 bytes for the update, 19 per SET or ADD (20 through a list
// index), 2 per REMOVE or DELETE, as a public conformance suite measured
// the service (its "Item size limit by surface" tests: 31 of 33 Regions
// in its registry's refresh of 2026-10-07; eu-south-2 and me-central-1
// size only the finished item). A top-level REMOVE writes no
// attribute; a DELETE, or a REMOVE inside a document, rewrites its
// attribute, which is counted (the suite did not measure those two).
func (u *Update) WriteCost() (written []string, cost int) {
	cost = updateBaseCost
	for _, a := range u.actions {
		p := a.target.path
		switch a.kind {
		case actSet, actAdd:
			cost += updateSetCost
			if a.kind == actSet && slices.ContainsFunc(p, func(e PathElem) bool { return e.Index >= 0 }) {
				cost += updateIndexCost
			}
		case actRemove, actDelete:
			cost += updateRemoveCost
			if a.kind == actRemove && len(p) == 1 {
				continue
			}
		}
		written = appendUnique(written, p[0].Name)
	}
	return written, cost
}
