package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// snapshotOf renders what a read sees of space "m": one key, the data
// ascending and descending (whole and from a key), the metadata, the
// counters and the change log (which the local copy does not hold: read
// from etcd at the copy's revision).
func snapshotOf(tx *Tx) string {
	sp := tx.Space("m")
	if sp == nil {
		return "no space"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "get %q;", sp.Get([]byte("k050")))
	each := func(k, v []byte) bool { fmt.Fprintf(&b, " %s=%s", k, v); return true }
	_ = sp.Ascend(nil, nil, each)
	b.WriteString(";")
	_ = sp.Ascend([]byte("k100"), []byte("k110"), each)
	b.WriteString(";")
	_ = sp.Descend(nil, nil, each)
	b.WriteString(";")
	_ = sp.Descend([]byte("k005"), []byte("k012"), each)
	items, size := sp.Stats()
	fmt.Fprintf(&b, "; meta %q; stats %d/%d; log", sp.GetMeta("x"), items, size)
	_ = sp.AscendLog(0, func(seq uint64, rec []byte) bool { fmt.Fprintf(&b, " %d=%s", seq, rec); return true })
	return b.String()
}

// writeMirrored writes n keys of round r to space "m" (with a log record
// and the counters) through db.
func writeMirrored(t *testing.T, db *DB, r, n int) {
	t.Helper()
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("m")
		for i := range n {
			if err := sp.Put(fmt.Appendf(nil, "k%03d", i), fmt.Appendf(nil, "v%d.%d", r, i)); err != nil {
				return err
			}
		}
		if err := sp.Delete(fmt.Appendf(nil, "k%03d", r)); err != nil {
			return err
		}
		if err := sp.PutMeta("x", fmt.Appendf(nil, "meta%d", r)); err != nil {
			return err
		}
		if _, err := sp.AppendLog(fmt.Appendf(nil, "rec%d", r)); err != nil {
			return err
		}
		return sp.AddStats(int64(n), int64(r))
	})
}

