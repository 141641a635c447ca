package store

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestEtcdFollow: over etcd a follower of a space walks it once, then gets
// each later commit's changes of its data as sizes, one commit at a time
// and in commit order, whichever front-end made them; after CatchUp every
// commit made before it has been applied; other keyspaces and spaces give
// nothing; a drop ends the following.
func TestEtcdFollow(t *testing.T) {
	a, b := openEtcdPair(t)
	must(t, a.Update(context.Background(), func(tx *Tx) error {
		must(t, tx.CreateSpace("a"))
		must(t, tx.CreateSpace("b"))
		return tx.Space("a").Put([]byte("k1"), []byte("xx"))
	}))
	var mu sync.Mutex
	var walked []string
	var got [][]Change
	size := func(v []byte) int64 { return int64(len(v)) }
	f, err := a.Follow("a", size, func(tx *Tx) error {
		return tx.Space("a").Ascend(nil, nil, func(k, _ []byte) bool { walked = append(walked, string(k)); return true })
	}, func(chs []Change) {
		mu.Lock()
		defer mu.Unlock()
		// One commit's keys come in no particular order.
		got = append(got, slices.SortedFunc(slices.Values(chs), func(x, y Change) int { return bytes.Compare(x.Key, y.Key) }))
	})
	must(t, err)
	defer f.Stop()
	snapshot := func() [][]Change {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
	must(t, b.Update(context.Background(), func(tx *Tx) error {
		must(t, tx.Space("a").Put([]byte("k1"), []byte("yyy")))
		must(t, tx.Space("a").Put([]byte("k2"), []byte("z")))
		must(t, tx.Space("a").PutMeta("m", []byte("not data")))
		return tx.Space("b").Put([]byte("k9"), []byte("other space"))
	}))
	must(t, a.Update(context.Background(), func(tx *Tx) error { return tx.Space("a").Delete([]byte("k1")) }))
	must(t, b.Update(context.Background(), func(tx *Tx) error { return tx.Space("a").Delete([]byte("absent")) }))
	must(t, f.CatchUp())
	want := [][]Change{{{Key: []byte("k1"), Old: 2, New: 3}, {Key: []byte("k2"), Old: -1, New: 1}},
		{{Key: []byte("k1"), Old: 3, New: -1}}}
	if got := snapshot(); !reflect.DeepEqual(walked, []string{"k1"}) || !reflect.DeepEqual(got, want) {
		t.Fatalf("after CatchUp: walked %q, got %+v, want %+v", walked, got, want)
	}
	must(t, b.Update(context.Background(), func(tx *Tx) error { return tx.DropSpace("a") }))
	deadline := time.Now().Add(testDial)
	for !f.Ended() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !f.Ended() {
		t.Fatal("the following did not end when its space was dropped")
	}
	if err := f.CatchUp(); err == nil {
		t.Error("CatchUp after the following ended: nil, want an error")
	}
	if got := snapshot(); got[len(got)-1] != nil {
		t.Errorf("the last changes delivered were %+v, want nil (dropped)", got[len(got)-1])
	}
}
