package table

import (
	"bytes"
	"context"
	"math/bits"
	"sort"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// target is what a Query or Scan reads: the table itself or one of its indexes.
type target struct {
	meta  *tableMeta
	index *index.Def // nil for the table
	space string
}

// compileExpr is compile through the Service's expression cache: a request
// repeating another's expression texts and names skips parsing them.
func (s *Service) compileExpr(in expressions.Input) (*expressions.Compiled, error) {
	c, err := s.exprs.Compile(in)
	if err != nil {
		return nil, validationError(err)
	}
	return c, nil
}

// resolveTarget finds the table or index a read names, with DynamoDB's
// checks; whether a global index is readable yet is checked in the read's
// snapshot (readPages).
func (s *Service) resolveTarget(m *tableMeta, name *string, consistent *bool) (target, error) {
	t := target{meta: m, space: m.ID}
	if name == nil {
		return t, nil
	}
	for _, d := range m.lsis {
		if d.Name == *name {
			t.index, t.space = d, indexSpaceID(m, d.Name)
			return t, nil
		}
	}
	for _, d := range m.gsis {
		if d.Name == *name {
			if consistent != nil && *consistent {
				return t, ddb.Errorf(ddb.ValidationException, "Consistent reads are not supported on global secondary indexes")
			}
			t.index, t.space = d, indexSpaceID(m, d.Name)
			return t, nil
		}
	}
	return t, ddb.Errorf(ddb.ValidationException, "The table does not have the specified index: %s", *name)
}

// keyNames are the partition and sort attribute names of the target.
func (t target) keyNames() (partition, sort []string) {
	if t.index == nil {
		if t.meta.schema.SK != "" {
			sort = []string{t.meta.schema.SK}
		}
		return []string{t.meta.schema.PK}, sort
	}
	for _, k := range t.index.Partition {
		partition = append(partition, k.Name)
	}
	for _, k := range t.index.Sort {
		sort = append(sort, k.Name)
	}
	return partition, sort
}

func (t target) keyType(name string) attr.Type { return t.meta.attrType(name) }

// startKey validates an ExclusiveStartKey for the target and returns the key
// to resume after.
func (t target) startKey(k attr.Item) ([]byte, error) {
	tk := k
	if t.index != nil {
		tk = attr.Item{}
		for _, ka := range t.index.TableKey {
			if v, ok := k[ka.Name]; ok {
				tk[ka.Name] = v
			}
		}
	}
	tkey, err := t.meta.lookupKey(tk)
	if err != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "The provided starting key is invalid: %s", err.(*ddb.Error).Message)
	}
	if t.index == nil {
		return tkey, nil
	}
	ikey, ok := t.index.Key(k, tkey)
	if !ok || len(k) != len(t.index.KeyNames()) {
		return nil, ddb.Errorf(ddb.ValidationException, "The provided starting key is invalid: The provided key element does not match the schema")
	}
	return ikey, nil
}

// spec starts a pageSpec for the target with the Select and projection rules
// applied.
func (t target) spec(c *expressions.Compiled, sel string, limit *int32) (pageSpec, error) {
	countOnly, all, err := selectRules(sel, c.Projection != nil, t.index)
	if err != nil {
		return pageSpec{}, err
	}
	ps := pageSpec{space: t.space, filter: c.Filter, project: c.Projection, count: countOnly,
		keyNames: t.meta.keyNames(), keyOf: t.meta.keyOf}
	if limit != nil {
		ps.limit = int(*limit)
	}
	if t.index == nil {
		return ps, nil
	}
	ps.index, ps.keyNames, ps.keyOf = true, t.index.KeyNames(), t.index.KeyOf
	if t.index.Global || t.index.ProjectionType == "ALL" {
		return ps, nil
	}
	// A local index fetches what it does not project from the table.
	need := all
	var names []string
	if c.Projection != nil {
		names = append(names, c.Projection.TopLevelNames()...)
	}
	if c.Filter != nil {
		names = append(names, c.Filter.TopLevelNames()...)
	}
	for _, n := range names {
		if !t.index.Projects(n) {
			need = true
		}
	}
	if need {
		m := t.meta
		ps.fetch = func(tx *store.Tx, entry attr.Item) (attr.Item, int, error) {
			key, err := m.lookupKey(m.keyOf(entry))
			if err != nil {
				return nil, 0, err
			}
			raw := tx.Space(m.ID).Get(key)
			if raw == nil {
				return entry, 0, nil
			}
			item, err := attr.DecodeBinary(raw)
			return item, item.Size(), err
		}
	}
	return ps, nil
}

