package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ddb.db")
	for _, noSync := range []bool{false, true} {
		db, err := Open(Options{Path: path, NoSync: noSync})
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, db, func(tx *Tx) error {
			if err := tx.CatalogPut([]byte("table"), []byte("def")); err != nil {
				return err
			}
			if tx.Space("t") == nil {
				if err := tx.CreateSpace("t"); err != nil {
					return err
				}
			}
			sp := tx.Space("t")
			if _, err := sp.AppendLog([]byte("rec")); err != nil {
				return err
			}
			if err := sp.AddStats(1, 3); err != nil {
				return err
			}
			return sp.Put([]byte("k"), []byte("v"))
		})
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}

	db, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if sp == nil {
			t.Fatal("space t lost across reopen")
		}
		items, bytes := sp.Stats()
		tests := []struct {
			name      string
			got, want any
		}{
			{"catalog", string(tx.CatalogGet([]byte("table"))), "def"},
			{"data", string(sp.Get([]byte("k"))), "v"},
			{"log seq", sp.LastLogSeq(), uint64(2)},
			{"items", items, int64(2)},
			{"bytes", bytes, int64(6)},
		}
		for _, tt := range tests {
			if tt.got != tt.want {
				t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
			}
		}
		return nil
	})
}

func TestInMemoryLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir) // os.CreateTemp("") uses $TMPDIR on Unix
	db, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	withSpace(t, db, "t", "a", "b")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("files left after Close: %v, want none", entries)
	}
	// Each InMemory store starts empty.
	db2 := openMem(t)
	mustView(t, db2, func(tx *Tx) error {
		if tx.Space("t") != nil {
			t.Errorf("new InMemory store has space t")
		}
		return nil
	})
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(Options{}); !errors.Is(err, ErrPathRequired) {
		t.Errorf("empty path: got %v, want %v", err, ErrPathRequired)
	}

	path := filepath.Join(t.TempDir(), "locked.db")
	db, err := Open(Options{Path: path, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// flock is per open file, so a second Open in this process conflicts like
	// another process would; it gives up after lockTimeout.
	if db2, err := Open(Options{Path: path, NoSync: true}); !errors.Is(err, ErrLocked) {
		if db2 != nil {
			db2.Close()
		}
		t.Errorf("second Open: got %v, want %v", err, ErrLocked)
	}
}

// TestReopenCommitsNothing: the first open of a bbolt file creates the
// root buckets; opening it again finds them and commits no transaction
// (an empty bbolt commit still costs two fdatasyncs at every restart).
func TestReopenCommitsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	txid := func() int {
		t.Helper()
		b, err := openBolt(osFS{}, path, true)
		if err != nil {
			t.Fatal(err)
		}
		defer b.close()
		btx, err := b.db.Begin(false)
		if err != nil {
			t.Fatal(err)
		}
		defer btx.Rollback()
		for _, name := range []string{catalogBucket, spacesBucket} {
			if btx.Bucket([]byte(name)) == nil {
				t.Errorf("bucket %s missing after open", name)
			}
		}
		return btx.ID()
	}
	first := txid()
	if again := txid(); again != first {
		t.Errorf("reopening moved the file from transaction %d to %d, want no commit", first, again)
	}
}
