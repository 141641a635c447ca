package table

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
)

// maxTransactBytes is the aggregate item size a transaction may carry.
const maxTransactBytes = 4 << 20

// Transaction errors, in DynamoDB's words.
const (
	msgTxMultipleOps = "Transaction request cannot include multiple operations on one item"
	msgTxTooLarge    = "Transaction request cannot be larger than 4 MB"
	msgTxOneAction   = "TransactItems can only contain one of Check, Put, Update or Delete"
	msgCondFailed    = "The conditional request failed"
)

// reasonNone is the cancellation code of an action that did not fail.
const reasonNone = "None"

// txWrite is one validated TransactWriteItems action (a ConditionCheck
// when mu.check).
type txWrite struct {
	mu *mutation
}

// TransactWriteItems applies up to 100 Put, Update, Delete and
// ConditionCheck actions across tables, all or nothing. Every action is
// validated before the store is touched; then, in one store transaction,
// every condition is evaluated and every update computed before anything is
// written. If any action fails the result is a TransactionCanceledException
// listing a reason for every action, and nothing is written. A
// ClientRequestToken makes a retry within 10 minutes return the first
// success without writing again.
func (s *Service) TransactWriteItems(ctx context.Context, region string, in *ddb.TransactWriteItemsInput) (*ddb.TransactWriteItemsOutput, error) {
	acts, err := s.prepareTransactWrite(ctx, region, in)
	if err != nil {
		return nil, err
	}
	for _, a := range acts {
		if err := refuseStrongTransaction(a.mu.meta); err != nil { // replica_strong_rules.go
			return nil, err
		}
	}
	if in.ClientRequestToken == nil {
		return s.runTransactWrite(ctx, acts, in, nil)
	}
	token := *in.ClientRequestToken
	d, err := requestDigest(in)
	if err != nil {
		return nil, err
	}
	if first, err := s.tokens.begin(region, token, d, s.now()); first != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return s.replayed(acts, first, in.ReturnConsumedCapacity)
	}
	var shared *sharedToken
	if s.db.Shared() {
		shared = &sharedToken{key: []byte("token/" + region + "\x00" + token), digest: d}
	}
	out, err := s.runTransactWrite(ctx, acts, in, shared)
	if errors.Is(err, errTokenUsed) {
		// Another front-end committed it: remember it here too.
		out, err = &ddb.TransactWriteItemsOutput{}, nil
		s.tokens.finish(region, token, out, s.now())
		return s.replayed(acts, out, in.ReturnConsumedCapacity)
	}
	s.tokens.finish(region, token, out, s.now())
	return out, err
}

// prepareTransactWrite validates a request completely: first what needs no
// table, action by action (checkTransactRequest), then each action's table,
// key and item, the aggregate size and that no item is named twice. A key
// that does not fit its table's schema cancels the transaction, with a
// ValidationError reason for that action (and None for the others, whose
// conditions are not evaluated), once every other check has passed:
// DynamoDB validates the request first and the keys as the transaction
// runs.
func (s *Service) prepareTransactWrite(ctx context.Context, region string, in *ddb.TransactWriteItemsInput) ([]txWrite, error) {
	compiled, err := s.checkTransactRequest(in)
	if err != nil {
		return nil, err
	}
	acts := make([]txWrite, 0, len(in.TransactItems))
	seen := make(map[string]bool, len(in.TransactItems))
	size := 0
	var reasons []ddb.CancellationReason // made when a key does not fit its schema
	for i, ti := range in.TransactItems {
		a, n, err := s.prepareAction(ctx, region, ti, compiled[i])
		if e, ok := err.(*ddb.Error); ok && e.KeySchema {
			reasons = schemaReason(reasons, len(in.TransactItems), i, e)
			continue
		}
		if err != nil {
			return nil, err
		}
		if size += n; size > maxTransactBytes {
			return nil, ddb.Errorf(ddb.ValidationException, msgTxTooLarge)
		}
		id := a.mu.meta.ID + "\x00" + string(a.mu.key)
		if seen[id] {
			return nil, ddb.Errorf(ddb.ValidationException, msgTxMultipleOps)
		}
		seen[id] = true
		acts = append(acts, a)
	}
	if reasons != nil {
		return nil, ddb.Cancelled(reasons)
	}
	return acts, nil
}

