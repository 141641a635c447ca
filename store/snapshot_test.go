package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

func TestSnapshotIsolation(t *testing.T) { forEngines(t, testSnapshotIsolation) }

// testSnapshotIsolation holds a View open across commits that change, add
// and delete keys and drop the space: the View keeps seeing the state it
// started with, and a later View sees the new state.
func testSnapshotIsolation(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "s", "a", "b", "c")
	started, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var seenBefore, seenAfter string
	wg.Go(func() {
		err := db.View(func(tx *Tx) error {
			sp := tx.Space("s")
			seenBefore = dump(sp)
			close(started)
			<-release
			seenAfter = dump(sp)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
	<-started
	mustUpdate(t, db, func(tx *Tx) error {
		sp := tx.Space("s")
		if err := sp.Put([]byte("a"), []byte("A2")); err != nil {
			return err
		}
		if err := sp.Delete([]byte("b")); err != nil {
			return err
		}
		return sp.Put([]byte("d"), []byte("d"))
	})
	mustView(t, db, func(tx *Tx) error {
		if got, want := dump(tx.Space("s")), "a=A2 c=c d=d"; got != want {
			t.Errorf("new view: got %q, want %q", got, want)
		}
		return nil
	})
	mustUpdate(t, db, func(tx *Tx) error { return tx.DropSpace("s") })
	close(release)
	wg.Wait()
	if want := "a=a b=b c=c"; seenBefore != want || seenAfter != want {
		t.Errorf("old view: got %q then %q, want %q both times", seenBefore, seenAfter, want)
	}
}

func TestConcurrentReadersAndWriter(t *testing.T) { forEngines(t, testConcurrentReadersAndWriter) }

// testConcurrentReadersAndWriter runs views while a writer moves a value
// between two keys in each commit; every view must see exactly one of them
// (a torn read would see both or neither). Run with -race.
func testConcurrentReadersAndWriter(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "s", "x0")
	const commits = 300
	done := make(chan struct{})
	var wg sync.WaitGroup
	// Two readers, as many as the suite's two cores run at once: more only
	// compete with the writer's commits (and etcd's server) for them.
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				err := db.View(func(tx *Tx) error {
					n := 0
					tx.Space("s").Ascend(nil, nil, func(k, v []byte) bool { n++; return true })
					if n != 1 {
						return fmt.Errorf("view saw %d keys, want 1", n)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := range commits {
		mustUpdate(t, db, func(tx *Tx) error {
			sp := tx.Space("s")
			if err := sp.Delete(fmt.Appendf(nil, "x%d", i)); err != nil {
				return err
			}
			return sp.Put(fmt.Appendf(nil, "x%d", i+1), []byte("v"))
		})
	}
	close(done)
	wg.Wait()
}

func TestRolledBackBatchLeavesNoTrace(t *testing.T) { forEngines(t, testRolledBackBatchLeavesNoTrace) }

// testRolledBackBatchLeavesNoTrace: a failing Update that wrote to the data,
// log, meta and catalog keyspaces, and created a space, changes nothing.
func testRolledBackBatchLeavesNoTrace(t *testing.T, openMem func(testing.TB) *DB) {
	db := openMem(t)
	withSpace(t, db, "s", "a")
	err := db.Update(context.Background(), func(tx *Tx) error {
		sp := tx.Space("s")
		if err := sp.Put([]byte("b"), []byte("b")); err != nil {
			return err
		}
		if _, err := sp.AppendLog([]byte("rec")); err != nil {
			return err
		}
		if err := sp.AddStats(1, 10); err != nil {
			return err
		}
		if err := tx.CatalogPut([]byte("k"), []byte("v")); err != nil {
			return err
		}
		if err := tx.CreateSpace("new"); err != nil {
			return err
		}
		return fmt.Errorf("boom")
	})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("Update: got %v, want boom", err)
	}
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("s")
		items, bytes := sp.Stats()
		checks := []struct {
			name      string
			got, want any
		}{
			{"data", dump(sp), "a=a"},
			{"last log seq", sp.LastLogSeq(), uint64(0)},
			{"stats", [2]int64{items, bytes}, [2]int64{0, 0}},
			{"catalog", tx.CatalogGet([]byte("k")) == nil, true},
			{"new space", tx.Space("new") == nil, true},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
			}
		}
		return nil
	})
}

// dump renders a space's data as "k=v k=v" in key order.
func dump(sp *Space) string {
	s := ""
	sp.Ascend(nil, nil, func(k, v []byte) bool {
		if s != "" {
			s += " "
		}
		s += string(k) + "=" + string(v)
		return true
	})
	return s
}
