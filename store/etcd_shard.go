package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// Counter shards. Every write adds to its table's item and byte counters in
// its own transaction; were they one key, two front-ends writing to one
// table would conflict on it with every commit, and their batches would
// re-run in turn. Over etcd each process therefore adds to a shard of its
// own (meta.go: statsKey followed by the shard), and Stats sums them. A
// shard is a slot number claimed at Open under a lease the process keeps
// alive, the lowest no live process holds, so that a restarted front-end
// takes over a departed one's shard rather than adding another: the
// number of shards stays the largest number of front-ends that ran at
// once. The claim only spreads the writers: two processes on one slot (a
// claim whose lease ran out while its process was paused) stay exact,
// since each commit compares the shard it read, and only conflict again.

// shardTTL is the lease of a shard's claim: how long after a process dies
// its slot stays taken.
const shardTTL = 30 // seconds

// shardAttempts bounds how many slots Open tries to claim when other
// processes claim at the same time.
const shardAttempts = 8

// errNoShard is returned by claimShard when every slot it tried was taken
// by another process first.
var errNoShard = errors.New("store: no counter shard could be claimed")

// claimShard claims the lowest free slot under a new session kept alive
// until life ends or the session is closed (resign), each request bounded
// by timeout, and returns the slot's suffix of the counters' key ("\x00"
// and the slot) and the session.
func claimShard(life context.Context, cli *clientv3.Client, prefix string, timeout time.Duration) (string, *concurrency.Session, error) {
	ctx, cancel := context.WithTimeout(life, timeout*shardAttempts)
	defer cancel()
	lease, err := cli.Grant(ctx, shardTTL)
	if err != nil {
		return "", nil, err
	}
	s, err := concurrency.NewSession(cli, concurrency.WithLease(lease.ID), concurrency.WithTTL(shardTTL), concurrency.WithContext(life))
	if err != nil {
		_, _ = cli.Revoke(ctx, lease.ID)
		return "", nil, err
	}
	pre := prefix + "n"
	for range shardAttempts {
		resp, err := cli.Get(ctx, pre, clientv3.WithPrefix(), clientv3.WithKeysOnly())
		if err != nil {
			resign(cli, s)
			return "", nil, err
		}
		taken := map[string]bool{}
		for _, kv := range resp.Kvs {
			taken[string(kv.Key[len(pre):])] = true
		}
		slot := 0
		for taken[strconv.Itoa(slot)] {
			slot++
		}
		key := pre + strconv.Itoa(slot)
		tr, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, "", clientv3.WithLease(s.Lease()))).Commit()
		if err != nil {
			resign(cli, s)
			return "", nil, err
		}
		if tr.Succeeded {
			return "\x00" + strconv.Itoa(slot), s, nil
		}
	}
	resign(cli, s)
	return "", nil, errNoShard
}

// releaseShard ends the shard's session and revokes its lease, so that the
// next process to open takes the slot; when etcd does not answer within a
// request's timeout, the claim expires by itself (shardTTL).
func (e *etcdEngine) releaseShard() {
	e.shardSession.Orphan()
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	_, _ = e.cli.Revoke(ctx, e.shardSession.Lease())
}