// CheckTransactWriteItems makes the checks of a TransactWriteItems request
// that need no table, as DynamoDB makes them before it looks any table up:
// action by action in request order, each action's shape, its expressions
// (syntax, size, unused names and values), its item's attribute names and
// how deeply its values nest; the first problem of the first action that
// has one is the answer (paritysuite/dynamodb-conformance's
// validation-ordering transactions and deepRequests captures, October
// 2026). api calls it for a request whose values nest too deeply to be
// read for running; TransactWriteItems makes the same checks first.
func (s *Service) CheckTransactWriteItems(in *ddb.TransactWriteItemsInput) error {
	_, err := s.checkTransactRequest(in)
	return err
}

// checkTransactRequest is CheckTransactWriteItems, returning each action's
// compiled expressions.
func (s *Service) checkTransactRequest(in *ddb.TransactWriteItemsInput) ([]*expressions.Compiled, error) {
	out := make([]*expressions.Compiled, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		c, err := s.checkAction(ti)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// checkAction is checkTransactRequest for one action: its shape, its
// expressions, a Put item's top-level names ("Empty attribute name", the
// service's words in the captures above), then the nesting of its item or
// key and of its values.
func (s *Service) checkAction(ti ddb.TransactWriteItem) (*expressions.Compiled, error) {
	n := 0
	for _, set := range []bool{ti.ConditionCheck != nil, ti.Put != nil, ti.Delete != nil, ti.Update != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, ddb.Errorf(ddb.ValidationException, msgTxOneAction)
	}
	var cond, update *string
	var p ddb.ExprParams
	var item attr.Item // the Put's item, or the other actions' key
	switch {
	case ti.Put != nil:
		cond, p, item = ti.Put.ConditionExpression, ti.Put.ExprParams, ti.Put.Item
	case ti.Delete != nil:
		cond, p, item = ti.Delete.ConditionExpression, ti.Delete.ExprParams, ti.Delete.Key
	case ti.Update != nil:
		cond, update, p, item = ti.Update.ConditionExpression, ti.Update.UpdateExpression, ti.Update.ExprParams, ti.Update.Key
	default:
		cond, p, item = ti.ConditionCheck.ConditionExpression, ti.ConditionCheck.ExprParams, ti.ConditionCheck.Key
	}
	c, err := s.compileTx(cond, update, p)
	if err != nil {
		return nil, err
	}
	if _, empty := item[""]; empty && ti.Put != nil {
		return nil, emptyNameError()
	}
	if item.Depth() > attr.MaxNestingDepth {
		return nil, ddb.NestingError()
	}
	return c, nestedValue(p.ExpressionAttributeValues)
}

// nestedValue refuses the first (by name) of a transaction action's values
// nested past the limit: a value one container past it with the bare
// refusal, a deeper one naming it (the captures above: most Regions name
// it from 33 levels, the newest from about 61; the newest refuse 32, most
// evaluate it).
func nestedValue(values map[string]attr.Value) error {
	deep := false
	for _, v := range values {
		deep = deep || v.Depth() > attr.MaxNestingDepth
	}
	if !deep {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		switch d := values[k].Depth(); {
		case d == attr.MaxNestingDepth+1:
			return ddb.NestingError()
		case d > attr.MaxNestingDepth+1:
			return ddb.NestedValueError(k)
		}
	}
	return nil
}

// schemaReason records in reasons (made for n actions, all None, on first
// use) that action i's key does not fit its schema.
func schemaReason(reasons []ddb.CancellationReason, n, i int, e *ddb.Error) []ddb.CancellationReason {
	if reasons == nil {
		reasons = make([]ddb.CancellationReason, n)
		for j := range reasons {
			reasons[j].Code = reasonNone
		}
	}
	reasons[i] = ddb.CancellationReason{Code: ddb.ReasonCode(ddb.ValidationException), Message: e.Message}
	return reasons
}

// prepareAction validates one action, whose checks that need no table
// passed (c holds its compiled expressions), as its single-item operation
// would, and returns it with the bytes it counts toward the 4 MB limit.
func (s *Service) prepareAction(ctx context.Context, region string, ti ddb.TransactWriteItem, c *expressions.Compiled) (txWrite, int, error) {
	switch {
	case ti.Put != nil:
		p := ti.Put
		m, err := s.table(ctx, region, p.TableName)
		if err != nil {
			return txWrite{}, 0, err
		}
		key, err := m.itemKey(p.Item)
		if err != nil {
			return txWrite{}, 0, err
		}
		if err := m.checkItem(p.Item, false); err != nil {
			return txWrite{}, 0, err
		}
		item := p.Item
		mu := &mutation{meta: m, key: key, cond: c.Condition,
			next:               func(attr.Item) (attr.Item, error) { return item, nil },
			returnOldOnFailure: p.ReturnValuesOnConditionCheckFailure == "ALL_OLD"}
		return txWrite{mu: mu}, item.Size(), nil
	case ti.Delete != nil:
		d := ti.Delete
		return s.keyedAction(ctx, region, d.TableName, d.Key, c, false, d.ReturnValuesOnConditionCheckFailure, false)
	case ti.Update != nil:
		u := ti.Update
		return s.keyedAction(ctx, region, u.TableName, u.Key, c, true, u.ReturnValuesOnConditionCheckFailure, false)
	default:
		cc := ti.ConditionCheck
		return s.keyedAction(ctx, region, cc.TableName, cc.Key, c, false, cc.ReturnValuesOnConditionCheckFailure, true)
	}
}

// keyedAction validates a Delete, Update (update) or ConditionCheck
// (check) action, which all name their item by Key; c holds its compiled
// expressions.
func (s *Service) keyedAction(ctx context.Context, region, tableName string, keyItem attr.Item, c *expressions.Compiled, update bool, rv string, check bool) (txWrite, int, error) {
	m, err := s.table(ctx, region, tableName)
	if err != nil {
		return txWrite{}, 0, err
	}
	key, err := m.lookupKey(keyItem)
	if err != nil {
		return txWrite{}, 0, err
	}
	mu := &mutation{meta: m, key: key, cond: c.Condition, returnOldOnFailure: rv == "ALL_OLD", check: check}
	switch {
	case check:
		mu.next = func(old attr.Item) (attr.Item, error) { return old, nil }
	case update:
		if mu.next, err = m.updateNext(keyItem, c.Update); err != nil {
			return txWrite{}, 0, err
		}
	default:
		mu.next = func(attr.Item) (attr.Item, error) { return nil, nil }
	}
	return txWrite{mu: mu}, keyItem.Size(), nil
}

// compileTx compiles one action's expressions with its own names and values.
func (s *Service) compileTx(cond, update *string, p ddb.ExprParams) (*expressions.Compiled, error) {
	op := expressions.OpWrite
	if update != nil {
		op = expressions.OpUpdate
	}
	return s.compileExpr(expressions.Input{ConditionExpression: cond, UpdateExpression: update,
		Names: p.ExpressionAttributeNames, Values: p.ExpressionAttributeValues, Op: op})
}

// runTransactWrite performs validated actions in one store transaction,
// through the write envelope, and reports the capacity and item collection
// sizes of what they did.
func (s *Service) runTransactWrite(ctx context.Context, acts []txWrite, in *ddb.TransactWriteItemsInput, shared *sharedToken) (*ddb.TransactWriteItemsOutput, error) {
	muts := make([]*mutation, len(acts))
	for i, a := range acts {
		muts[i] = a.mu
	}
	op, err := s.beginWrite(writeTransaction, muts)
	if err != nil {
		return nil, err
	}
	results := make([]written, len(acts))
	err = s.runWrite(ctx, op, func(tx *store.Tx, now int64) error {
		// The store may run this function more than once: start afresh.
		clear(results)
		if err := shared.check(tx); err != nil {
			return err
		}
		if err := s.transact(tx, now, muts, results); err != nil {
			return err
		}
		return shared.record(tx) // the token commits with the writes
	})
	if err = s.finishWrite(ctx, op, results, err); err != nil {
		return nil, err
	}
	out := &ddb.TransactWriteItemsOutput{}
	for _, mt := range transactMeters(acts, results) {
		if cc := report(mt, in.ReturnConsumedCapacity); cc != nil {
			out.ConsumedCapacity = append(out.ConsumedCapacity, cc)
		}
	}
	for i, mu := range muts {
		if mu.check {
			continue
		}
		if icm := mu.meta.collectionMetrics(in.ReturnItemCollectionMetrics, results[i]); icm != nil {
			if out.ItemCollectionMetrics == nil {
				out.ItemCollectionMetrics = map[string][]*ddb.ItemCollectionMetrics{}
			}
			out.ItemCollectionMetrics[mu.meta.Name] = append(out.ItemCollectionMetrics[mu.meta.Name], icm)
		}
	}
	return out, nil
}

// transact is a write transaction's body, inside tx: every action's old
// item is read and decoded once; then every action is admitted (a throttled
// one cancels the transaction), every condition evaluated and every new
// item computed before anything is written; then the actions are written,
// into results.
func (s *Service) transact(tx *store.Tx, now int64, muts []*mutation, results []written) error {
	sps := make([]*store.Space, len(muts))
	lds := make([]loaded, len(muts))
	for i, mu := range muts {
		if sps[i] = tx.Space(mu.meta.ID); sps[i] == nil {
			return ddb.NotFound("")
		}
		var err error
		if lds[i], err = s.load(sps[i], mu); err != nil {
			return err
		}
	}
	if err := s.admitTransaction(muts, lds); err != nil {
		return err
	}
	if err := checkAll(muts, lds, results); err != nil {
		return err
	}
	for i, mu := range muts {
		if mu.check {
			continue
		}
		w, err := mu.write(tx, sps[i], nil, now, &lds[i])
		if err != nil {
			// Phase one saw the same state, so only a limit enforced
			// while writing (an item collection's size) gets here. The
			// store rolls back the writes already made.
			return cancelAt(len(muts), i, err)
		}
		results[i] = w
	}
	return nil
}

// checkAll is phase one of a write transaction: for every action, whose old
// item lds holds, it evaluates its condition and computes its new item
// (kept in lds), writing nothing, and puts the old item in results. It
// returns a TransactionCanceledException if any action fails.
func checkAll(muts []*mutation, lds []loaded, results []written) error {
	reasons := make([]ddb.CancellationReason, len(muts))
	failed := false
	for i, mu := range muts {
		reasons[i].Code = reasonNone
		old := lds[i].old
		results[i] = written{old: old, oldSize: lds[i].oldSize}
		if mu.cond != nil && !mu.cond.Eval(old) {
			failed = true
			reasons[i] = ddb.CancellationReason{Code: ddb.ReasonCode(ddb.ConditionalCheckFailedException), Message: msgCondFailed}
			if mu.returnOldOnFailure {
				reasons[i].Item = old
			}
			continue
		}
		if _, err := lds[i].nextOf(mu); err != nil {
			r, ok := reasonFor(validationError(err))
			if !ok {
				return err
			}
			failed = true
			reasons[i] = r
		}
	}
	if failed {
		return ddb.Cancelled(reasons)
	}
	return nil
}

// reasonFor turns an action's DynamoDB error into its cancellation reason;
// ok is false for errors that are not an action's own (internal failures).
func reasonFor(err error) (ddb.CancellationReason, bool) {
	e, ok := err.(*ddb.Error)
	if !ok {
		return ddb.CancellationReason{}, false
	}
	code := ddb.ReasonCode(e.Code)
	if code == "" {
		return ddb.CancellationReason{}, false
	}
	return ddb.CancellationReason{Code: code, Message: e.Message, Item: e.Item}, true
}

// cancelAt is the cancellation of n actions where action i failed with err,
// or err itself when it is not an action's own failure.
func cancelAt(n, i int, err error) error {
	r, ok := reasonFor(err)
	if !ok {
		return err
	}
	reasons := make([]ddb.CancellationReason, n)
	for j := range reasons {
		reasons[j].Code = reasonNone
	}
	reasons[i] = r
	return ddb.Cancelled(reasons)
}

// transactMeters charges committed actions, one meter per table in order of
// first appearance: writes as the single-item operations (index writes
// included), a ConditionCheck as a write of the item it read, everything
// doubled for the transaction.
func transactMeters(acts []txWrite, results []written) []*capacity.Meter {
	var meters []*capacity.Meter
	byTable := map[string]*capacity.Meter{}
	for i, a := range acts {
		m := a.mu.meta
		mt := byTable[m.ID]
		if mt == nil {
			mt = capacity.NewMeter(m.Name, false)
			mt.Transaction = true
			byTable[m.ID] = mt
			meters = append(meters, mt)
		}
		if a.mu.check {
			mt.AddTable(capacity.WriteUnits(results[i].oldSize, 0))
			continue
		}
		addWrite(mt, results[i])
	}
	return meters
}

// txGet is one validated TransactGetItems action.
type txGet struct {
	meta    *tableMeta
	key     []byte
	project *expressions.Projection
}

// TransactGetItems reads up to 100 items across tables from one consistent
// snapshot. Responses are in request order, {} for an absent item; each read
// costs twice a strongly consistent read.
func (s *Service) TransactGetItems(ctx context.Context, region string, in *ddb.TransactGetItemsInput) (*ddb.TransactGetItemsOutput, error) {
	gets := make([]txGet, len(in.TransactItems))
	seen := make(map[string]bool, len(in.TransactItems))
	var reasons []ddb.CancellationReason // as in prepareTransactWrite
	for i, ti := range in.TransactItems {
		g := ti.Get
		m, err := s.table(ctx, region, g.TableName)
		if err == nil {
			err = refuseStrongTransaction(m) // replica_strong_rules.go
		}
		if err != nil {
			return nil, err
		}
		c, err := s.compileExpr(expressions.Input{ProjectionExpression: g.ProjectionExpression, Names: g.ExpressionAttributeNames})
		if err != nil {
			return nil, err
		}
		key, err := m.lookupKey(g.Key)
		if e, ok := err.(*ddb.Error); ok && e.KeySchema {
			reasons = schemaReason(reasons, len(in.TransactItems), i, e)
			continue
		}
		if err != nil {
			return nil, err
		}
		id := m.ID + "\x00" + string(key)
		if seen[id] {
			return nil, ddb.Errorf(ddb.ValidationException, msgTxMultipleOps)
		}
		seen[id] = true
		gets[i] = txGet{meta: m, key: key, project: c.Projection}
	}
	if reasons != nil {
		return nil, ddb.Cancelled(reasons)
	}
	if err := s.admitTransactGet(gets); err != nil {
		return nil, err
	}
	out := &ddb.TransactGetItemsOutput{Responses: make([]ddb.ItemResponse, len(gets))}
	sizes := make([]int, len(gets))
	err := s.db.Read(func(tx *store.Tx) error {
		s.prefetchTransactGet(tx, gets)
		for i, g := range gets {
			out.Responses[i].Item, sizes[i] = nil, 0
			sp := tx.Space(g.meta.ID)
			if sp == nil {
				return ddb.NotFound("")
			}
			raw := sp.Get(g.key)
			if raw == nil {
				continue
			}
			item, err := attr.DecodeBinary(raw)
			if err != nil {
				return err
			}
			sizes[i] = item.Size()
			if g.project != nil {
				item = g.project.Apply(item)
			}
			out.Responses[i].Item = item
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.consumeTransactGet(gets, sizes)
	metas := make([]*tableMeta, len(gets))
	for i, g := range gets {
		metas[i] = g.meta
		s.observeRead(g.meta, g.key, sizes[i], true, true)
	}
	out.ConsumedCapacity = transactReads(metas, sizes, in.ReturnConsumedCapacity)
	return out, nil
}

// transactReads reports, per table in order of first appearance, the
// capacity of transactional reads of items of the given sizes (0: absent):
// each costs twice a strongly consistent read. Nil unless mode asks for it.
func transactReads(metas []*tableMeta, sizes []int, mode string) []*ddb.ConsumedCapacity {
	var meters []*capacity.Meter
	byTable := map[string]*capacity.Meter{}
	for i, m := range metas {
		mt := byTable[m.ID]
		if mt == nil {
			mt = capacity.NewMeter(m.Name, true)
			mt.Transaction = true
			byTable[m.ID] = mt
			meters = append(meters, mt)
		}
		mt.AddTable(capacity.ReadUnits(sizes[i], true))
	}
	var out []*ddb.ConsumedCapacity
	for _, mt := range meters {
		if cc := report(mt, mode); cc != nil {
			out = append(out, cc)
		}
	}
	return out
}

// replayed answers a retry of a remembered transaction with the first answer,
// except for its capacity: a replay writes nothing but reads the items
// ("Subsequent TransactWriteItems calls with the same client token return the
// number of read capacity units consumed in reading the item", API reference).
func (s *Service) replayed(acts []txWrite, first *ddb.TransactWriteItemsOutput, mode string) (*ddb.TransactWriteItemsOutput, error) {
	out := *first
	out.ConsumedCapacity = nil
	if mode != "TOTAL" && mode != "INDEXES" {
		return &out, nil
	}
	metas := make([]*tableMeta, len(acts))
	sizes := make([]int, len(acts))
	err := s.db.View(func(tx *store.Tx) error {
		for i, a := range acts {
			metas[i] = a.mu.meta
			sp := tx.Space(a.mu.meta.ID)
			if sp == nil {
				return ddb.NotFound("")
			}
			if raw := sp.Get(a.mu.key); raw != nil {
				n, err := attr.BinarySize(raw)
				if err != nil {
					return err
				}
				sizes[i] = n
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.ConsumedCapacity = transactReads(metas, sizes, mode)
	return &out, nil
}
