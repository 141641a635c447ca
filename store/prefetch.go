package store

import "context"

// Prefetch names what a transaction is about to read of one space, so that
// a store over etcd can fetch it all in one request at the transaction's
// snapshot instead of one round trip per key as the reads come. The
// reads themselves are unchanged: a key read is still compared at commit
// (and only a key read is), and a key not named is fetched when read.
// Over the in-process engines a Prefetch is never used.
type Prefetch struct {
	Space string   // the space; its marker (does it exist) is always fetched
	Keys  [][]byte // data keys (Get, Put's and Swap's old values)
	Meta  []string // metadata names (GetMeta)
	// Write: also this process's shard of the space's counters (AddStats)
	// and the change log's sequence (AppendLog), which a write reads.
	Write bool
}

// Prefetch fetches, over etcd, what ps name in one request, when tx has not
// read anything yet (the request fixes its snapshot); later reads of those
// keys through tx are served from it. Over the in-process engines, or once
// tx has read, it does nothing (their reads cost no round trip). A failed
// fetch is not an error: the reads then go to etcd one by one as before.
func (tx *Tx) Prefetch(ps ...Prefetch) {
	if tx.done {
		return
	}
	if t, ok := tx.t.(*etcdTxn); ok {
		t.prefetch(ps)
	}
}

// UpdatePrefetch is Update for a fn that will read what ps name: over
// etcd, the committer fetches what every call of a batch names in one
// request before running them, so that a batch of writes costs two round
// trips (that fetch and the commit) rather than one per item read. Over the
// in-process engines it is Update.
func (db *DB) UpdatePrefetch(ctx context.Context, ps []Prefetch, fn func(tx *Tx) error) error {
	if !db.optimistic {
		ps = nil
	}
	return db.update(ctx, ps, fn)
}

// batchPrefetch returns what the calls of live name, in order.
func batchPrefetch(live []*request) []Prefetch {
	n := 0
	for _, r := range live {
		n += len(r.pre)
	}
	if n == 0 {
		return nil
	}
	ps := make([]Prefetch, 0, n)
	for _, r := range live {
		ps = append(ps, r.pre...)
	}
	return ps
}
