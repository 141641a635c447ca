package store

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BenchmarkEtcd measures cluster mode's ceiling on this machine against
// the package's embedded etcd member (one member, as in the cluster tests):
//
//	go test -run XXX -bench Etcd -benchtime 5s ./store/
//
// txn is etcd's own figure for transactions the size of a PutItem's commit
// (compares on the item and the table's counters, puts of a 250-byte item,
// the 16-byte counters and a commit marker), each client on its own keys so
// that none conflicts; get is single-key reads; getitem is a GetItem's
// View (the space's marker, then the item: two reads) and getitem-prefetch
// the same naming them first (one etcd request). put-1 is DB.Update of a
// PutItem-shaped transaction (read the item and the counters, write both)
// from one DB, a front-end's group commit; put-2 splits the same clients
// over two DBs on one prefix, two front-ends (each adding to a counter
// shard of its own); the -prefetch variants name what each write reads
// (UpdatePrefetch), so that a batch fetches it in one request. 16 clients
// each (RunParallel at parallelism 8 on 2 cores); ops/s is the figure to
// read.
func BenchmarkEtcd(b *testing.B) {
	eps, err := etcdMember.get()
	if err != nil {
		b.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: testDial})
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	val := strings.Repeat("v", 250)
	var run atomic.Int64
	b.Run("txn", func(b *testing.B) {
		p := fmt.Sprintf("bench%d/", run.Add(1))
		var ids atomic.Int64
		parallel(b, func(pb *testing.PB) {
			id := ids.Add(1)
			item, stats := fmt.Sprint(p, "s/item", id), fmt.Sprint(p, "s/stats", id)
			var last int64
			for n := 0; pb.Next(); n++ {
				resp, err := cli.Txn(context.Background()).
					If(clientv3.Compare(clientv3.ModRevision(item), "=", last), clientv3.Compare(clientv3.ModRevision(stats), "=", last),
						clientv3.Compare(clientv3.CreateRevision(fmt.Sprint(p, "x", id, "/", n)), "=", 0)).
					Then(clientv3.OpPut(item, val), clientv3.OpPut(stats, "0123456789abcdef"), clientv3.OpPut(fmt.Sprint(p, "x", id, "/", n), "")).Commit()
				if err != nil || !resp.Succeeded {
					b.Errorf("txn: %v %v", resp, err)
					return
				}
				last = resp.Header.Revision
			}
		})
	})
	b.Run("get", func(b *testing.B) {
		if _, err := cli.Put(context.Background(), "bench/get", val); err != nil {
			b.Fatal(err)
		}
		parallel(b, func(pb *testing.PB) {
			for pb.Next() {
				if _, err := cli.Get(context.Background(), "bench/get"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	for _, prefetch := range []bool{false, true} {
		name := map[bool]string{false: "", true: "-prefetch"}[prefetch]
		b.Run("getitem"+name, func(b *testing.B) { benchEtcdGets(b, eps, fmt.Sprintf("bench%d/", run.Add(1)), prefetch, val) })
		for _, dbs := range []int{1, 2} {
			b.Run(fmt.Sprintf("put-%d%s", dbs, name), func(b *testing.B) {
				benchEtcdPuts(b, eps, fmt.Sprintf("bench%d/", run.Add(1)), dbs, prefetch, val)
			})
		}
	}
}

// benchEtcdGets runs GetItem-shaped reads (the space's marker, then an
// item) from 16 clients over one DB, naming them first when prefetch.
func benchEtcdGets(b *testing.B, eps []string, p string, prefetch bool, val string) {
	db, err := Open(Options{Etcd: &EtcdOptions{Endpoints: eps, Prefix: p, DialTimeout: testDial, RequestTimeout: testDial}})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	err = db.Update(context.Background(), func(tx *Tx) error {
		if err := tx.CreateSpace("t"); err != nil {
			return err
		}
		return tx.Space("t").Put([]byte("k"), []byte(val))
	})
	if err != nil {
		b.Fatal(err)
	}
	k := []byte("k")
	parallel(b, func(pb *testing.PB) {
		for pb.Next() {
			err := db.View(func(tx *Tx) error {
				if prefetch {
					tx.Prefetch(Prefetch{Space: "t", Keys: [][]byte{k}})
				}
				if tx.Space("t").Get(k) == nil {
					return fmt.Errorf("no item")
				}
				return nil
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchEtcdPuts runs PutItem-shaped transactions from 16 clients spread
// over n DBs on prefix p.
func benchEtcdPuts(b *testing.B, eps []string, p string, n int, prefetch bool, val string) {
	var dbs []*DB
	for range n {
		db, err := Open(Options{Etcd: &EtcdOptions{Endpoints: eps, Prefix: p, DialTimeout: testDial, RequestTimeout: testDial}})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	if err := dbs[0].Update(context.Background(), func(tx *Tx) error { return tx.CreateSpace("t") }); err != nil {
		b.Fatal(err)
	}
	var ids atomic.Int64
	parallel(b, func(pb *testing.PB) {
		id := ids.Add(1)
		db := dbs[int(id)%n]
		for i := 0; pb.Next(); i++ {
			k := []byte(fmt.Sprint(id, "/", i))
			var ps []Prefetch
			if prefetch {
				ps = []Prefetch{{Space: "t", Keys: [][]byte{k}, Write: true}}
			}
			err := db.UpdatePrefetch(context.Background(), ps, func(tx *Tx) error {
				sp := tx.Space("t")
				if sp.Get(k) != nil {
					return nil
				}
				if err := sp.Put(k, []byte(val)); err != nil {
					return err
				}
				return sp.AddStats(1, int64(len(val)))
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// parallel runs body from 16 goroutines (8 per core on this machine's 2)
// and reports operations per second.
func parallel(b *testing.B, body func(pb *testing.PB)) {
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(body)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
