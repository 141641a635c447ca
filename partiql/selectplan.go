package partiql

import (
	"sort"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// readPlan is how a SELECT runs, decided as DynamoDB decides it: a WHERE
// that fixes the whole primary key of the table with nothing else is a
// GetItem; one that fixes the partition key (by equality, or by IN for
// several partitions, one Query each) is a Query, with a sort key
// condition when there is one; anything else is a Scan. Exactly one of
// get, queries and scan is set.
type readPlan struct {
	get     *ddb.GetItemInput
	queries []*ddb.QueryInput
	scan    *ddb.ScanInput
}

// selectKeys is a SELECT's WHERE split by role.
type selectKeys struct {
	part     [][]Expr // per partition attribute: the values it may take
	sort     Expr     // the sort key condition, or nil
	residual []Expr
}

// splitKeys finds the partition and sort key conditions among the
// conjuncts of where. part is nil unless every partition attribute is fixed.
func splitKeys(where Expr, k keys) selectKeys {
	cs := splitAnd(where)
	used := make([]bool, len(cs))
	var out selectKeys
	for _, name := range k.part {
		found := false
		for i, c := range cs {
			if used[i] {
				continue
			}
			if v, ok := equality(c, name); ok {
				out.part, used[i], found = append(out.part, []Expr{v}), true, true
				break
			}
			if vs, ok := membership(c, name); ok && len(k.part) == 1 {
				out.part, used[i], found = append(out.part, vs), true, true
				break
			}
		}
		if !found {
			return selectKeys{residual: cs}
		}
	}
	for i, c := range cs {
		if k.sort == "" || used[i] {
			continue
		}
		if sc, ok := sortCondition(c, k.sort); ok {
			out.sort, used[i] = sc, true
			break
		}
	}
	for i, c := range cs {
		if !used[i] {
			out.residual = append(out.residual, c)
		}
	}
	return out
}

// planSelect plans a SELECT on the table or index it names.
func planSelect(sel *Select, sc *schema, bind *binder, consistent *bool, rcc string) (*readPlan, error) {
	if err := sc.multiIndex(sel); err != nil {
		return nil, err
	}
	k, global := sc.key, false
	var index *string
	if sel.Index != "" {
		ix, ok := sc.indexes[sel.Index]
		if !ok {
			// Unlike Query's and Scan's, PartiQL's message does not name the index.
			return nil, semErr(sel.At, "The table does not have the specified index")
		}
		k, global, index = ix.keys, ix.global, &sel.Index
		if global && consistent != nil && *consistent {
			return nil, semErr(sel.At, "Strongly consistent read is not supported on Global Secondary Indexes")
		}
		if err := ix.checkProjected(sel); err != nil {
			return nil, err
		}
	}
	if len(sel.Projection) > 0 && sel.Star {
		return nil, semErr(sel.At, "Other attributes should not be present in the projection when '*' is used.")
	}
	sk := splitKeys(sel.Where, k)
	if sk.part != nil && mentions(andOf(sk.residual), k.all()) {
		// A Query filter cannot read key attributes; DynamoDB scans then.
		sk = selectKeys{residual: splitAnd(sel.Where)}
	}
	forward, err := checkOrder(sel, sk, k)
	if err != nil {
		return nil, err
	}
	if sk.part == nil {
		if plan, ok, err := planBranches(sel, sc, bind, index, k, consistent, rcc); ok || err != nil {
			return plan, err
		}
		return planScan(sel, sc, bind, index, consistent, rcc)
	}
	if isFullKey(sel, sk, k) && len(sk.residual) == 0 && len(sel.OrderBy) == 0 {
		get, err := planGet(sel, sc, bind, sk, consistent, rcc)
		return &readPlan{get: get}, err
	}
	return planQueries(sel, sc, bind, index, sk, k, forward, consistent, rcc)
}

func isEquality(e Expr) bool { b, ok := e.(*Binary); return ok && b.Op == "=" }

// isFullKey reports whether a SELECT on the table fixes one whole key.
func isFullKey(sel *Select, sk selectKeys, k keys) bool {
	return sel.Index == "" && len(sk.part) == 1 && len(sk.part[0]) == 1 && (k.sort == "" || isEquality(sk.sort))
}

// planKeyGet plans a SELECT that must read one item by its whole key and
// nothing else, as batches and transactions require; msg is their refusal.
func planKeyGet(sel *Select, sc *schema, bind *binder, consistent *bool, rcc, msg string) (*ddb.GetItemInput, error) {
	if err := sc.multiIndex(sel); err != nil {
		return nil, err
	}
	sk := splitKeys(sel.Where, sc.key)
	if !isFullKey(sel, sk, sc.key) || len(sk.residual) > 0 {
		return nil, semErr(sel.At, "%s", msg)
	}
	return planGet(sel, sc, bind, sk, consistent, rcc)
}

// andOf joins conjuncts back into one expression (nil for none).
func andOf(cs []Expr) Expr {
	var out Expr
	for _, c := range cs {
		if out == nil {
			out = c
		} else {
			out = &Binary{At: c.Pos(), Op: "AND", L: out, R: c}
		}
	}
	return out
}

// checkOrder validates ORDER BY and returns the Query direction.
func checkOrder(sel *Select, sk selectKeys, k keys) (forward bool, err error) {
	if len(sel.OrderBy) == 0 {
		return true, nil
	}
	if sel.Where == nil {
		return false, semErr(sel.At, "Must have WHERE clause in the statement when using ORDER BY clause.")
	}
	if sk.part == nil {
		return false, semErr(sel.At, "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.")
	}
	forward = true
	byPart := false
	for _, o := range sel.OrderBy {
		name, ok := topName(o.Path)
		if !ok || (name != k.sort && !contains(k.part, name)) {
			return false, semErr(o.Path.At, "Variable reference %s in ORDER BY clause must be part of the primary key", o.Path.Steps[0].Name)
		}
		if name == k.sort {
			forward = !o.Desc
		} else {
			byPart = true
		}
	}
	if len(sk.part[0]) > 1 && !byPart {
		return false, semErr(sel.At, "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.")
	}
	return forward, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// projection renders the SELECT list as a ProjectionExpression (nil for *).
func (b *builder) projection(sel *Select) *string {
	if len(sel.Projection) == 0 {
		return nil
	}
	parts := make([]string, len(sel.Projection))
	for i, p := range sel.Projection {
		parts[i] = b.path(p)
	}
	s := strings.Join(parts, ", ")
	return &s
}

// planScan plans a SELECT whose WHERE does not fix a partition.
func planScan(sel *Select, sc *schema, bind *binder, index *string, consistent *bool, rcc string) (*readPlan, error) {
	b := newBuilder(bind)
	in := &ddb.ScanInput{TableName: sc.table, IndexName: index, ConsistentRead: consistent, ReturnConsumedCapacity: rcc}
	in.ProjectionExpression = b.projection(sel)
	if sel.Where != nil {
		f, err := b.cond(sel.Where)
		if err != nil {
			return nil, err
		}
		in.FilterExpression = &f
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.names, b.values
	return &readPlan{scan: in}, nil
}

// fullKey evaluates the values of a WHERE's key equalities into a key.
func fullKey(sk selectKeys, k keys, bind *binder) (attr.Item, error) {
	key := attr.Item{}
	for i, name := range k.part {
		v, err := bind.value(sk.part[i][0], "root")
		if err != nil {
			return nil, err
		}
		key[name] = v
	}
	if k.sort != "" {
		v, err := bind.value(sk.sort.(*Binary).R, "root")
		if err != nil {
			return nil, err
		}
		key[k.sort] = v
	}
	return key, nil
}

// planGet plans a SELECT of one item by its whole key.
func planGet(sel *Select, sc *schema, bind *binder, sk selectKeys, consistent *bool, rcc string) (*ddb.GetItemInput, error) {
	key, err := fullKey(sk, sc.key, bind)
	if err != nil {
		return nil, err
	}
	b := newBuilder(bind)
	in := &ddb.GetItemInput{TableName: sc.table, Key: key, ConsistentRead: consistent, ReturnConsumedCapacity: rcc}
	in.ProjectionExpression = b.projection(sel)
	in.ExpressionAttributeNames = b.names
	return in, nil
}

// planQueries plans one Query per partition the WHERE allows.
func planQueries(sel *Select, sc *schema, bind *binder, index *string, sk selectKeys, k keys, forward bool, consistent *bool, rcc string) (*readPlan, error) {
	parts, err := partitions(sk, bind, sel.OrderBy, k)
	if err != nil {
		return nil, err
	}
	plan := &readPlan{}
	for _, pv := range parts {
		b := newBuilder(bind)
		conds := make([]string, 0, len(k.part)+1)
		for i, name := range k.part {
			conds = append(conds, b.name(name)+" = "+b.value(pv[i]))
		}
		if sk.sort != nil {
			s, err := b.cond(sk.sort)
			if err != nil {
				return nil, err
			}
			conds = append(conds, s)
		}
		kc := strings.Join(conds, " AND ")
		in := &ddb.QueryInput{TableName: sc.table, IndexName: index, ConsistentRead: consistent,
			ReturnConsumedCapacity: rcc, KeyConditionExpression: &kc, ScanIndexForward: &forward}
		in.ProjectionExpression = b.projection(sel)
		if len(sk.residual) > 0 {
			f, err := b.conjunction(sk.residual)
			if err != nil {
				return nil, err
			}
			in.FilterExpression = &f
		}
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.names, b.values
		plan.queries = append(plan.queries, in)
	}
	return plan, nil
}

// maxPartitions caps the Queries one SELECT decomposes into.
const maxPartitions = 50

// partitions evaluates the partition key values to query, one list of
// values (one per partition attribute) per Query. With ORDER BY on the
// partition key, partitions are read in that order.
func partitions(sk selectKeys, bind *binder, order []Order, k keys) ([][]attr.Value, error) {
	var out [][]attr.Value
	if len(sk.part) == 1 && len(sk.part[0]) > 1 {
		seen := map[string]bool{}
		for _, e := range sk.part[0] {
			v, err := bind.value(e, "root")
			if err != nil {
				return nil, err
			}
			id := valueID(v)
			if !seen[id] {
				seen[id] = true
				out = append(out, []attr.Value{v})
			}
		}
		if len(out) > maxPartitions {
			return nil, semErr(-1, "Too many decomposed read operations for a given query.")
		}
		sortPartitions(out, order, k)
		return out, nil
	}
	row := make([]attr.Value, len(sk.part))
	for i, vs := range sk.part {
		v, err := bind.value(vs[0], "root")
		if err != nil {
			return nil, err
		}
		row[i] = v
	}
	return [][]attr.Value{row}, nil
}

// sortPartitions orders partition values as ORDER BY on the partition key asks.
func sortPartitions(parts [][]attr.Value, order []Order, k keys) {
	for _, o := range order {
		if name, _ := topName(o.Path); name == k.part[0] {
			sort.SliceStable(parts, func(i, j int) bool {
				c := compareScalar(parts[i][0], parts[j][0])
				if o.Desc {
					return c > 0
				}
				return c < 0
			})
			return
		}
	}
}

// compareScalar orders key values: numbers numerically, strings and
// binaries by bytes; values of different types by type.
func compareScalar(a, b attr.Value) int {
	if a.T != b.T {
		return int(a.T) - int(b.T)
	}
	switch a.T {
	case attr.TypeN:
		return attr.CompareNumbers(a.S, b.S)
	case attr.TypeB:
		return strings.Compare(string(a.B), string(b.B))
	}
	return strings.Compare(a.S, b.S)
}

// splitOr returns the disjuncts of e: the operands of its top-level ORs.
func splitOr(e Expr) []Expr {
	if b, ok := e.(*Binary); ok && b.Op == "OR" {
		return append(splitOr(b.L), splitOr(b.R)...)
	}
	return []Expr{e}
}

// planBranches plans a WHERE that is an OR of branches, each fixing one
// partition, as one Query per branch, in the order written (ok is false
// when the WHERE is not of that form: it is scanned). Two branches on the
// same partition could read an item twice, so DynamoDB refuses them unless
// each fixes a different sort key value.
func planBranches(sel *Select, sc *schema, bind *binder, index *string, k keys, consistent *bool, rcc string) (*readPlan, bool, error) {
	branches := splitOr(sel.Where)
	if len(branches) < 2 {
		return nil, false, nil
	}
	var split []selectKeys
	var ids []string
	for _, br := range branches {
		sk := splitKeys(br, k)
		if sk.part == nil || len(sk.part[0]) != 1 || mentions(andOf(sk.residual), k.all()) {
			return nil, false, nil
		}
		id, err := branchID(sk, bind)
		if err != nil {
			return nil, true, err
		}
		split, ids = append(split, sk), append(ids, id)
	}
	for i := range split {
		for j := 0; j < i; j++ {
			if overlaps(split[i], split[j], ids[i], ids[j], bind) {
				return nil, true, semErr(sel.At, "Overlapping conditions with range keys are not supported in where clause")
			}
		}
	}
	plan := &readPlan{}
	for _, sk := range split {
		sub, err := planQueries(sel, sc, bind, index, sk, k, true, consistent, rcc)
		if err != nil {
			return nil, true, err
		}
		plan.queries = append(plan.queries, sub.queries...)
	}
	return plan, true, nil
}

// valueID identifies a key value.
func valueID(v attr.Value) string { return v.T.String() + ":" + v.S + string(v.B) }

// branchID identifies the partition a branch fixes.
func branchID(sk selectKeys, bind *binder) (string, error) {
	var id strings.Builder
	for _, vs := range sk.part {
		v, err := bind.value(vs[0], "root")
		if err != nil {
			return "", err
		}
		id.WriteString(valueID(v) + "\x00")
	}
	return id.String(), nil
}

// overlaps reports whether two branches may read the same item: the same
// partition, unless both fix different sort key values.
func overlaps(a, b selectKeys, aID, bID string, bind *binder) bool {
	if aID != bID {
		return false
	}
	if !isEquality(a.sort) || !isEquality(b.sort) {
		return true
	}
	av, errA := bind.value(a.sort.(*Binary).R, "root")
	bv, errB := bind.value(b.sort.(*Binary).R, "root")
	return errA != nil || errB != nil || valueID(av) == valueID(bv)
}
