package store

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestPrefetchSameReads: a transaction that prefetches reads what one that
// does not reads (present, empty and absent keys, metadata, counters, the
// log's sequence, keys named twice or by two spaces), on every engine, and
// writes that follow see it as well.
func TestPrefetchSameReads(t *testing.T) {
	forEngines(t, func(t *testing.T, open func(testing.TB) *DB) {
		db := open(t)
		withSpace(t, db, "a", "k1", "k2")
		withSpace(t, db, "b", "k1")
		mustUpdate(t, db, func(tx *Tx) error {
			sp := tx.Space("a")
			if err := sp.Put([]byte("empty"), nil); err != nil {
				return err
			}
			if err := sp.PutMeta("m", []byte("meta")); err != nil {
				return err
			}
			if _, err := sp.AppendLog([]byte("r")); err != nil {
				return err
			}
			return sp.AddStats(3, 30)
		})
		ps := []Prefetch{
			{Space: "a", Keys: [][]byte{[]byte("k1"), []byte("empty"), []byte("none")}, Meta: []string{"m", "gone"}, Write: true},
			{Space: "a", Keys: [][]byte{[]byte("k1")}},
			{Space: "b", Keys: [][]byte{[]byte("k1")}},
			{Space: "missing", Keys: [][]byte{[]byte("k1")}},
		}
		read := func(tx *Tx) string {
			sp, spb := tx.Space("a"), tx.Space("b")
			items, size := sp.Stats()
			return fmt.Sprintf("%q %q %v %q %q %q %d %d/%d %q %v", sp.Get([]byte("k1")), sp.Get([]byte("empty")), sp.Get([]byte("empty")) == nil,
				sp.Get([]byte("none")), sp.GetMeta("m"), sp.GetMeta("gone"), sp.LastLogSeq(), items, size, spb.Get([]byte("k1")), tx.Space("missing") == nil)
		}
		var plain, fetched string
		mustView(t, db, func(tx *Tx) error { plain = read(tx); return nil })
		mustView(t, db, func(tx *Tx) error { tx.Prefetch(ps...); fetched = read(tx); return nil })
		if fetched != plain {
			t.Errorf("read after Prefetch: %s\nwithout: %s", fetched, plain)
		}
		want := `"k1" "" false "" "meta" "" 1 3/30 "k1" true`
		if plain != want {
			t.Errorf("read %s, want %s", plain, want)
		}
		// A write transaction reads the same and its writes are kept.
		err := db.UpdatePrefetch(context.Background(), ps, func(tx *Tx) error {
			if got := read(tx); got != plain {
				t.Errorf("read in UpdatePrefetch: %s, want %s", got, plain)
			}
			sp := tx.Space("a")
			if _, err := sp.AppendLog([]byte("r2")); err != nil {
				return err
			}
			if err := sp.Put([]byte("none"), []byte("now")); err != nil {
				return err
			}
			return sp.AddStats(1, 3)
		})
		if err != nil {
			t.Fatal(err)
		}
		mustView(t, db, func(tx *Tx) error {
			sp := tx.Space("a")
			items, size := sp.Stats()
			if got := fmt.Sprintf("%q %d %d/%d", sp.Get([]byte("none")), sp.LastLogSeq(), items, size); got != `"now" 2 4/33` {
				t.Errorf("after the write: %s", got)
			}
			return nil
		})
	})
}

// countingKV counts the range requests and transactions sent through it.
type countingKV struct {
	clientv3.KV
	gets, txns atomic.Int64
}

func (c *countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	c.gets.Add(1)
	return c.KV.Get(ctx, key, opts...)
}

func (c *countingKV) Txn(ctx context.Context) clientv3.Txn {
	c.txns.Add(1)
	return c.KV.Txn(ctx)
}

// openEtcdCounting opens a store on the shared member under prefix whose
// requests kv counts, without a local copy (whose load and confirmations
// would count too); it waits for the limits' probe, so that the counts
// are the test's own.
func openEtcdCounting(t *testing.T, prefix string) (*DB, *countingKV) {
	t.Helper()
	db, kv := openEtcdCountingMirrored(t, prefix)
	db.eng.(*etcdEngine).mirror = nil
	return db, kv
}

// openEtcdCountingMirrored is openEtcdCounting with the local copy kept.
func openEtcdCountingMirrored(t *testing.T, prefix string) (*DB, *countingKV) {
	t.Helper()
	cli := etcdClient(t)
	kv := &countingKV{KV: cli.KV}
	cli.KV = kv
	db, err := Open(Options{Etcd: &EtcdOptions{Client: cli, Prefix: prefix, DialTimeout: testDial, RequestTimeout: testDial}})
	if err != nil {
		t.Fatal(err)
	}
	closeAtEnd(t, db)
	<-db.eng.(*etcdEngine).probed
	return db, kv
}

