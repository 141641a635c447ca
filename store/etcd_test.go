package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store/etcdtest"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// sharedEtcd is the one embedded etcd member of this test binary, started by
// the first test that needs it and stopped by TestMain; each store opened on
// it gets a prefix of its own.
type sharedEtcd struct {
	once      sync.Once
	endpoints []string
	stop      func()
	err       error
	n         atomic.Int64
}

func (s *sharedEtcd) get() ([]string, error) {
	s.once.Do(func() { s.endpoints, s.stop, s.err = etcdtest.Shared() })
	return s.endpoints, s.err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if etcdMember.stop != nil {
		etcdMember.stop()
	}
	os.Exit(code)
}

// etcdMember is test-only state shared by the tests of this package.
var etcdMember sharedEtcd

// testDial is how long a test's Open waits for etcd's first answer, and
// each of its requests for etcd's: on a starved CI machine (load 20-26 on
// 2 cores, the race detector on) the 5 s defaults ran out before the local
// member answered. A member that is really gone still fails the test, a
// minute later; the tests of timeouts set their own.
const testDial = time.Minute

// openEtcdTemp opens a store on the shared etcd member under a fresh prefix,
// closed when the test ends.
func openEtcdTemp(t testing.TB) *DB {
	t.Helper()
	eps, err := etcdMember.get()
	if err != nil {
		t.Fatalf("etcd: %v", err)
	}
	db, err := Open(Options{Etcd: &EtcdOptions{Endpoints: eps, Prefix: fmt.Sprintf("t%d/", etcdMember.n.Add(1)), DialTimeout: testDial, RequestTimeout: testDial}})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	closeAtEnd(t, db)
	return db
}

// etcdClient returns a client of the shared member, closed when the test ends.
func etcdClient(t testing.TB) *clientv3.Client {
	t.Helper()
	eps, err := etcdMember.get()
	if err != nil {
		t.Fatalf("etcd: %v", err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: testDial})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// openEtcdPair opens two stores on the same prefix of the shared member: two
// front-ends of one cluster.
func openEtcdPair(t *testing.T) (a, b *DB) {
	t.Helper()
	eps, err := etcdMember.get()
	if err != nil {
		t.Fatalf("etcd: %v", err)
	}
	prefix := fmt.Sprintf("pair%d/", etcdMember.n.Add(1))
	for _, db := range []**DB{&a, &b} {
		*db, err = Open(Options{Etcd: &EtcdOptions{Endpoints: eps, Prefix: prefix, DialTimeout: testDial, RequestTimeout: testDial}})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		closeAtEnd(t, *db)
	}
	return a, b
}

// TestEtcdTwoFrontEnds: concurrent read-modify-writes through two stores on
// one etcd conflict, are re-run, and lose no increment; each sees the
// other's commits as soon as they are acknowledged.
func TestEtcdTwoFrontEnds(t *testing.T) {
	a, b := openEtcdPair(t)
	withSpace(t, a, "t")
	mustView(t, b, func(tx *Tx) error {
		if tx.Space("t") == nil {
			t.Errorf("space created through a is missing through b")
		}
		return nil
	})
	const workers, perWorker = 8, 10
	key := []byte("counter")
	var wg sync.WaitGroup
	for w := range workers {
		db := []*DB{a, b}[w%2]
		wg.Go(func() {
			for range perWorker {
				err := db.Update(context.Background(), func(tx *Tx) error {
					sp := tx.Space("t")
					var n uint64
					if v := sp.Get(key); v != nil {
						n = binary.BigEndian.Uint64(v)
					}
					if _, err := sp.AppendLog(key); err != nil {
						return err
					}
					return sp.Put(key, binary.BigEndian.AppendUint64(nil, n+1))
				})
				if err != nil {
					t.Errorf("Update: %v", err)
				}
			}
		})
	}
	wg.Wait()
	for name, db := range map[string]*DB{"a": a, "b": b} {
		mustView(t, db, func(tx *Tx) error {
			sp := tx.Space("t")
			if got, want := binary.BigEndian.Uint64(sp.Get(key)), uint64(workers*perWorker); got != want {
				t.Errorf("%s: counter = %d, want %d", name, got, want)
			}
			if got, want := sp.LastLogSeq(), uint64(workers*perWorker); got != want {
				t.Errorf("%s: last log seq = %d, want %d", name, got, want)
			}
			return nil
		})
	}
}

// TestEtcdRangeConflict: a write transaction that read a range fails its
// compare when another store inserts into that range, and is re-run.
func TestEtcdRangeConflict(t *testing.T) {
	a, b := openEtcdPair(t)
	withSpace(t, a, "t", "k1")
	runs := 0
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Update(context.Background(), func(tx *Tx) error {
			runs++
			n := 0
			sp := tx.Space("t")
			_ = sp.Ascend(nil, nil, func(k, v []byte) bool { n++; return true })
			if runs == 1 {
				close(started)
				<-release
			}
			return sp.Put([]byte("count"), []byte(strconv.Itoa(n)))
		})
	}()
	<-started
	mustUpdate(t, b, func(tx *Tx) error { return tx.Space("t").Put([]byte("k2"), []byte("v")) })
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got, want := runs, 2; got != want {
		t.Errorf("runs = %d, want %d", got, want)
	}
	mustView(t, b, func(tx *Tx) error {
		if got, want := string(tx.Space("t").Get([]byte("count"))), "2"; got != want {
			t.Errorf("count = %q, want %q (the insert through b was missed)", got, want)
		}
		return nil
	})
}