// Query reads one partition of a table or index, in sort-key order, a page at a time.
// The request's own checks (parameters, expressions) come before the lookup.
func (s *Service) Query(ctx context.Context, region string, in *ddb.QueryInput) (*ddb.ReadOutput, error) {
	c, err := s.compileExpr(expressions.Input{
		KeyConditionExpression: in.KeyConditionExpression, KeyConditions: in.KeyConditions,
		FilterExpression: in.FilterExpression, QueryFilter: in.QueryFilter, ConditionalOperator: in.ConditionalOperator,
		ProjectionExpression: in.ProjectionExpression, AttributesToGet: in.AttributesToGet,
		Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues, Op: expressions.OpQuery,
	})
	if err != nil {
		return nil, err
	}
	if c.KeyCondition == nil {
		return nil, ddb.Errorf(ddb.ValidationException, "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	m, err := s.tableIndex(ctx, region, in.TableName, in.IndexName)
	if err != nil {
		return nil, err
	}
	if err := m.notVectorIndex(in.IndexName, "Query"); err != nil {
		return nil, err
	}
	t, err := s.resolveTarget(m, in.IndexName, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	partNames, sortNames := t.keyNames()
	kc, err := c.KeyCondition.KeyCondition(partNames, sortNames)
	if err != nil {
		return nil, validationError(err)
	}
	if c.Filter != nil {
		for _, name := range c.Filter.TopLevelNames() {
			for _, k := range append(append([]string(nil), partNames...), sortNames...) {
				if name == k {
					return nil, ddb.Errorf(ddb.ValidationException, "Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", name)
				}
			}
		}
	}
	from, to, err := t.keyRange(kc)
	if err != nil {
		return nil, err
	}
	ps, err := t.spec(c, in.Select, in.Limit)
	if err != nil {
		return nil, err
	}
	ps.reverse = in.ScanIndexForward != nil && !*in.ScanIndexForward
	if in.ExclusiveStartKey != nil {
		esk, err := t.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if bytes.Compare(esk, from) < 0 || (to != nil && bytes.Compare(esk, to) >= 0) {
			return nil, ddb.Errorf(ddb.ValidationException, "The provided starting key is outside query boundaries based on provided conditions")
		}
		if ps.reverse {
			to = esk
		} else {
			from = after(esk)
		}
	}
	ps.from, ps.to = from, to
	return s.readPages(ctx, t, ps, in.ConsistentRead, in.ReturnConsumedCapacity)
}

// keyRange turns an analysed key condition into the target's key range.
func (t target) keyRange(kc *expressions.KeyCondition) (from, to []byte, err error) {
	partNames, sortNames := t.keyNames()
	byName := map[string]expressions.KeyTerm{}
	for _, term := range append(append([]expressions.KeyTerm(nil), kc.Partition...), kc.Sort...) {
		byName[term.Name] = term
	}
	vals := make([]attr.Value, len(partNames))
	for i, n := range partNames {
		term := byName[n]
		if len(term.Values) != 1 || term.Values[0].T != t.keyType(n) {
			return nil, nil, invalid("Condition parameter type does not match schema type")
		}
		vals[i] = term.Values[0]
	}
	var prefix []byte
	if t.index == nil {
		prefix = partitionPrefix(vals[0])
	} else {
		prefix = index.PartitionPrefix(vals)
	}
	// Sort conditions apply to a left-to-right prefix of the sort attributes:
	// equality on all but the last one.
	for _, n := range sortNames {
		term, ok := byName[n]
		if !ok {
			break
		}
		if term.Op != "=" {
			return sortRange(t.keyType(n), prefix, term)
		}
		for _, v := range term.Values {
			if v.T != t.keyType(n) {
				return nil, nil, invalid("Condition parameter type does not match schema type")
			}
		}
		prefix = attr.AppendKey(prefix, term.Values[0])
	}
	return prefix, prefixEnd(prefix), nil
}

// readPages runs a page read in one snapshot and renders the response. A read
// of a global index needs the index built, and caught up with every write
// acknowledged before the read began (or, when the table's indexes lag,
// with every write due): both are checked in the snapshot the page is read
// from, which is read again only after waiting for the index.
func (s *Service) readPages(ctx context.Context, t target, ps pageSpec, consistentRead *bool, rcc string) (*ddb.ReadOutput, error) {
	consistent := consistentRead != nil && *consistentRead
	global := t.index != nil && t.index.Global
	r, err := s.beginPage(t, ps, consistent)
	if err != nil {
		return nil, err
	}
	// The page's JSON is written into a scratch buffer kept by the Service.
	// The api layer encodes the response after this returns and then calls
	// ReadOutput.Release, which gives the buffer back; one that is never
	// released is simply left to the GC.
	var scratch *[]byte
	if !ps.count {
		if scratch, _ = s.pageBufs.Get().(*[]byte); scratch == nil {
			scratch = new([]byte)
		}
		ps.buf = (*scratch)[:0]
	}
	ps.plain = s.plain
	var pg page
	var gw gsiWait
	// An eventually consistent page of the table as it is now, or of a
	// global index, may be read from this front-end's local copy of a
	// shared store (store.DB.ReadEventual, as readKeyed); once it has
	// waited for a global index, it reads the store itself.
	read := s.db.Read
	if !consistent && r.at == 0 {
		read = s.db.ReadEventual
	}
	for {
		err := read(func(tx *store.Tx) error {
			if global {
				if err := s.checkGSI(tx, t, &gw); err != nil || gw.behind {
					return err
				}
			}
			var err error
			pg, err = s.readAt(tx, t, ps, r.at)
			return err
		})
		if gw.building {
			s.applier(t.meta)
		}
		if err == nil && gw.behind {
			err = s.applier(t.meta).WaitFor(ctx, gw.target)
			if err == nil {
				read = s.db.Read
				continue
			}
		}
		if err != nil {
			s.recyclePage(scratch, pg.items)
			return nil, err
		}
		break
	}
	out := s.pageOutput(t, ps, pg, scratch, consistent, rcc)
	s.finishPage(r, t, ps, pg)
	return out, nil
}

// scanEnd is the partition hash where Scan page pg stopped: its
// LastEvaluatedKey's, else the end of the range it read.
func scanEnd(t target, ps pageSpec, pg page) uint64 {
	if pg.lastEvaluated != nil {
		if k, err := t.startKey(pg.lastEvaluated); err == nil {
			return hashOf(k)
		}
	}
	if ps.to != nil {
		return hashOf(ps.to) - 1 // ps.to is where the next segment starts
	}
	return ^uint64(0)
}

// pageUnits is what reading page pg of t costs: the same sum pageOutput's
// meter makes.
func pageUnits(t target, pg page, consistent bool) float64 {
	u := capacity.ReadUnits(pg.bytes, consistent)
	if t.index != nil {
		for _, size := range pg.fetched {
			u += capacity.ReadUnits(size, consistent)
		}
	}
	return u
}

// gsiWait is what a read of a global index waits for: the index's
// watermark to reach target, worked out in the read's first snapshot.
type gsiWait struct {
	target uint64
	known  bool // target is set
	behind bool // the index had not reached target in the last snapshot
	// building says the index was still being built: its table's applier
	// must run, since it resumes a backfill a restart interrupted.
	building bool
}

// checkGSI checks in snapshot tx that global index t.index can be read:
// it fails when the index is still being built, and sets w.behind when it
// has not yet applied the writes the read must see.
func (s *Service) checkGSI(tx *store.Tx, t target, w *gsiWait) error {
	wm, ok := gsi.Watermark(tx, t.meta.ID, t.index.Name)
	if !ok {
		w.building = true
		return ddb.Errorf(ddb.ValidationException, "Cannot read from backfilling global secondary index: %s", t.index.Name)
	}
	if !w.known {
		target, err := s.gsiTarget(tx, t.meta)
		if err != nil {
			return err
		}
		w.target, w.known = target, true
	}
	w.behind = wm < w.target
	return nil
}

// gsiTarget is the last change-log record of m that a read of its global
// indexes in snapshot tx must see: the last one written, or with lagging
// indexes the last one due.
func (s *Service) gsiTarget(tx *store.Tx, m *tableMeta) (uint64, error) {
	if _, l := s.lags(m); !l.IsZero() {
		if err := s.syncHistory(tx, m); err != nil {
			return 0, err
		}
		return s.history.DuePrefix(m.ID, s.gsiDue(m)), nil
	}
	sp := tx.Space(m.ID)
	if sp == nil {
		return 0, ddb.NotFound("")
	}
	return sp.LastLogSeq(), nil
}

// readAt reads the page ps describes in snapshot tx, as an eventually
// consistent read at time at sees it (0: the snapshot itself).
func (s *Service) readAt(tx *store.Tx, t target, ps pageSpec, at int64) (page, error) {
	var ov *overlay
	if at != 0 {
		if err := s.syncHistory(tx, t.meta); err != nil {
			return page{}, err
		}
		var err error
		if ov, err = s.overlay(tx, t, ps.from, ps.to, at); err != nil {
			return page{}, err
		}
	}
	return readPage(tx, ps, ov)
}

// pageOutput renders a page read from target t as the response, with its
// capacity; the items stay in scratch's buffer until the output is released.
func (s *Service) pageOutput(t target, ps pageSpec, pg page, scratch *[]byte, consistent bool, rcc string) *ddb.ReadOutput {
	mt := capacity.NewMeter(t.meta.Name, true)
	if t.index == nil {
		mt.AddTable(capacity.ReadUnits(pg.bytes, consistent))
	} else {
		mt.AddIndex(t.index.Global, t.index.Name, capacity.ReadUnits(pg.bytes, consistent))
		for _, size := range pg.fetched {
			mt.AddTable(capacity.ReadUnits(size, consistent))
		}
	}
	s.observePage(t, ps, pg, mt)
	out := &ddb.ReadOutput{Count: pg.count, ScannedCount: pg.scanned, LastEvaluatedKey: pg.lastEvaluated,
		ConsumedCapacity: report(mt, rcc)}
	if !ps.count {
		out.RenderedItems = pg.items
		if out.RenderedItems == nil {
			out.RenderedItems = []byte{} // an empty page: "Items":[]
		}
		out.Recycle = func() { s.recyclePage(scratch, out.RenderedItems) }
	}
	return out
}

// recyclePage gives a page's scratch buffer back to the pool, holding buf
// (what the page grew it into) unless that has become too large to keep.
func (s *Service) recyclePage(scratch *[]byte, buf []byte) {
	if scratch == nil {
		return
	}
	if buf == nil {
		buf = *scratch
	}
	if cap(buf) <= maxPooledPage {
		*scratch = buf[:0]
		s.pageBufs.Put(scratch)
	}
}

// sortRange turns a condition on one sort attribute of type typ into a key
// range within the keys that start with prefix. Keys may continue after the
// sort value (index keys end with the table key), so bounds are prefix ends.
func sortRange(typ attr.Type, prefix []byte, t expressions.KeyTerm) (from, to []byte, err error) {
	for _, v := range t.Values {
		if v.T != typ {
			return nil, nil, invalid("Condition parameter type does not match schema type")
		}
	}
	key := func(v attr.Value) []byte { return attr.AppendKey(append([]byte(nil), prefix...), v) }
	end := prefixEnd(prefix)
	v := t.Values[0]
	switch t.Op {
	case "=":
		k := key(v)
		return k, prefixEnd(k), nil
	case "<":
		return prefix, key(v), nil
	case "<=":
		return prefix, prefixEnd(key(v)), nil
	case ">":
		return prefixEnd(key(v)), end, nil
	case ">=":
		return key(v), end, nil
	case "BETWEEN":
		// expressions rejects reversed bounds when it compiles the condition.
		return key(v), prefixEnd(key(t.Values[1])), nil
	case "begins_with":
		if v.T != attr.TypeS && v.T != attr.TypeB {
			return nil, nil, ddb.Errorf(ddb.ValidationException, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: %s", v.T)
		}
		// Every value with prefix p sorts in [p, succ(p)), succ(p) being p with
		// its last byte incremented (and trailing 0xff bytes dropped).
		raw := []byte(v.S)
		if v.T == attr.TypeB {
			raw = v.B
		}
		succ := prefixEnd(raw)
		if succ == nil {
			return key(v), end, nil
		}
		hi := attr.Value{T: v.T}
		if v.T == attr.TypeS {
			hi.S = string(succ)
		} else {
			hi.B = succ
		}
		return key(v), key(hi), nil
	}
	return nil, nil, ddb.Errorf(ddb.ValidationException, "Query key condition not supported")
}

// checkSegment checks a parallel scan's Segment and TotalSegments, which
// need no table and so are checked before the lookup.
func checkSegment(in *ddb.ScanInput) error {
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return ddb.Errorf(ddb.ValidationException, "The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return ddb.Errorf(ddb.ValidationException, "The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil && uint64(*in.Segment) >= uint64(*in.TotalSegments):
		return ddb.Errorf(ddb.ValidationException, "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *in.Segment, *in.TotalSegments)
	}
	return nil
}

// Scan reads a whole table or index (or one parallel segment of it) in storage order.
func (s *Service) Scan(ctx context.Context, region string, in *ddb.ScanInput) (*ddb.ReadOutput, error) {
	c, err := s.compileExpr(expressions.Input{
		FilterExpression: in.FilterExpression, ScanFilter: in.ScanFilter, ConditionalOperator: in.ConditionalOperator,
		ProjectionExpression: in.ProjectionExpression, AttributesToGet: in.AttributesToGet,
		Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues, Op: expressions.OpScan,
	})
	if err != nil {
		return nil, err
	}
	if err := checkSegment(in); err != nil {
		return nil, err
	}
	m, err := s.tableIndex(ctx, region, in.TableName, in.IndexName)
	if err != nil {
		return nil, err
	}
	if err := m.notVectorIndex(in.IndexName, "Scan"); err != nil {
		return nil, err
	}
	t, err := s.resolveTarget(m, in.IndexName, in.ConsistentRead)
	if err != nil {
		return nil, err
	}
	ps, err := t.spec(c, in.Select, in.Limit)
	if err != nil {
		return nil, err
	}
	ps.scan = true
	if in.Segment != nil {
		ps.from, ps.to = segmentRange(uint64(*in.Segment), uint64(*in.TotalSegments))
	}
	if in.ExclusiveStartKey != nil {
		esk, err := t.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if (ps.from != nil && bytes.Compare(esk, ps.from) < 0) || (ps.to != nil && bytes.Compare(esk, ps.to) >= 0) {
			return nil, ddb.Errorf(ddb.ValidationException, "The provided Exclusive start key does not map to the provided segment")
		}
		ps.from = after(esk)
	}
	return s.readPages(ctx, t, ps, in.ConsistentRead, in.ReturnConsumedCapacity)
}

// segmentRange is parallel-scan segment seg of total: the seg-th of total
// equal slices of the 64-bit partition-hash space that prefixes storage keys.
func segmentRange(seg, total uint64) (from, to []byte) {
	bound := func(i uint64) []byte {
		if i == total {
			return nil
		}
		q, _ := bits.Div64(i, 0, total) // floor(i * 2^64 / total)
		return attr.AppendHashPrefix(nil, q)
	}
	return bound(seg), bound(seg + 1)
}

// overlay is what an eventually consistent read of t at time at sees
// differently from the current state within [from, to): the items changed
// since, as they were then (for a local index, their entries then).
func (s *Service) overlay(tx *store.Tx, t target, from, to []byte, at int64) (*overlay, error) {
	ov := &overlay{hidden: map[string]bool{}}
	inRange := func(k []byte) bool {
		return (from == nil || bytes.Compare(k, from) >= 0) && (to == nil || bytes.Compare(k, to) < 0)
	}
	if t.index == nil {
		for _, c := range s.history.Changed(t.meta.ID, from, to, at) {
			ov.hidden[string(c.Key)] = true
			if c.Old != nil {
				ov.shown = append(ov.shown, shownEntry{key: c.Key, entry: c.Old})
			}
		}
		return ov, nil
	}
	tsp := tx.Space(t.meta.ID)
	for _, c := range s.history.Changed(t.meta.ID, nil, nil, at) {
		if raw := tsp.Get(c.Key); raw != nil {
			cur, err := attr.DecodeBinary(raw)
			if err != nil {
				return nil, err
			}
			if k, ok := t.index.Key(cur, c.Key); ok {
				ov.hidden[string(k)] = true
			}
		}
		if c.Old == nil {
			continue
		}
		if k, ok := t.index.Key(c.Old, c.Key); ok && inRange(k) {
			ov.shown = append(ov.shown, shownEntry{key: k, entry: t.index.Project(c.Old)})
		}
	}
	sort.Slice(ov.shown, func(i, j int) bool { return bytes.Compare(ov.shown[i].key, ov.shown[j].key) < 0 })
	return ov, nil
}
