package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// holdCommitter starts an Update whose fn blocks until the returned release is
// called, so that Updates issued meanwhile queue up and form one batch.
func holdCommitter(t *testing.T, db *DB) (release func()) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.Update(context.Background(), func(tx *Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	return func() {
		close(unblock)
		if err := <-done; err != nil {
			t.Errorf("holding Update: %v", err)
		}
	}
}

// waitQueued waits until n requests are queued behind the committer.
func waitQueued(db *DB, n int) {
	for {
		db.queue.mu.Lock()
		got := len(db.queue.reqs)
		db.queue.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched()
	}
}

func TestBatchWithFailures(t *testing.T) { forEngines(t, testBatchWithFailures) }

func testBatchWithFailures(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	fails := callErrors{dirty: errors.New("failed after writing"), clean: errors.New("failed before writing")}
	calls := []callKind{callOK, callOK, callOK, callPanics, callOK, callFailDirty, callOK, callFailClean, callOK, callFailDirty, callOK}
	runs := make([]atomic.Int32, len(calls))
	errs := runQueued(t, db, len(calls), func(i int, tx *Tx) error {
		runs[i].Add(1)
		return fails.run(tx, i, calls[i])
	})

	var wantKeys []string
	for i, k := range calls {
		var want error
		switch k {
		case callOK:
			wantKeys = append(wantKeys, fmt.Sprintf("k%02d", i))
		case callFailDirty:
			want = fails.dirty
		case callFailClean:
			want = fails.clean
		case callPanics:
			want = ErrPanic
		}
		if !errors.Is(errs[i], want) {
			t.Errorf("call %d: got %v, want %v", i, errs[i], want)
		}
	}
	// Calls before the first dirty failure ran again in a fresh transaction,
	// which shows they shared a batch with it.
	if got := runs[0].Load(); got < 2 {
		t.Errorf("call 0 ran %d times, want >= 2 (re-run after a failing call in its batch)", got)
	}
	checkBatchStored(t, db, wantKeys)
}

// callKind is how one Update of testBatchWithFailures ends.
type callKind int

const (
	callOK        callKind = iota
	callFailDirty          // fails after writing
	callFailClean          // fails before writing
	callPanics             // panics after writing
)

// callErrors are the errors testBatchWithFailures' failing Updates return.
type callErrors struct{ dirty, clean error }

// run is Update number i of kind k: it writes key k<i>, counts it in the
// stats and logs it, unless it fails first.
func (e callErrors) run(tx *Tx, i int, k callKind) error {
	sp := tx.Space("t")
	if k == callFailClean {
		return e.clean
	}
	if err := sp.Put(fmt.Appendf(nil, "k%02d", i), []byte("v")); err != nil {
		return err
	}
	if err := sp.AddStats(1, 1); err != nil {
		return err
	}
	if _, err := sp.AppendLog(fmt.Appendf(nil, "k%02d", i)); err != nil {
		return err
	}
	switch k {
	case callFailDirty:
		return e.dirty
	case callPanics:
		panic("boom")
	}
	return nil
}

// runQueued queues n Updates running fn(i, tx), in index order, behind a
// held committer, so that they form one batch; it returns their errors.
func runQueued(t *testing.T, db *DB, n int, fn func(i int, tx *Tx) error) []error {
	t.Helper()
	release := holdCommitter(t, db)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = db.Update(context.Background(), func(tx *Tx) error { return fn(i, tx) })
		})
		// Queue the calls in index order, so call 0 is ahead of the failures.
		waitQueued(db, i+1)
	}
	release()
	wg.Wait()
	return errs
}

// checkBatchStored checks that space t holds exactly wantKeys, in its data,
// its log (without sequence gaps) and its stats.
func checkBatchStored(t *testing.T, db *DB, wantKeys []string) {
	t.Helper()
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		var keys, logged []string
		if err := sp.Ascend(nil, nil, func(k, v []byte) bool { keys = append(keys, string(k)); return true }); err != nil {
			return err
		}
		if err := sp.AscendLog(0, func(_ uint64, rec []byte) bool { logged = append(logged, string(rec)); return true }); err != nil {
			return err
		}
		if fmt.Sprint(keys) != fmt.Sprint(wantKeys) {
			t.Errorf("keys = %q, want %q", keys, wantKeys)
		}
		slices.Sort(logged) // log order is commit order, not call index
		if fmt.Sprint(logged) != fmt.Sprint(wantKeys) {
			t.Errorf("log = %q, want %q", logged, wantKeys)
		}
		if got, want := sp.LastLogSeq(), uint64(len(wantKeys)); got != want {
			t.Errorf("LastLogSeq = %d, want %d (failed calls leave no sequence gap)", got, want)
		}
		if items, _ := sp.Stats(); items != int64(len(wantKeys)) {
			t.Errorf("Stats items = %d, want %d", items, len(wantKeys))
		}
		return nil
	})
}

