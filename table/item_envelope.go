package table

import (
	"context"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
)

// The write envelope: what every write does besides writing, as the read
// envelope (read_envelope.go) is for reads. A write operation begins
// (beginWrite: each mutation learns whether its table keeps a change log
// and how it is admitted, and the items of MRSC tables are claimed), runs
// in one store transaction (runWrite: the claims the cluster's other
// front-ends must see, then the operation's body, which applies each
// mutation through applyOne), and finishes (finishWrite: appliers told,
// insights, claims released once replicated). Throttle admission happens
// inside the transaction, on the old item the write reads there, so that
// a write reads and decodes its old item once. PutItem, UpdateItem,
// DeleteItem, BatchWriteItem, TransactWriteItems, Time to Live deletions
// and loads (imports, bulk puts) all take this path; a new cross-cutting
// concern of writes goes here, not into the operations.

// writeKind says how a write operation is admitted and recorded.
type writeKind int

const (
	// writeItems is PutItem, UpdateItem, DeleteItem and BatchWriteItem:
	// admitted at their units, recorded for insights, MRSC items claimed.
	writeItems writeKind = iota
	// writeTransaction is TransactWriteItems: admitted at twice its units,
	// recorded as transactional.
	writeTransaction
	// writeService is the service's own writes (Time to Live deletions,
	// imports and bulk loads): neither admitted nor recorded, claiming
	// nothing.
	writeService
)

// writeOp is one write operation between begin and finish.
type writeOp struct {
	kind   writeKind
	muts   []*mutation
	strong *strongWrites // MRSC claims (replica_strong_rules.go); nil when none (writeService, no MRSC table)
}

// beginWrite begins a write operation of kind over muts: each mutation
// learns whether its table keeps a change log and, on a throttled table,
// gets its admission (decided later, inside the transaction); the items
// of MRSC tables are claimed in this process, or the write refused with
// ReplicatedWriteConflictException.
func (s *Service) beginWrite(kind writeKind, muts []*mutation) (writeOp, error) {
	op := writeOp{kind: kind, muts: muts}
	for _, mu := range muts {
		mu.keepLog = s.keepsLog(mu.meta)
		mu.direct = s.directIndexes(mu.meta)
		if kind != writeService && s.throttling(mu.meta) {
			mult := 1.0
			if kind == writeTransaction {
				mult = 2
			}
			mu.adm = &admission{mult: mult}
		}
	}
	if kind == writeService || !anyStrong(muts) {
		return op, nil // nothing to claim: no allocation for MRSC off
	}
	var err error
	op.strong, err = s.claimStrong(muts)
	return op, err
}

// anyStrong reports whether one of muts writes to an MRSC table, whose
// items beginWrite claims.
func anyStrong(muts []*mutation) bool {
	for _, mu := range muts {
		if mu.meta.Strong {
			return true
		}
	}
	return false
}

// runWrite runs body in op's one store transaction, after claiming op's
// MRSC items for the cluster's other front-ends; now is the write's
// instant. The store may run body more than once: it must set, not
// accumulate, what it gathers.
func (s *Service) runWrite(ctx context.Context, op writeOp, body func(tx *store.Tx, now int64) error) error {
	return s.db.UpdatePrefetch(ctx, s.writePrefetch(op.muts), func(tx *store.Tx) error {
		if err := s.claimShared(tx, op.strong); err != nil {
			return err
		}
		return body(tx, s.now().UnixNano())
	})
}

// finishWrite finishes op, whose transaction ended with err and whose
// mutations did results (in order; a refused mutation did nothing): once
// committed, each table's applier learns of its logged writes and, except
// for the service's own writes, insights record them. MRSC claims are held
// until every other replica has the write. It returns err, or replication's.
func (s *Service) finishWrite(ctx context.Context, op writeOp, results []written, err error) error {
	if err == nil {
		for i, mu := range op.muts {
			if mu.refused() {
				continue
			}
			if results[i].logged && !loggedBefore(op.muts[:i], results, mu.meta) {
				s.notifyWrite(mu.meta, results[i]) // global indexes follow from the change log
			}
			if op.kind != writeService {
				s.observeWrite(mu.meta, mu.key, results[i], op.kind == writeTransaction)
			}
		}
	}
	if op.strong == nil {
		return err
	}
	return s.finishStrong(ctx, op.strong, err)
}

// loggedBefore reports whether one of muts (results' first mutations)
// already logged a write to m: its applier has been told.
func loggedBefore(muts []*mutation, results []written, m *tableMeta) bool {
	for j, mu := range muts {
		if mu.meta.ID == m.ID && results[j].logged {
			return true
		}
	}
	return false
}

// applyOne applies mu inside tx, as mutation.applyIn does, with admission:
// its old item is read and decoded once, admitted when its table throttles,
// then written. A refused write changes nothing and returns the reasons.
func (s *Service) applyOne(tx *store.Tx, now int64, sw *spaceWrites, mu *mutation) (written, []throttle.Reason, error) {
	sp := sw.space(tx, mu.meta.ID)
	if sp == nil {
		return written{collection: -1}, nil, ddb.NotFound("")
	}
	if mu.blindIn() {
		w, err := mu.blindPut(tx, sp, sw, now)
		return w, nil, err
	}
	ld, err := s.load(sp, mu)
	if err != nil {
		return written{collection: -1}, nil, err
	}
	if reasons := s.admit(mu, &ld); reasons != nil {
		return written{collection: -1}, reasons, nil
	}
	w, err := mu.write(tx, sp, sw, now, &ld)
	return w, nil, err
}

// load reads and decodes mu's old item from sp, as every write through the
// envelope does once.
func (s *Service) load(sp *store.Space, mu *mutation) (loaded, error) {
	if s.loadSeam != nil {
		s.loadSeam(mu)
	}
	return mu.load(sp)
}

// commit runs one mutation of kind in its own store transaction, through
// the envelope: PutItem, UpdateItem and DeleteItem (writeItems), a Time to
// Live deletion (writeService).
func (s *Service) commit(ctx context.Context, kind writeKind, mu *mutation) (written, error) {
	op, err := s.beginWrite(kind, []*mutation{mu})
	if err != nil {
		return written{}, err
	}
	var w written
	err = s.runWrite(ctx, op, func(tx *store.Tx, now int64) error {
		var reasons []throttle.Reason
		var err error
		if w, reasons, err = s.applyOne(tx, now, nil, mu); reasons != nil {
			return throttleError(mu.meta, reasons)
		}
		return err
	})
	return w, s.finishWrite(ctx, op, []written{w}, err)
}
