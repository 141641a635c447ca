package partiql

import (
	"context"
	"errors"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// writeKind is the operation a write statement compiles to.
type writeKind uint8

const (
	writePut    writeKind = iota // INSERT
	writeUpdate                  // UPDATE
	writeDelete                  // DELETE
	writeCheck                   // EXISTS(...)
)

// writePlan is a write statement compiled to one item operation: its key
// (or item), update and condition expressions with their placeholders, and
// return-value choices. INSERT is a put on the condition that the key is
// new; UPDATE an update on the condition that it exists (PartiQL never
// creates an item by UPDATE) and its WHERE holds; DELETE a delete on the
// condition that the item is absent (a no-op) or its WHERE holds; EXISTS a
// condition check that the item exists and its WHERE holds.
type writePlan struct {
	kind      writeKind
	table     string
	item      attr.Item // writePut
	key       attr.Item // the others
	update    *string
	cond      *string
	names     map[string]string
	values    map[string]attr.Value
	rv        string // ReturnValues
	rvccf     string // ReturnValuesOnConditionCheckFailure
	returning bool   // a RETURNING clause: the attributes are the statement's items
}

// planWrite compiles a prepared INSERT, UPDATE, DELETE or EXISTS.
func planWrite(p *prepared, rvccf string) (*writePlan, error) {
	b := newBuilder(p.bind)
	w := &writePlan{table: p.schema.table, rvccf: rvccf}
	pk := b.name(p.schema.key.part[0])
	var cond string
	var err error
	switch st := p.stmt.(type) {
	case *Insert:
		w.kind, cond = writePut, "attribute_not_exists("+pk+")"
		if w.item, err = insertItem(st, p.bind); err != nil {
			return nil, err
		}
	case *Update:
		w.kind = writeUpdate
		cond, err = w.planUpdate(st, p.schema.key, b, pk)
	case *Delete:
		w.kind = writeDelete
		cond, err = w.planDelete(st, p.schema.key, b, pk)
	case *Exists:
		w.kind = writeCheck
		cond, err = w.planExists(st, p.schema.key, b, pk)
	}
	if err != nil {
		return nil, err
	}
	w.cond, w.names, w.values = &cond, b.names, b.values
	return w, nil
}

// insertItem evaluates an INSERT's VALUE, which must be a map.
func insertItem(st *Insert, bind *binder) (attr.Item, error) {
	switch st.Value.(type) {
	case *Tuple, *Param:
	default:
		return nil, semErr(st.Value.Pos(), "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.")
	}
	v, err := bind.value(st.Value, itemAt)
	if err != nil {
		return nil, err
	}
	if v.T != attr.TypeM {
		return nil, semErr(st.Value.Pos(), "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement.")
	}
	return attr.Item(v.M), nil
}

// writeKey takes the whole primary key from a write's WHERE: one equality
// per key attribute. The other conjuncts are returned as the condition.
func writeKey(where Expr, k keys, bind *binder) (attr.Item, []Expr, error) {
	cs := splitAnd(where)
	used := make([]bool, len(cs))
	key := attr.Item{}
	for _, name := range k.all() {
		n := 0
		for i, c := range cs {
			v, ok := equality(c, name)
			if !ok {
				continue
			}
			if n++; n > 1 {
				return nil, nil, semErr(c.Pos(), "Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported", name)
			}
			val, err := bind.value(v, "root")
			if err != nil {
				return nil, nil, err
			}
			key[name], used[i] = val, true
		}
		if n == 0 {
			return nil, nil, semErr(-1, msgIncompleteKey)
		}
	}
	var rest []Expr
	for i, c := range cs {
		if !used[i] {
			rest = append(rest, c)
		}
	}
	return key, rest, nil
}

// returnValues maps a RETURNING clause to UpdateItem's ReturnValues.
func returnValues(r *Returning) string {
	switch {
	case r == nil:
		return ""
	case r.Modified && r.New:
		return "UPDATED_NEW"
	case r.Modified:
		return "UPDATED_OLD"
	case r.New:
		return "ALL_NEW"
	}
	return "ALL_OLD"
}

func (w *writePlan) planUpdate(st *Update, k keys, b *builder, pk string) (string, error) {
	key, rest, err := writeKey(st.Where, k, b.bind)
	if err != nil {
		return "", err
	}
	upd, err := b.update(st.Actions)
	if err != nil {
		return "", err
	}
	w.key, w.update, w.rv, w.returning = key, &upd, returnValues(st.Returning), st.Returning != nil
	cond := "attribute_exists(" + pk + ")"
	if len(rest) > 0 {
		c, err := b.conjunction(rest)
		if err != nil {
			return "", err
		}
		cond += " AND " + c
	}
	return cond, nil
}

func (w *writePlan) planDelete(st *Delete, k keys, b *builder, pk string) (string, error) {
	if r := st.Returning; r != nil && (r.Modified || r.New) {
		return "", semErr(r.At, "Invalid returning clause: RETURNING %s. Only RETURNING ALL OLD * is allowed in DELETE statements.", r.String())
	}
	key, rest, err := writeKey(st.Where, k, b.bind)
	if err != nil {
		return "", err
	}
	w.key, w.rv, w.returning = key, returnValues(st.Returning), st.Returning != nil
	if len(rest) == 0 {
		return "", nil
	}
	c, err := b.conjunction(rest)
	if err != nil {
		return "", err
	}
	return "attribute_not_exists(" + pk + ") OR " + c, nil
}

func (w *writePlan) planExists(st *Exists, k keys, b *builder, pk string) (string, error) {
	if st.Select.Index != "" {
		return "", semErr(st.At, "Operations on indices are not supported in transactions")
	}
	key, rest, err := writeKey(st.Select.Where, k, b.bind)
	if err != nil || len(rest) == 0 {
		return "", semErr(st.At, "EXISTS() must contain a single item read with additional condition")
	}
	c, err := b.conjunction(rest)
	if err != nil {
		return "", err
	}
	w.key = key
	return "attribute_exists(" + pk + ") AND " + c, nil
}

// update renders SET and REMOVE actions as an UpdateExpression:
// set_add(path, set) and set_delete(path, set) become ADD and DELETE.
func (b *builder) update(actions []Action) (string, error) {
	clauses := map[string][]string{}
	for _, a := range actions {
		target := b.path(a.Target)
		if a.Value == nil {
			clauses["REMOVE"] = append(clauses["REMOVE"], target)
			continue
		}
		if c, ok := a.Value.(*Call); ok && (c.Name == "set_add" || c.Name == "set_delete") {
			v, err := b.setArg(a.Target, c)
			if err != nil {
				return "", err
			}
			verb := "ADD"
			if c.Name == "set_delete" {
				verb = "DELETE"
			}
			clauses[verb] = append(clauses[verb], target+" "+v)
			continue
		}
		v, err := b.setValue(a.Value)
		if err != nil {
			return "", err
		}
		clauses["SET"] = append(clauses["SET"], target+" = "+v)
	}
	var out []string
	for _, verb := range []string{"SET", "REMOVE", "ADD", "DELETE"} {
		if len(clauses[verb]) > 0 {
			out = append(out, verb+" "+strings.Join(clauses[verb], ", "))
		}
	}
	return strings.Join(out, " "), nil
}

// setArg checks set_add(target, set) or set_delete(target, set) and
// returns the set's placeholder. The messages point where DynamoDB's do:
// at the function's name, or (for a second argument that is no set) at
// the first argument.
func (b *builder) setArg(target *Path, c *Call) (string, error) {
	name := strings.ToUpper(strings.TrimPrefix(c.Name, "set_"))
	fnLen := len(c.Name)
	if len(c.Args) != 2 {
		return "", locErr(c.At, fnLen, "SET_%s must have exactly two arguments", name)
	}
	first, ok := c.Args[0].(*Path)
	if !ok || first.String() != target.String() {
		return "", locErr(c.At, fnLen, "The first argument to SET_%s must equal the assignment value", name)
	}
	notSet := locErr(first.At, -1, "The second argument to SET_%s must be a value with type SET", name)
	if !isConstant(c.Args[1]) {
		return "", notSet
	}
	v, err := b.bind.value(c.Args[1], "root")
	if err != nil {
		return "", err
	}
	if v.T != attr.TypeSS && v.T != attr.TypeNS && v.T != attr.TypeBS {
		return "", notSet
	}
	if err := v.Validate(); err != nil {
		var ae *attr.Error
		if errors.As(err, &ae) {
			return "", semErr(c.Args[1].Pos(), "%s", ae.Msg)
		}
		return "", err
	}
	return b.value(v), nil
}

// setValue renders the value of a SET action.
func (b *builder) setValue(e Expr) (string, error) {
	switch e := e.(type) {
	case *Path:
		return b.path(e), nil
	case *Binary:
		if e.Op != "+" && e.Op != "-" {
			return "", semErr(e.At, "Unsupported operator in Update Expression. Operator: %s", e.Op)
		}
		l, err := b.setValue(e.L)
		if err != nil {
			return "", err
		}
		r, err := b.setValue(e.R)
		if err != nil {
			return "", err
		}
		return l + " " + e.Op + " " + r, nil
	case *Call:
		if e.Name != "list_append" && e.Name != "if_not_exists" {
			return "", unrecognized(e)
		}
		if len(e.Args) == 0 {
			return "", noOperands(e.At, e.Name)
		}
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			s, err := b.setValue(a)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return e.Name + "(" + strings.Join(parts, ", ") + ")", nil
	case *Missing:
		return "", semErr(e.At, "MISSING must be compared using IS operator")
	}
	if !isConstant(e) {
		return "", semErr(e.Pos(), "Unsupported operator in Update Expression. Operator: %s", e.String())
	}
	v, err := b.bind.value(e, "root")
	if err != nil {
		return "", err
	}
	return b.value(v), nil
}

// runWrite runs a write plan as its single-item operation.
func (s *Service) runWrite(ctx context.Context, region string, w *writePlan, rcc string) (*ddb.WriteOutput, error) {
	var cond *string
	if w.cond != nil && *w.cond != "" {
		cond = w.cond
	}
	var out *ddb.WriteOutput
	var err error
	switch w.kind {
	case writePut:
		in := &ddb.PutItemInput{TableName: w.table, Item: w.item}
		in.ConditionExpression, in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure = cond, rcc, w.rvccf
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = w.names, w.values
		out, err = s.tables.PutItem(ctx, region, in)
		if isCode(err, ddb.ConditionalCheckFailedException) {
			return nil, ddb.Errorf(DuplicateItemException, msgDuplicate)
		}
	case writeUpdate:
		// PartiQL's UPDATE is sized by the finished item, not by what it
		// writes (see ddb.UpdateItemInput.FinishedSizeOnly).
		in := &ddb.UpdateItemInput{TableName: w.table, Key: w.key, UpdateExpression: w.update, FinishedSizeOnly: true}
		in.ConditionExpression, in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure = cond, rcc, w.rvccf
		in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues = w.names, w.values, w.rv
		out, err = s.tables.UpdateItem(ctx, region, in)
	case writeDelete:
		in := &ddb.DeleteItemInput{TableName: w.table, Key: w.key}
		in.ConditionExpression, in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure = cond, rcc, w.rvccf
		in.ExpressionAttributeNames, in.ExpressionAttributeValues, in.ReturnValues = w.names, w.values, w.rv
		if cond == nil {
			in.ExpressionAttributeNames, in.ExpressionAttributeValues = nil, nil
		}
		out, err = s.tables.DeleteItem(ctx, region, in)
	}
	return out, err
}