// waitUntil polls cond every few milliseconds for up to 20 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestOwnershipLocal: over an in-process engine the process owns everything
// and fencing is free.
func TestOwnershipLocal(t *testing.T) {
	db := openMem(t)
	o := db.Own("x")
	defer o.Close()
	if !o.Held() {
		t.Fatalf("Held = false over the memory engine")
	}
	withSpace(t, db, "t")
	mustUpdate(t, db, func(tx *Tx) error {
		if err := o.Fence(tx); err != nil {
			return err
		}
		return tx.Space("t").Put([]byte("k"), []byte("v"))
	})
}

// TestOwnershipFailover: one of two stores owns a name; when its lease ends
// the other takes over, and the deposed owner's fenced transaction, begun
// while it owned the work, fails its compare and then gets ErrNotOwner.
func TestOwnershipFailover(t *testing.T) {
	a, b := openEtcdPair(t)
	withSpace(t, a, "t")
	oa := a.Own("table-x")
	defer oa.Close()
	waitUntil(t, "a to own table-x", oa.Held)
	ob := b.Own("table-x")
	defer ob.Close()
	time.Sleep(50 * time.Millisecond)
	if ob.Held() {
		t.Fatalf("both own table-x")
	}

	fenced := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	runs := 0
	go func() {
		done <- a.Update(context.Background(), func(tx *Tx) error {
			runs++
			if err := oa.Fence(tx); err != nil {
				return err
			}
			if runs == 1 {
				close(fenced)
				<-release
			}
			return tx.Space("t").Put([]byte("by"), []byte("a"))
		})
	}()
	<-fenced
	// a's lease ends (as when a is cut off from etcd): b is elected.
	cli := etcdClient(t)
	oa.mu.Lock()
	key := oa.key
	oa.mu.Unlock()
	resp, err := cli.Get(context.Background(), key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("election key %q: %v %v", key, resp, err)
	}
	if _, err := cli.Revoke(context.Background(), clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "b to own table-x", ob.Held)
	mustUpdate(t, b, func(tx *Tx) error {
		if err := ob.Fence(tx); err != nil {
			return err
		}
		return tx.Space("t").Put([]byte("by"), []byte("b"))
	})
	close(release)
	if err := <-done; !errors.Is(err, ErrNotOwner) {
		t.Fatalf("deposed owner's Update = %v, want ErrNotOwner", err)
	}
	mustView(t, a, func(tx *Tx) error {
		if got, want := string(tx.Space("t").Get([]byte("by"))), "b"; got != want {
			t.Errorf("by = %q, want %q: the deposed owner's write landed", got, want)
		}
		return nil
	})
	// a learns it lost the lease, and campaigns again behind b.
	waitUntil(t, "a to see it lost table-x", func() bool { return !oa.Held() })
}

// TestCompactor: the compactor compacts etcd's history, but never the
// History most recent of it, and the store works on.
func TestCompactor(t *testing.T) {
	db := openEtcdTemp(t)
	withSpace(t, db, "t", "a")
	cli := etcdClient(t)
	first, err := cli.Get(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		db.RunCompactor(ctx, CompactOptions{Every: 10 * time.Millisecond, History: 200 * time.Millisecond})
		close(done)
	}()
	defer func() { cancel(); <-done }()
	waitUntil(t, "the history before the compactor started to be compacted", func() bool {
		_, err := cli.Get(context.Background(), "x", clientv3.WithRev(first.Header.Revision))
		return errors.Is(err, rpctypes.ErrCompacted)
	})
	for range 20 {
		mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").Put([]byte("b"), []byte("v")) })
		recent, err := cli.Get(context.Background(), "x")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Get(context.Background(), "x", clientv3.WithRev(recent.Header.Revision)); err != nil {
			t.Fatalf("the revision just read was compacted: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEtcdUnreachable: Open gives up after the dial timeout, naming the
// endpoints, when nothing answers.
func TestEtcdUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nobody listens there now
	start := time.Now()
	_, err = Open(Options{Etcd: &EtcdOptions{Endpoints: []string{addr}, DialTimeout: 300 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "etcd at "+addr+": no answer within 300ms") {
		t.Errorf("Open = %v, want no answer from %s", err, addr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Open took %s with a 300ms dial timeout", took)
	}
}
