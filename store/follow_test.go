package store

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
)

// TestFollow: a follower walks the space once and then gets every later
// commit's changes of its data, as sizes, in commit order; a call that
// fails after writing (rolled back) and other spaces' and other
// keyspaces' writes give it nothing; a drop ends the following with nil;
// after Stop nothing more arrives.
func TestFollow(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(dir string) Options
	}{
		{"in memory", func(string) Options { return Options{InMemory: true} }},
		{"synced log", func(dir string) Options { return Options{Path: filepath.Join(dir, "d.db")} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(tc.opts(t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			update := func(fn func(tx *Tx) error) error { return db.Update(ctx, fn) }
			must(t, update(func(tx *Tx) error {
				must(t, tx.CreateSpace("a"))
				must(t, tx.CreateSpace("b"))
				return tx.Space("a").Put([]byte("k1"), []byte("xx"))
			}))
			var mu sync.Mutex
			var walked []string
			var got [][]Change
			size := func(v []byte) int64 { return int64(len(v)) }
			f, err := db.Follow("a", size, func(tx *Tx) error {
				return tx.Space("a").Ascend(nil, nil, func(k, _ []byte) bool { walked = append(walked, string(k)); return true })
			}, func(chs []Change) {
				mu.Lock()
				got = append(got, chs)
				mu.Unlock()
			})
			must(t, err)
			must(t, update(func(tx *Tx) error {
				must(t, tx.Space("a").Put([]byte("k1"), []byte("yyy")))
				must(t, tx.Space("a").Put([]byte("k2"), []byte("z")))
				must(t, tx.Space("a").PutMeta("m", []byte("not data")))
				return tx.Space("b").Put([]byte("k9"), []byte("other space"))
			}))
			refused := errors.New("refused")
			if err := update(func(tx *Tx) error {
				must(t, tx.Space("a").Put([]byte("k3"), []byte("rolled back")))
				return refused
			}); !errors.Is(err, refused) {
				t.Fatalf("failing call: %v", err)
			}
			must(t, update(func(tx *Tx) error { return tx.Space("a").Delete([]byte("k1")) }))
			must(t, update(func(tx *Tx) error { return tx.Space("a").Delete([]byte("absent")) }))
			must(t, update(func(tx *Tx) error { return tx.DropSpace("a") }))
			if !f.Ended() {
				t.Error("the following did not end when its space was dropped")
			}
			want := [][]Change{{{Key: []byte("k1"), Old: 2, New: 3}, {Key: []byte("k2"), Old: -1, New: 1}},
				{{Key: []byte("k1"), Old: 3, New: -1}}, nil}
			mu.Lock()
			defer mu.Unlock()
			if !reflect.DeepEqual(walked, []string{"k1"}) || !reflect.DeepEqual(got, want) {
				t.Fatalf("walked %q, got %+v, want %+v", walked, got, want)
			}
		})
	}
}

// TestFollowStop: after Stop a follower gets nothing, and a later
// follower of the same space starts from a fresh walk.
func TestFollowStop(t *testing.T) {
	db, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	must(t, db.Update(ctx, func(tx *Tx) error { return tx.CreateSpace("a") }))
	calls := 0
	size := func(v []byte) int64 { return int64(len(v)) }
	noWalk := func(*Tx) error { return nil }
	f, err := db.Follow("a", size, noWalk, func([]Change) { calls++ })
	must(t, err)
	f.Stop()
	must(t, db.Update(ctx, func(tx *Tx) error { return tx.Space("a").Put([]byte("k"), []byte("v")) }))
	if calls != 0 || !f.Ended() {
		t.Fatalf("after Stop: %d calls, ended %v", calls, f.Ended())
	}
	n := 0
	_, err = db.Follow("a", size, func(tx *Tx) error {
		return tx.Space("a").Ascend(nil, nil, func(_, _ []byte) bool { n++; return true })
	}, func([]Change) {})
	if err != nil || n != 1 {
		t.Fatalf("a new follower walked %d entries (%v), want 1", n, err)
	}
	walkErr := errors.New("walk failed")
	if _, err := db.Follow("a", size, func(*Tx) error { return walkErr }, func([]Change) {}); !errors.Is(err, walkErr) {
		t.Fatalf("a failing walk: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
