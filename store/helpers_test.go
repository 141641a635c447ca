package store

import (
	"context"
	"path/filepath"
	"testing"
)

// openMem opens an InMemory store that is closed when the test ends.
func openMem(t testing.TB) *DB {
	t.Helper()
	db, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	closeAtEnd(t, db)
	return db
}

// mustUpdate runs fn in Update and fails the test on error.
func mustUpdate(t testing.TB, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	if err := db.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// mustView runs fn in View and fails the test on error.
func mustView(t testing.TB, db *DB, fn func(tx *Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// withSpace creates space id holding the given keys (each key is its own value).
func withSpace(t testing.TB, db *DB, id string, keys ...string) {
	t.Helper()
	mustUpdate(t, db, func(tx *Tx) error {
		if err := tx.CreateSpace(id); err != nil {
			return err
		}
		s := tx.Space(id)
		for _, k := range keys {
			if err := s.Put([]byte(k), []byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
}

// openDurableTemp opens a file-backed store (memory engine, write-ahead log,
// bbolt checkpoints) without fsync in a temporary directory, closed when the
// test ends.
func openDurableTemp(t testing.TB) *DB {
	t.Helper()
	db, err := Open(Options{Path: filepath.Join(t.TempDir(), "test.db"), NoSync: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	closeAtEnd(t, db)
	return db
}

// openBoltTemp opens a store directly on bbolt, the checkpoint format,
// without fsync in a temporary directory, closed when the test ends.
func openBoltTemp(t testing.TB) *DB {
	t.Helper()
	b, err := openBolt(osFS{}, filepath.Join(t.TempDir(), "test.db"), true)
	if err != nil {
		t.Fatalf("openBolt: %v", err)
	}
	db := newDB(b)
	closeAtEnd(t, db)
	return db
}

func closeAtEnd(t testing.TB, db *DB) {
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// forEngines runs test once per engine: all must behave the same. It is the
// store's contract suite: etcd (cluster mode) runs it too.
func forEngines(t *testing.T, test func(t *testing.T, open func(testing.TB) *DB)) {
	t.Run("memory", func(t *testing.T) { test(t, openMem) })
	t.Run("durable", func(t *testing.T) { test(t, openDurableTemp) })
	t.Run("bbolt", func(t *testing.T) { test(t, openBoltTemp) })
	t.Run("etcd", func(t *testing.T) { test(t, openEtcdTemp) })
}

// forMemAndDurable runs test on a memory store and on a durable one (without
// fsync). reopen, nil for the memory store, closes the durable store and
// opens it again from its file, for twin tests that also check what a
// restart reads back.
func forMemAndDurable(t *testing.T, test func(t *testing.T, db *DB, reopen func() *DB)) {
	t.Run("memory", func(t *testing.T) { test(t, openMem(t), nil) })
	t.Run("durable", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "test.db")
		open := func() *DB {
			db, err := Open(Options{Path: path, NoSync: true})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return db
		}
		cur := open()
		t.Cleanup(func() {
			if err := cur.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		test(t, cur, func() *DB {
			if err := cur.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			cur = open()
			return cur
		})
	})
}
