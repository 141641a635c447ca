package store

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store/etcdtest"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestEtcdRangeDeleteConflict: a write transaction that read a range fails
// its compare when another store deletes a key it saw there, and is re-run
// (a compare on the range alone sees only the keys that still exist).
func TestEtcdRangeDeleteConflict(t *testing.T) {
	a, b := openEtcdPair(t)
	withSpace(t, a, "t", "k1", "k2")
	runs := 0
	release, started, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- a.Update(context.Background(), func(tx *Tx) error {
			runs++
			n := 0
			sp := tx.Space("t")
			_ = sp.Ascend([]byte("k"), []byte("l"), func(k, v []byte) bool { n++; return true })
			if runs == 1 {
				close(started)
				<-release
			}
			return sp.Put([]byte("count"), []byte(strconv.Itoa(n)))
		})
	}()
	<-started
	mustUpdate(t, b, func(tx *Tx) error { return tx.Space("t").Delete([]byte("k1")) })
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Update: %v", err)
	}
	mustView(t, b, func(tx *Tx) error {
		if got, want := string(tx.Space("t").Get([]byte("count"))), "1"; got != want {
			t.Errorf("count = %q, want %q (the delete through b was missed)", got, want)
		}
		return nil
	})
	if got, want := runs, 2; got != want {
		t.Errorf("runs = %d, want %d", got, want)
	}
}

// TestEtcdRetryBoundedByContext: a request whose commit conflicts every
// time is answered with its context's error once that ends, rather than
// retried for ever.
func TestEtcdRetryBoundedByContext(t *testing.T) {
	a, b := openEtcdPair(t)
	withSpace(t, a, "t", "k")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- a.Update(ctx, func(tx *Tx) error {
			sp := tx.Space("t")
			_ = sp.Get([]byte("k"))
			// Another front-end changes what this one read, every time.
			if err := b.Update(context.Background(), func(tx *Tx) error {
				return tx.Space("t").Put([]byte("k"), []byte(time.Now().String()))
			}); err != nil {
				return err
			}
			return sp.Put([]byte("mine"), []byte("v"))
		})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Update = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Update still retrying 10s after its context ended")
	}
	mustView(t, a, func(tx *Tx) error {
		if v := tx.Space("t").Get([]byte("mine")); v != nil {
			t.Errorf("the abandoned request's write landed")
		}
		return nil
	})
}

// TestEtcdAmbiguousCommit: a commit whose answer is lost is resolved by its
// marker before the caller is answered: applied once, never twice, and
// acknowledged, whether it applied before the answer was lost or not.
func TestEtcdAmbiguousCommit(t *testing.T) {
	for _, applied := range []bool{true, false} {
		t.Run("applied="+strconv.FormatBool(applied), func(t *testing.T) {
			db := openEtcdTemp(t)
			withSpace(t, db, "t")
			e := db.eng.(*etcdEngine)
			var lost atomic.Bool
			e.commitHook = func(ctx context.Context, cmps []clientv3.Cmp, ops []clientv3.Op) (*clientv3.TxnResponse, error) {
				if !lost.CompareAndSwap(false, true) {
					return e.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
				}
				if applied {
					if _, err := e.cli.Txn(ctx).If(cmps...).Then(ops...).Commit(); err != nil {
						return nil, err
					}
				}
				return nil, context.DeadlineExceeded
			}
			err := db.Update(context.Background(), func(tx *Tx) error {
				sp := tx.Space("t")
				var n uint64
				if v := sp.Get([]byte("n")); v != nil {
					n = binary.BigEndian.Uint64(v)
				}
				return sp.Put([]byte("n"), binary.BigEndian.AppendUint64(nil, n+1))
			})
			if err != nil {
				t.Fatalf("Update = %v, want the lost answer resolved", err)
			}
			mustView(t, db, func(tx *Tx) error {
				if got := binary.BigEndian.Uint64(tx.Space("t").Get([]byte("n"))); got != 1 {
					t.Errorf("n = %d, want 1", got)
				}
				return nil
			})
		})
	}
}

// TestEtcdAmbiguousCommitUnresolved: when etcd does not answer again, the
// caller gets ErrUnknownOutcome, not a plain failure.
func TestEtcdAmbiguousCommitUnresolved(t *testing.T) {
	db := openEtcdTemp(t)
	withSpace(t, db, "t")
	e := db.eng.(*etcdEngine)
	e.commitHook = func(ctx context.Context, cmps []clientv3.Cmp, ops []clientv3.Op) (*clientv3.TxnResponse, error) {
		e.interrupt() // etcd is gone for good, as far as this store knows
		return nil, context.DeadlineExceeded
	}
	err := db.Update(context.Background(), func(tx *Tx) error { return tx.Space("t").Put([]byte("k"), []byte("v")) })
	if !errors.Is(err, ErrUnknownOutcome) {
		t.Errorf("Update = %v, want ErrUnknownOutcome", err)
	}
}

