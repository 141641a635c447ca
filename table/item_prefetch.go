package table

import "github.com/ddblocal/ddblocal/store"

// Prefetching in cluster mode. Over etcd each read of a transaction is a
// round trip, and a write reads its table's marker, log flag and counters
// and its old item one after another (a front-end's batch of writes, one
// old item per write). Naming them up front lets the store fetch them all
// in one request (store.Prefetch): a GetItem is then one etcd request, and
// a batch of writes two (the fetch and the commit). Over the in-process
// engines nothing is named, so these cost nothing there.

// writePrefetch returns what muts' transaction will read, when the store
// is shared (etcd); nil otherwise.
func (s *Service) writePrefetch(muts []*mutation) []store.Prefetch {
	if !s.db.Shared() {
		return nil
	}
	ps := make([]store.Prefetch, len(muts))
	for i, mu := range muts {
		ps[i] = store.Prefetch{Space: mu.meta.ID, Keys: [][]byte{mu.key}, Meta: []string{logMeta}, Write: true}
	}
	return ps
}

// prefetchItem asks tx, over a shared store, to fetch the item under key
// of table m, with m's marker, in one request.
func (s *Service) prefetchItem(tx *store.Tx, m *tableMeta, key []byte) {
	if s.db.Shared() {
		tx.Prefetch(store.Prefetch{Space: m.ID, Keys: [][]byte{key}})
	}
}

// prefetchBatch asks tx, over a shared store, to fetch every item a
// BatchGetItem's reqs name in one request (etcd: a few, in parallel, for
// more than one etcd transaction holds).
func (s *Service) prefetchBatch(tx *store.Tx, reqs []batchGet) {
	if !s.db.Shared() {
		return
	}
	ps := make([]store.Prefetch, len(reqs))
	for i, bg := range reqs {
		ps[i] = store.Prefetch{Space: bg.meta.ID, Keys: bg.keys}
	}
	tx.Prefetch(ps...)
}

// prefetchTransactGet asks tx, over a shared store, to fetch the items of
// a TransactGetItems in one request.
func (s *Service) prefetchTransactGet(tx *store.Tx, gets []txGet) {
	if !s.db.Shared() {
		return
	}
	ps := make([]store.Prefetch, len(gets))
	for i, g := range gets {
		ps[i] = store.Prefetch{Space: g.meta.ID, Keys: [][]byte{g.key}}
	}
	tx.Prefetch(ps...)
}

// readKeyed runs fn, the store read of keyed read r: an eventually
// consistent read of the table as it is now (no --eventual-lag) may be
// served from this front-end's local copy of a shared store
// (store.DB.ReadEventual: in cluster mode, no etcd request, staleness
// bounded); any other read is a Read.
func (s *Service) readKeyed(r keyedRead, fn func(tx *store.Tx) error) error {
	if !r.consistent && r.at == 0 {
		return s.db.ReadEventual(fn)
	}
	return s.db.Read(fn)
}
