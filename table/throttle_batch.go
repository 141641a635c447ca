package table

import (
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/throttle"
)

// Throttling of the multi-item operations, as DynamoDB documents it: a batch
// returns what throttling refused as UnprocessedItems or UnprocessedKeys and
// fails only when it refused every item; a transaction is cancelled, with
// a throttling reason on each refused action.

// unprocessedItems is BatchWriteItem's UnprocessedItems: the requests of
// the mutations admission refused (muts were made from items, table by
// table in name order).
func unprocessedItems(muts []mutation, items map[string][]ddb.WriteRequest) map[string][]ddb.WriteRequest {
	out := map[string][]ddb.WriteRequest{}
	if !slices.ContainsFunc(muts, func(mu mutation) bool { return mu.refused() }) {
		return out
	}
	var reqs []ddb.WriteRequest // in muts' order
	for _, name := range slices.Sorted(maps.Keys(items)) {
		reqs = append(reqs, items[name]...)
	}
	for i := range muts {
		if mu := &muts[i]; mu.refused() {
			out[mu.meta.Name] = append(out[mu.meta.Name], reqs[i])
		}
	}
	return out
}

// batchThrottled is the throttling exception of a batch whose every write
// admission refused, in the first refused table's words.
func batchThrottled(muts []*mutation) error {
	var reasons []throttle.Reason
	for _, mu := range muts {
		reasons = append(reasons, mu.adm.reasons...)
	}
	return throttleError(muts[0].meta, dedupe(reasons))
}

// admitBatchGet admits each key of each table's part of a BatchGetItem,
// taking its least cost, and moves the refused keys to out's
// UnprocessedKeys. It fails with the throttling exception when none is
// admitted.
func (s *Service) admitBatchGet(reqs []batchGet, out *ddb.BatchGetItemOutput) error {
	if !slices.ContainsFunc(reqs, func(bg batchGet) bool { return s.throttling(bg.meta) }) {
		return nil
	}
	admitted := 0
	var first *tableMeta
	var reasons []throttle.Reason
	for i := range reqs {
		bg := &reqs[i]
		if !s.throttling(bg.meta) {
			admitted += len(bg.keys)
			continue
		}
		consistent := bg.req.ConsistentRead != nil && *bg.req.ConsistentRead
		var keys [][]byte
		var kept, refused []attr.Item
		for j, key := range bg.keys {
			why := s.admitRead(bg.meta, bg.meta.readTarget("", false, key, 0), consistent)
			if why == nil {
				keys, kept = append(keys, key), append(kept, bg.req.Keys[j])
				continue
			}
			if first == nil {
				first = bg.meta
			}
			reasons = append(reasons, why...)
			refused = append(refused, bg.req.Keys[j])
		}
		admitted += len(keys)
		if refused != nil {
			un := bg.req
			un.Keys = refused
			out.UnprocessedKeys[bg.name] = un
		}
		bg.keys, bg.req.Keys = keys, kept
	}
	if admitted == 0 {
		return throttleError(first, dedupe(reasons))
	}
	return nil
}

// admitTransaction admits every action of a write transaction, whose old
// items lds holds, at twice its units; it returns the
// TransactionCanceledException when any is throttled.
func (s *Service) admitTransaction(muts []*mutation, lds []loaded) error {
	var reasons []ddb.CancellationReason
	for i, mu := range muts {
		if s.admit(mu, &lds[i]) != nil {
			reasons = throttledAt(reasons, len(muts), i, mu.meta)
		}
	}
	if reasons != nil {
		return ddb.Cancelled(reasons)
	}
	return nil
}

// admitTransactGet is admitTransaction for TransactGetItems: each read
// takes two units (a transactional strongly consistent read) now and the
// rest with consumeTransactGet.
func (s *Service) admitTransactGet(gets []txGet) error {
	var reasons []ddb.CancellationReason
	for i, g := range gets {
		if !s.throttling(g.meta) {
			continue
		}
		t := g.meta.readTarget("", false, g.key, 2*capacity.ReadUnits(0, true))
		if why := s.limiter.Take(s.now(), g.meta.ID, throttle.Read, []throttle.Target{t}); why != nil {
			reasons = throttledAt(reasons, len(gets), i, g.meta)
		}
	}
	if reasons != nil {
		return ddb.Cancelled(reasons)
	}
	return nil
}

// consumeTransactGet takes what TransactGetItems' reads of items of the
// given sizes cost beyond what admitTransactGet took.
func (s *Service) consumeTransactGet(gets []txGet, sizes []int) {
	for i, g := range gets {
		if s.throttling(g.meta) {
			t := g.meta.readTarget("", false, g.key, 2*(capacity.ReadUnits(sizes[i], true)-capacity.ReadUnits(0, true)))
			s.limiter.Consume(s.now(), g.meta.ID, throttle.Read, t)
		}
	}
}

// throttledAt records in reasons (made for n actions, all None, on first
// use) that action i on m was throttled.
func throttledAt(reasons []ddb.CancellationReason, n, i int, m *tableMeta) []ddb.CancellationReason {
	if reasons == nil {
		reasons = make([]ddb.CancellationReason, n)
		for j := range reasons {
			reasons[j].Code = reasonNone
		}
	}
	reasons[i] = throttleReason(m)
	return reasons
}

func dedupe(rs []throttle.Reason) []throttle.Reason {
	var out []throttle.Reason
	for _, r := range rs {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