// TestEtcdReadEventual: over etcd an eventually consistent read is served
// from the process's local copy once it is current, costing (almost) no
// etcd request, and sees exactly what a linearizable read sees: this
// process's own commits at once, another process's once SettleReads has
// been called (or mirrorStale after their acknowledgement); keys the copy
// does not hold (the change log) are read from etcd at the copy's revision.
func TestEtcdReadEventual(t *testing.T) {
	prefix := fmt.Sprintf("mi%d/", etcdMember.n.Add(1))
	db, kv := openEtcdCountingMirrored(t, prefix)
	other := openEtcdPrefix(t, prefix)
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("m") })
	check := func(step string) {
		t.Helper()
		var want, got string
		mustView(t, db, func(tx *Tx) error { want = snapshotOf(tx); return nil })
		if err := db.ReadEventual(func(tx *Tx) error { got = snapshotOf(tx); return nil }); err != nil {
			t.Fatalf("%s: ReadEventual: %v", step, err)
		}
		if got != want {
			t.Errorf("%s: ReadEventual sees\n%s\nView sees\n%s", step, got, want)
		}
	}
	writeMirrored(t, db, 1, 150)
	check("before the copy is current")

	// Once the copy is current, 50 reads cost a few requests at most (the
	// confirmations), where each would cost one.
	deadline := time.Now().Add(time.Minute)
	for {
		before := kv.gets.Load() + kv.txns.Load()
		for range 50 {
			if err := db.ReadEventual(func(tx *Tx) error { tx.Space("m").Get([]byte("k001")); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if n := kv.gets.Load() + kv.txns.Load() - before; n <= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("50 eventually consistent reads still cost more than 10 etcd requests after a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
	check("served from the copy")
	writeMirrored(t, db, 2, 120) // this process's own commit: seen at once
	check("after its own commit")
	writeMirrored(t, other, 3, 130)
	if err := db.SettleReads(); err != nil {
		t.Fatal(err)
	}
	check("after another process's commit and SettleReads")
	mustUpdate(t, other, func(tx *Tx) error { return tx.DropSpace("m") })
	if err := db.SettleReads(); err != nil {
		t.Fatal(err)
	}
	check("after the space is dropped")
}

// TestEtcdReadEventualStaleness: without SettleReads, another process's
// acknowledged write is seen by an eventually consistent read that begins
// mirrorStale after it.
func TestEtcdReadEventualStaleness(t *testing.T) {
	prefix := fmt.Sprintf("ms%d/", etcdMember.n.Add(1))
	db, other := openEtcdPrefix(t, prefix), openEtcdPrefix(t, prefix)
	withSpace(t, db, "m")
	read := func() string {
		var v []byte
		if err := db.ReadEventual(func(tx *Tx) error { v = tx.Space("m").Get([]byte("k")); return nil }); err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	for i := range 20 {
		want := fmt.Sprint("v", i)
		if err := other.Update(context.Background(), func(tx *Tx) error { return tx.Space("m").Put([]byte("k"), []byte(want)) }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(mirrorStale + time.Millisecond)
		if got := read(); got != want {
			t.Fatalf("write %d: eventually consistent read %s after it = %q, want %q", i, mirrorStale, got, want)
		}
	}
}

// openEtcdPrefix opens a store on the shared member under prefix.
func openEtcdPrefix(t *testing.T, prefix string) *DB {
	t.Helper()
	eps, err := etcdMember.get()
	if err != nil {
		t.Fatalf("etcd: %v", err)
	}
	db, err := Open(Options{Etcd: &EtcdOptions{Endpoints: eps, Prefix: prefix, DialTimeout: testDial, RequestTimeout: testDial}})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	closeAtEnd(t, db)
	return db
}

// heldWatcher is a Watcher whose responses are held back while hold is
// set: a local copy fed by it falls behind the store on purpose.
type heldWatcher struct {
	clientv3.Watcher
	mu      sync.Mutex
	held    bool
	release chan struct{} // closed when the hold ends
}

func (w *heldWatcher) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.held {
		w.held, w.release = true, make(chan struct{})
	}
}

func (w *heldWatcher) unhold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held {
		w.held = false
		close(w.release)
	}
}

// wait returns once responses may be delivered, or ctx has ended.
func (w *heldWatcher) wait(ctx context.Context) {
	w.mu.Lock()
	held, release := w.held, w.release
	w.mu.Unlock()
	if held {
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
}

func (w *heldWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	in := w.Watcher.Watch(ctx, key, opts...)
	out := make(chan clientv3.WatchResponse)
	go func() {
		defer close(out)
		for resp := range in {
			w.wait(ctx)
			select {
			case out <- resp:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// TestEtcdStaleCopyWrites: a front-end's batch of writes reads its local
// copy, and a copy that is behind another process's commit (its watch held
// back while the copy still counts as current) never lets a write act on
// what it read there: a condition that passes on the stale value is caught
// by the commit's compares and evaluated again on the committed one (and
// fails), and one that fails on the stale value while the committed one
// passes is caught by the compare-only check and evaluated again (and
// writes). Each function sees the stale value first, then the committed.
func TestEtcdStaleCopyWrites(t *testing.T) {
	prefix := fmt.Sprintf("sw%d/", etcdMember.n.Add(1))
	db := openEtcdPrefix(t, prefix)
	e := db.eng.(*etcdEngine)
	w := &heldWatcher{Watcher: e.cli}
	e.watcher = w // before the copy starts (its first read)
	other := openEtcdPrefix(t, prefix)
	withSpace(t, db, "m")
	put := func(db *DB, v string) {
		t.Helper()
		mustUpdate(t, db, func(tx *Tx) error { return tx.Space("m").Put([]byte("k"), []byte(v)) })
	}
	errCond := errors.New("condition failed")
	// cond puts next when k holds want, else fails; it records what it saw.
	cond := func(want, next string, saw *[]string) func(tx *Tx) error {
		return func(tx *Tx) error {
			v := string(tx.Space("m").Get([]byte("k")))
			*saw = append(*saw, v)
			if v != want {
				return errCond
			}
			return tx.Space("m").Put([]byte("k"), []byte(next))
		}
	}
	for _, tc := range []struct {
		name                 string
		stale, committed     string // k in the copy, k in etcd
		want, next           string // the condition and the write
		wantErr              error
		wantValue            string
		wantSaw0, wantSawEnd string
	}{
		{"passes on the stale value", "a1", "a2", "a1", "a3", errCond, "a2", "a1", "a2"},
		{"fails on the stale value", "b1", "b2", "b2", "b3", nil, "b3", "b1", "b2"},
	} {
		put(db, tc.stale) // this process's own commit: the copy holds it once current
		awaitCopy(t, db, tc.stale)
		w.hold()
		put(other, tc.committed)
		// The copy counts as current throughout, though it lacks other's commit.
		stale := keepFresh(e.mirror)
		var saw []string
		err := db.Update(context.Background(), cond(tc.want, tc.next, &saw))
		stale()
		w.unhold()
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: Update = %v, want %v", tc.name, err, tc.wantErr)
		}
		if len(saw) < 2 || saw[0] != tc.wantSaw0 || saw[len(saw)-1] != tc.wantSawEnd {
			t.Errorf("%s: the condition saw %q, want %q (the copy) first and %q (etcd) last", tc.name, saw, tc.wantSaw0, tc.wantSawEnd)
		}
		var got []byte
		mustView(t, other, func(tx *Tx) error { got = tx.Space("m").Get([]byte("k")); return nil })
		if string(got) != tc.wantValue {
			t.Errorf("%s: k = %q after the write, want %q", tc.name, got, tc.wantValue)
		}
	}
}

// awaitCopy waits until db's local copy is current and its key k of space
// "m" holds want.
func awaitCopy(t *testing.T, db *DB, want string) {
	t.Helper()
	m := db.eng.(*etcdEngine).mirror
	deadline := time.Now().Add(time.Minute)
	for {
		var v []byte
		if err := db.ReadEventual(func(tx *Tx) error { v = tx.Space("m").Get([]byte("k")); return nil }); err != nil {
			t.Fatal(err)
		}
		if m.current() != nil && string(v) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the local copy is not current with %q after a minute", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// keepFresh makes m count as confirmed just now, every millisecond, until
// the function it returns is called.
func keepFresh(m *mirror) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	m.fresh.Store(max(int64(time.Since(m.epoch)), 1)) // before the caller goes on
	go func() {
		defer close(done)
		for {
			m.fresh.Store(max(int64(time.Since(m.epoch)), 1))
			select {
			case <-quit:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() { close(quit); <-done }
}
