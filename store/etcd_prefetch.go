package store

import (
	"context"
	"errors"
	"sync"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Prefetching over etcd (prefetch.go). The keys a transaction is about to
// read are fetched as one etcd transaction of range requests, which is
// linearizable as a single Get is and fixes the transaction's snapshot;
// what it returns is kept in etcdTxn.pre, and getKey serves a key from
// there the first time it is read, recording its mod revision for the
// commit's compares as a read from etcd would. A key fetched but never read
// is not compared. A batch naming more keys than one etcd transaction may
// hold is fetched in several, the first fixing the revision and the others
// reading at it in parallel (serializable, as later reads of a transaction
// are: etcd_engine.go's fetch).

// prefetchOps is how many range requests one prefetch transaction holds
// when the cluster's --max-txn-ops is not known yet: etcd's default.
const prefetchOps = 128

// prefetch fetches what ps name, when t has not read yet; see Tx.Prefetch.
func (t *etcdTxn) prefetch(ps []Prefetch) {
	if t.rev != 0 || t.err != nil || t.finished || len(ps) == 0 {
		return
	}
	keys := t.prefetchKeys(ps)
	n := t.e.currentLimits().ops
	if n == 0 {
		n = prefetchOps
	}
	first := keys[:min(n, len(keys))]
	resp, err := t.getAll(first, 0)
	if err != nil {
		return
	}
	rev := resp.Header.Revision
	resps := []*clientv3.TxnResponse{resp}
	if rest := keys[len(first):]; len(rest) > 0 {
		more, err := t.getChunks(rest, n, rev)
		if err != nil {
			return
		}
		resps = append(resps, more...)
	}
	t.rev = rev
	if t.pre == nil {
		t.pre = make(map[string]kv, len(keys))
	}
	for _, k := range keys {
		t.pre[k] = kv{key: k} // absent unless a response has it
	}
	for _, r := range resps {
		for _, op := range r.Responses {
			for _, x := range op.GetResponseRange().GetKvs() {
				v := x.Value
				if v == nil {
					v = []byte{}
				}
				t.pre[string(x.Key)] = kv{key: string(x.Key), val: v, mod: x.ModRevision, create: x.CreateRevision}
			}
		}
	}
}

// prefetchKeys returns the full etcd keys ps name, each once, in order.
func (t *etcdTxn) prefetchKeys(ps []Prefetch) []string {
	var keys []string
	dup := map[string]bool{}
	add := func(k string) {
		if !dup[k] {
			dup[k] = true
			keys = append(keys, k)
		}
	}
	for _, p := range ps {
		add(t.markerKey(p.Space))
		data := t.dataPrefix(p.Space) + string(rune('0'+subData))
		meta := t.dataPrefix(p.Space) + string(rune('0'+subMeta))
		if p.Write {
			add(meta + statsKey + t.e.shard)
			add(t.e.prefix + "q" + p.Space)
		}
		for _, name := range p.Meta {
			add(meta + metaPrefix + name)
		}
		for _, k := range p.Keys {
			add(data + string(k))
		}
	}
	return keys
}

// getAll reads keys in one etcd transaction: linearizably when rev is 0,
// else at rev, served by the member from its own copy (and linearizably
// when that member has not reached rev).
func (t *etcdTxn) getAll(keys []string, rev int64) (*clientv3.TxnResponse, error) {
	ctx, cancel := context.WithTimeout(t.e.ctx, t.e.timeout)
	defer cancel()
	ops := make([]clientv3.Op, len(keys))
	if rev != 0 {
		for i, k := range keys {
			ops[i] = clientv3.OpGet(k, clientv3.WithRev(rev), clientv3.WithSerializable())
		}
		resp, err := t.e.cli.Txn(ctx).Then(ops...).Commit()
		if !errors.Is(err, rpctypes.ErrFutureRev) {
			return resp, err
		}
	}
	for i, k := range keys {
		if rev != 0 {
			ops[i] = clientv3.OpGet(k, clientv3.WithRev(rev))
		} else {
			ops[i] = clientv3.OpGet(k)
		}
	}
	return t.e.cli.Txn(ctx).Then(ops...).Commit()
}

// getChunks reads keys at rev in transactions of at most n range requests
// each, in parallel, returning their responses or the first error.
func (t *etcdTxn) getChunks(keys []string, n int, rev int64) ([]*clientv3.TxnResponse, error) {
	var chunks [][]string
	for len(keys) > 0 {
		c := keys[:min(n, len(keys))]
		chunks = append(chunks, c)
		keys = keys[len(c):]
	}
	resps := make([]*clientv3.TxnResponse, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i], errs[i] = t.getAll(c, rev)
		}()
	}
	wg.Wait()
	return resps, errors.Join(errs...)
}