func TestPanicAlone(t *testing.T) { forEngines(t, testPanicAlone) }

func testPanicAlone(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	err := db.Update(t.Context(), func(tx *Tx) error {
		_ = tx.Space("t").Put([]byte("k"), []byte("v"))
		var m map[string]int
		m["x"] = 1 // runtime panic
		return nil
	})
	if !errors.Is(err, ErrPanic) {
		t.Fatalf("got %v, want %v", err, ErrPanic)
	}
	mustView(t, db, func(tx *Tx) error {
		if got := tx.Space("t").Get([]byte("k")); got != nil {
			t.Errorf("Get after panic = %q, want nil", got)
		}
		return nil
	})
	// The store still works, and View recovers panics too.
	mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").Put([]byte("k"), []byte("v")) })
	if err := db.View(func(tx *Tx) error { panic("view") }); !errors.Is(err, ErrPanic) {
		t.Errorf("View panic: got %v, want %v", err, ErrPanic)
	}
}

func TestConcurrentCounter(t *testing.T) { forEngines(t, testConcurrentCounter) }

func testConcurrentCounter(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "t")
	const workers, perWorker = 64, 20
	key := []byte("counter")
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range perWorker {
				err := db.Update(context.Background(), func(tx *Tx) error {
					sp := tx.Space("t")
					var n uint64
					if v := sp.Get(key); v != nil {
						n = binary.BigEndian.Uint64(v)
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
	mustView(t, db, func(tx *Tx) error {
		if got, want := binary.BigEndian.Uint64(tx.Space("t").Get(key)), uint64(workers*perWorker); got != want {
			t.Errorf("counter = %d, want %d", got, want)
		}
		return nil
	})
}

func TestContextCancel(t *testing.T) { forEngines(t, testContextCancel) }

func testContextCancel(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)

	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		called := false
		err := db.Update(ctx, func(tx *Tx) error { called = true; return nil })
		if !errors.Is(err, context.Canceled) || called {
			t.Errorf("got err %v called %v, want %v and not called", err, called, context.Canceled)
		}
	})

	t.Run("cancelled while queued", func(t *testing.T) {
		release := holdCommitter(t, db)
		ctx, cancel := context.WithCancel(t.Context())
		var called atomic.Bool
		done := make(chan error, 1)
		go func() {
			done <- db.Update(ctx, func(tx *Tx) error { called.Store(true); return nil })
		}()
		waitQueued(db, 1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want %v", err, context.Canceled)
		}
		release()
		// The committer must skip the abandoned request; a later Update proves
		// the queue has drained past it.
		mustUpdate(t, db, func(tx *Tx) error { return nil })
		if called.Load() {
			t.Errorf("fn of a cancelled request ran")
		}
	})
}

func TestCloseWaitsForInflight(t *testing.T) {
	path := t.TempDir() + "/db"
	db, err := Open(Options{Path: path, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	withSpace(t, db, "t")

	started, unblock := make(chan struct{}), make(chan struct{})
	updateErr := make(chan error, 1)
	go func() {
		updateErr <- db.Update(context.Background(), func(tx *Tx) error {
			close(started)
			<-unblock
			return tx.Space("t").Put([]byte("k"), []byte("v"))
		})
	}()
	<-started
	closeErr := make(chan error, 1)
	go func() { closeErr <- db.Close() }()

	// Close cannot finish while the Update is in flight.
	select {
	case err := <-closeErr:
		t.Fatalf("Close returned %v while an Update was in flight", err)
	default:
	}
	close(unblock)
	if err := <-updateErr; err != nil {
		t.Errorf("in-flight Update: %v", err)
	}
	if err := <-closeErr; err != nil {
		t.Errorf("Close: %v", err)
	}

	tests := []struct {
		name string
		got  error
		want error
	}{
		{"Update after Close", db.Update(t.Context(), func(tx *Tx) error { return nil }), ErrClosed},
		{"View after Close", db.View(func(tx *Tx) error { return nil }), ErrClosed},
		{"second Close", db.Close(), nil},
	}
	for _, tt := range tests {
		if !errors.Is(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}

	db, err = Open(Options{Path: path, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		if got := string(tx.Space("t").Get([]byte("k"))); got != "v" {
			t.Errorf("after reopen Get = %q, want %q", got, "v")
		}
		return nil
	})
}
