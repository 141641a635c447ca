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
	errDirty := errors.New("failed after writing")
	errClean := errors.New("failed before writing")

	type kind int
	const (
		ok kind = iota
		failDirty
		failClean
		panics
	)
	calls := []kind{ok, ok, ok, panics, ok, failDirty, ok, failClean, ok, failDirty, ok}
	runs := make([]atomic.Int32, len(calls))

	release := holdCommitter(t, db)
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, k := range calls {
		wg.Go(func() {
			errs[i] = db.Update(context.Background(), func(tx *Tx) error {
				runs[i].Add(1)
				sp := tx.Space("t")
				if k == failClean {
					return errClean
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
				case failDirty:
					return errDirty
				case panics:
					panic("boom")
				}
				return nil
			})
		})
		// Queue the calls in index order, so call 0 is ahead of the failures.
		waitQueued(db, i+1)
	}
	release()
	wg.Wait()

	var wantKeys []string
	for i, k := range calls {
		var want error
		switch k {
		case ok:
			wantKeys = append(wantKeys, fmt.Sprintf("k%02d", i))
		case failDirty:
			want = errDirty
		case failClean:
			want = errClean
		case panics:
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

	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		var keys, logged []string
		_ = sp.Ascend(nil, nil, func(k, v []byte) bool { keys = append(keys, string(k)); return true })
		_ = sp.AscendLog(0, func(_ uint64, rec []byte) bool { logged = append(logged, string(rec)); return true })
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