// TestEtcdViewPastCompaction: a read-only transaction (Read) whose snapshot
// is compacted away while it reads is run again on a fresh one.
func TestEtcdViewPastCompaction(t *testing.T) {
	db := openEtcdTemp(t)
	withSpace(t, db, "t", "a", "b")
	cli := etcdClient(t)
	runs := 0
	err := db.Read(func(tx *Tx) error {
		runs++
		sp := tx.Space("t")
		_ = sp.Get([]byte("a"))
		if runs == 1 {
			resp, err := cli.Put(context.Background(), "elsewhere", "x")
			if err != nil {
				return err
			}
			if _, err := cli.Compact(context.Background(), resp.Header.Revision); err != nil {
				return err
			}
		}
		if got := string(sp.Get([]byte("b"))); got != "b" && runs > 1 {
			t.Errorf("run %d: b = %q", runs, got)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("View = %v, want it run again past the compaction", err)
	}
	if runs != 2 {
		t.Errorf("runs = %d, want 2", runs)
	}
}

// TestEtcdStockLimits: against an etcd with its stock limits a store opens,
// warns once naming the flags, serves what fits and refuses only what does
// not, naming the limit.
func TestEtcdStockLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own etcd member")
	}
	c, err := etcdtest.StartWith(t.TempDir(), 1, func(cfg *etcdtest.Config) {
		cfg.MaxTxnOps, cfg.MaxRequestBytes = 128, 1536<<10 // etcd's defaults
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var logged strings.Builder
	db, err := Open(Options{Etcd: &EtcdOptions{Endpoints: c.Endpoints(), DialTimeout: testDial}, Logger: textLogger(&logged)})
	if err != nil {
		t.Fatalf("Open = %v, want a store that serves what fits", err)
	}
	closeAtEnd(t, db)
	<-db.eng.(*etcdEngine).probed
	for _, want := range []string{"--max-txn-ops=2048", "--max-request-bytes=13631488"} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("log %q does not name %s", logged.String(), want)
		}
	}
	if n := strings.Count(logged.String(), "\n"); n != 1 {
		t.Errorf("%d log lines, want one warning", n)
	}
	withSpace(t, db, "t")
	puts := func(n, size int) error {
		return db.Update(context.Background(), func(tx *Tx) error {
			for i := range n {
				if err := tx.Space("t").Put([]byte(strconv.Itoa(i)), make([]byte, size)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := puts(100, 10); err != nil {
		t.Errorf("100 puts: %v", err)
	}
	for _, tc := range []struct {
		n, size int
		flag    string
	}{{200, 10, "--max-txn-ops is 128"}, {4, 400 << 10, "--max-request-bytes is about"}} {
		err := puts(tc.n, tc.size)
		if !errors.Is(err, ErrTxnTooLarge) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%d puts of %d bytes = %v, want ErrTxnTooLarge naming %q", tc.n, tc.size, err, tc.flag)
		}
	}
	if err := puts(3, 300<<10); err != nil {
		t.Errorf("3 puts of 300 KB: %v", err)
	}
}

// textLogger logs lines of text into w.
func textLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// breakingWatcher is a Watcher whose first watch breaks when told to, and
// which runs gap before each later one starts: a change made while no watch
// was in place.
type breakingWatcher struct {
	clientv3.Watcher
	brk   chan struct{}
	gap   func()
	calls atomic.Int32
}

func (w *breakingWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	if w.calls.Add(1) > 1 {
		w.gap()
		return w.Watcher.Watch(ctx, key, opts...)
	}
	in := w.Watcher.Watch(ctx, key, opts...)
	out := make(chan clientv3.WatchResponse)
	go func() {
		defer close(out)
		for {
			select {
			case resp, ok := <-in:
				if !ok {
					return
				}
				out <- resp
			case <-w.brk:
				out <- clientv3.WatchResponse{Canceled: true}
				return
			}
		}
	}()
	return out
}

// TestEtcdWatchResumes: a catalog change made while the watch was broken is
// reported once it is restarted (before, the restarted watch began after it
// and the "may be stale" signal came before it: a definition read in
// between stayed cached).
func TestEtcdWatchResumes(t *testing.T) {
	db := openEtcdTemp(t)
	e := db.eng.(*etcdEngine)
	cli := etcdClient(t)
	var gapDone atomic.Bool
	w := &breakingWatcher{Watcher: e.cli, brk: make(chan struct{}), gap: func() {
		if !gapDone.Load() {
			if _, err := cli.Put(context.Background(), e.prefix+"cgap", "v"); err != nil {
				t.Error(err)
			}
			gapDone.Store(true)
		}
	}}
	e.watcher = w
	seen := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		db.WatchCatalog(ctx, func(k []byte) {
			if k == nil {
				k = []byte("<missed>")
			}
			if gapDone.Load() || string(k) == "before" {
				seen <- string(k)
			}
		})
	}()
	defer func() { cancel(); <-done }()
	// Until the watch is in place, a change goes unseen: repeat it.
	for seenBefore := false; !seenBefore; {
		if _, err := cli.Put(context.Background(), e.prefix+"cbefore", "v"); err != nil {
			t.Fatal(err)
		}
		select {
		case k := <-seen:
			if k != "before" {
				t.Fatalf("first event %q, want before", k)
			}
			seenBefore = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	close(w.brk)
	timeout := time.After(10 * time.Second)
	for {
		select {
		case k := <-seen:
			if k == "before" {
				continue // a repeated put's event, late
			}
			if k != "gap" && k != "<missed>" {
				t.Errorf("after the break: %q, want gap", k)
			}
			return
		case <-timeout:
			t.Fatal("the change made while the watch was broken was never reported")
		}
	}
}
