package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// countConflicts makes db's commits count those that failed their
// compares (a conflict with another process's commit) in n.
func countConflicts(db *DB, n *atomic.Int64) {
	e := db.eng.(*etcdEngine)
	e.commitHook = func(ctx context.Context, cmps []clientv3.Cmp, ops []clientv3.Op) (*clientv3.TxnResponse, error) {
		resp, err := e.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
		if err == nil && !resp.Succeeded {
			n.Add(1)
		}
		return resp, err
	}
}

// TestEtcdCounterShards: two front-ends writing to one space at once add
// to counter shards of their own, so their commits never conflict, and
// both read the exact sum.
func TestEtcdCounterShards(t *testing.T) {
	a, b := openEtcdPair(t)
	sa, sb := a.eng.(*etcdEngine).shard, b.eng.(*etcdEngine).shard
	if sa == sb || sa == "" || sb == "" {
		t.Fatalf("shards %q and %q: want two different ones", sa, sb)
	}
	withSpace(t, a, "t")
	var conflicts atomic.Int64
	countConflicts(a, &conflicts)
	countConflicts(b, &conflicts)
	const workers, perWorker = 4, 25
	var wg sync.WaitGroup
	for w := range workers {
		db := []*DB{a, b}[w%2]
		wg.Go(func() {
			for i := range perWorker {
				k := []byte(fmt.Sprint(w, "/", i))
				err := db.Update(context.Background(), func(tx *Tx) error {
					sp := tx.Space("t")
					if err := sp.Put(k, k); err != nil {
						return err
					}
					return sp.AddStats(1, int64(len(k)))
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := conflicts.Load(); n != 0 {
		t.Errorf("%d commits conflicted, want none", n)
	}
	var wantBytes int64
	for w := range workers {
		for i := range perWorker {
			wantBytes += int64(len(fmt.Sprint(w, "/", i)))
		}
	}
	for _, db := range []*DB{a, b} {
		mustView(t, db, func(tx *Tx) error {
			if items, bytes := tx.Space("t").Stats(); items != workers*perWorker || bytes != wantBytes {
				t.Errorf("Stats() = (%d, %d), want (%d, %d)", items, bytes, workers*perWorker, wantBytes)
			}
			return nil
		})
	}
}

// TestEtcdCounterShardReused: a store closed gives its shard up, and the
// next one opened on the prefix takes it, so that restarts do not add
// shards; a counters key written before shards existed still counts.
func TestEtcdCounterShardReused(t *testing.T) {
	eps, err := etcdMember.get()
	if err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("reuse%d/", etcdMember.n.Add(1))
	open := func() *DB {
		db, err := Open(Options{Etcd: &EtcdOptions{Endpoints: eps, Prefix: prefix, DialTimeout: testDial, RequestTimeout: testDial}})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	first := open()
	withSpace(t, first, "t")
	mustUpdate(t, first, func(tx *Tx) error { return tx.Space("t").AddStats(2, 20) })
	shard := first.eng.(*etcdEngine).shard
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	// The single key of a store written before counters were sharded.
	old := make([]byte, 16)
	old[7], old[15] = 5, 50
	if _, err := etcdClient(t).Put(context.Background(), prefix+"st\x00"+"2"+statsKey, string(old)); err != nil {
		t.Fatal(err)
	}
	second := open()
	closeAtEnd(t, second)
	if got := second.eng.(*etcdEngine).shard; got != shard {
		t.Errorf("shard after a restart = %q, want the released %q", got, shard)
	}
	mustUpdate(t, second, func(tx *Tx) error { return tx.Space("t").AddStats(1, 1) })
	mustView(t, second, func(tx *Tx) error {
		if items, bytes := tx.Space("t").Stats(); items != 8 || bytes != 71 {
			t.Errorf("Stats() = (%d, %d), want (8, 71)", items, bytes)
		}
		return nil
	})
}