// TestEtcdPrefetchRequests: over etcd, a keyed read that prefetches is one
// request where it was two (the space's marker, then the item), and a
// front-end's concurrent writes that name what they read fetch it with
// the batch, reading nothing one key at a time; their counters stay exact.
func TestEtcdPrefetchRequests(t *testing.T) {
	db, kv := openEtcdCounting(t, fmt.Sprintf("pf%d/", etcdMember.n.Add(1)))
	withSpace(t, db, "t", "k")
	for _, prefetch := range []bool{false, true} {
		gets, txns := kv.gets.Load(), kv.txns.Load()
		mustView(t, db, func(tx *Tx) error {
			if prefetch {
				tx.Prefetch(Prefetch{Space: "t", Keys: [][]byte{[]byte("k")}})
			}
			if got := tx.Space("t").Get([]byte("k")); string(got) != "k" {
				t.Errorf("Get = %q", got)
			}
			return nil
		})
		want := int64(2)
		if prefetch {
			want = 1
		}
		if n := kv.gets.Load() - gets + kv.txns.Load() - txns; n != want {
			t.Errorf("prefetch %v: %d requests, want %d", prefetch, n, want)
		}
	}

	gets := kv.gets.Load()
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				k := []byte(fmt.Sprint("w", w, "/", i))
				ps := []Prefetch{{Space: "t", Keys: [][]byte{k}, Meta: []string{"log"}, Write: true}}
				err := db.UpdatePrefetch(context.Background(), ps, func(tx *Tx) error {
					sp := tx.Space("t")
					if sp.Get(k) != nil || sp.GetMeta("log") != nil {
						return fmt.Errorf("%s: present before its put", k)
					}
					if err := sp.Put(k, k); err != nil {
						return err
					}
					if _, err := sp.AppendLog(k); err != nil {
						return err
					}
					return sp.AddStats(1, int64(len(k)))
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := kv.gets.Load() - gets; n != 0 {
		t.Errorf("the writes sent %d single reads, want none", n)
	}
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if items, _ := sp.Stats(); items != writers*each || sp.LastLogSeq() != writers*each {
			t.Errorf("Stats items %d, log %d: want %d", items, sp.LastLogSeq(), writers*each)
		}
		return nil
	})
}

// TestEtcdPrefetchChunks: keys beyond one etcd transaction's
// --max-txn-ops are fetched in several transactions, at one revision, and
// every one is then read without a request of its own.
func TestEtcdPrefetchChunks(t *testing.T) {
	db, kv := openEtcdCounting(t, fmt.Sprintf("pfc%d/", etcdMember.n.Add(1)))
	const writers, each = 8, 10
	withSpace(t, db, "t")
	mustUpdate(t, db, func(tx *Tx) error {
		for w := range writers {
			for i := range each {
				k := []byte(fmt.Sprint("w", w, "/", i))
				if err := tx.Space("t").Put(k, k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	e := db.eng.(*etcdEngine)
	e.limitsMu.Lock()
	saved := e.limits
	e.limits.ops = 7
	e.limitsMu.Unlock()
	defer func() { e.limitsMu.Lock(); e.limits = saved; e.limitsMu.Unlock() }()
	var keys [][]byte
	for w := range writers {
		for i := range each {
			keys = append(keys, []byte(fmt.Sprint("w", w, "/", i)))
		}
	}
	gets, txns := kv.gets.Load(), kv.txns.Load()
	mustView(t, db, func(tx *Tx) error {
		tx.Prefetch(Prefetch{Space: "t", Keys: keys})
		sp := tx.Space("t")
		for _, k := range keys {
			if got := sp.Get(k); !bytes.Equal(got, k) {
				t.Errorf("Get(%s) = %q", k, got)
			}
		}
		return nil
	})
	if n := kv.gets.Load() - gets; n != 0 {
		t.Errorf("reading %d prefetched keys sent %d single reads, want none", len(keys), n)
	}
	if n, want := kv.txns.Load()-txns, int64((len(keys)+1+6)/7); n != want {
		t.Errorf("fetching %d keys and the marker, 7 to a transaction, took %d transactions, want %d", len(keys), n, want)
	}
}

// TestEtcdPrefetchConflict: a prefetched key that another front-end
// changes before the commit makes the commit conflict and the function run
// again on the new value (a read-modify-write loses nothing); a key
// prefetched but not read is not compared, and its change conflicts with
// nothing.
func TestEtcdPrefetchConflict(t *testing.T) {
	a, b := openEtcdPair(t)
	withSpace(t, a, "t", "read", "unread")
	ps := []Prefetch{{Space: "t", Keys: [][]byte{[]byte("read"), []byte("unread")}, Write: true}}
	for _, changed := range []string{"read", "unread"} {
		runs := 0
		err := a.UpdatePrefetch(context.Background(), ps, func(tx *Tx) error {
			runs++
			sp := tx.Space("t")
			v := sp.Get([]byte("read"))
			if runs == 1 {
				mustUpdate(t, b, func(tx *Tx) error { return tx.Space("t").Put([]byte(changed), []byte(changed+"+b")) })
			}
			return sp.Put([]byte("read"), append(bytes.Clone(v), "+a"...))
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"read": 2, "unread": 1}[changed]
		if runs != want {
			t.Errorf("%s changed by the other front-end: fn ran %d times, want %d", changed, runs, want)
		}
	}
	mustView(t, b, func(tx *Tx) error {
		if got := string(tx.Space("t").Get([]byte("read"))); got != "read+b+a+a" {
			t.Errorf("read = %q, want read+b+a+a", got)
		}
		return nil
	})
}
