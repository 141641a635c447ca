package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
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
