package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// bulkEntries is what TestBulkInstall loads: n keys in a shuffled order,
// each value large enough that a fill takes several bbolt transactions,
// and every tenth key put twice (the second value wins), some again runs
// later.
func bulkEntries(n int) (keys []string, val func(k string, second bool) []byte) {
	for i := range n {
		keys = append(keys, fmt.Sprintf("k%06d", i))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys, func(k string, second bool) []byte {
		v := strings.Repeat(k, 1024/len(k))
		if second {
			v = "2" + v
		}
		return []byte(v)
	}
}

// buildBulk fills a Bulk for space id with bulkEntries(n) and returns it
// with the state a View should show once it is installed (as dumpSpace).
func buildBulk(t *testing.T, db *DB, id string, n int) (*Bulk, string) {
	t.Helper()
	b, ok, err := db.NewBulk(id)
	if !ok || err != nil {
		t.Fatalf("NewBulk: %v, %v", ok, err)
	}
	b.runMax = 1000 // several sorted runs, a key's two Puts in one or in two
	keys, val := bulkEntries(n)
	want := map[string][]byte{}
	put := func(k string, second bool) {
		if err := b.Put([]byte(k), val(k, second)); err != nil {
			t.Fatalf("Put %s: %v", k, err)
		}
		want[k] = val(k, second)
	}
	for i, k := range keys {
		put(k, false)
		if i%10 == 0 {
			put(k, true)
		}
		if i%7 == 3 && i > 1500 {
			put(keys[i-1500], i%2 == 0) // a key of an earlier run, again
		}
	}
	if b.Len() != n {
		t.Fatalf("Len %d, want %d", b.Len(), n)
	}
	var sb strings.Builder
	for i := range n {
		k := fmt.Sprintf("k%06d", i)
		fmt.Fprintf(&sb, "%s=%d:%.8s\n", k, len(want[k]), want[k])
	}
	return b, sb.String()
}

// dumpSpace lists space id's data as buildBulk's want does.
func dumpSpace(t *testing.T, db *DB, id string) string {
	t.Helper()
	var sb strings.Builder
	mustView(t, db, func(tx *Tx) error {
		return tx.Space(id).Ascend(nil, nil, func(k, v []byte) bool {
			fmt.Fprintf(&sb, "%s=%d:%.8s\n", k, len(v), v)
			return true
		})
	})
	return sb.String()
}

// TestBulkInstall: a bulk load replaces the space's data (here two keys)
// with the data built, in key order (as Ascend lists it), and publishes it
// with another space's and what the install's function writes, in one
// transaction. A durable store keeps it
// across a crash (the files copied while open) and a clean close, though
// the space was created in the log's open segment, whose replay creates
// the space empty again: the install moves the log on first.
func TestBulkInstall(t *testing.T) {
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprint("durable=", durable), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "db")
			var db *DB
			if durable {
				db = openPath(t, path, segmentLimit)
			} else {
				db = openMem(t)
			}
			withSpace(t, db, "t", "a", "zz")
			withSpace(t, db, "u", "b")
			// 10,000 values of 1,022 bytes: five fill transactions of
			// bulkFillChunk (2 MiB), the boundaries between them crossed.
			b, want := buildBulk(t, db, "t", 10000)
			other, wantOther := buildBulk(t, db, "u", 3000)
			if got := dumpSpace(t, db, "t"); got != "a=1:a\nzz=2:zz\n" {
				t.Fatalf("before the install, the space holds:\n%s", got)
			}
			var built strings.Builder
			b.Ascend(func(k, v []byte) bool {
				fmt.Fprintf(&built, "%s=%d:%.8s\n", k, len(v), v)
				return true
			})
			if built.String() != want {
				t.Fatalf("Ascend over the data built: %d bytes listed, want %d", built.Len(), len(want))
			}
			err := b.Install(context.Background(), func(tx *Tx) error {
				return tx.CatalogPut([]byte("installed"), []byte("yes"))
			}, other)
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpSpace(t, db, "t"); got != want {
				t.Fatalf("after the install: %d bytes listed, want %d", len(got), len(want))
			}
			if got := dumpSpace(t, db, "u"); got != wantOther {
				t.Fatalf("the other space after the install: %d bytes listed, want %d", len(got), len(wantOther))
			}
			if !durable {
				return
			}
			state := dumpState(t, db)
			if !strings.Contains(state, `catalog "installed"="yes"`) {
				t.Fatalf("the install's function wrote nothing:\n%.300s", state)
			}
			ck := db.eng.(*memEngine).wal.ck
			ck.running.Lock()
			copied := copyFiles(t, dir)
			ck.running.Unlock()
			wantReopened(t, filepath.Join(copied, "db"), segmentLimit, state, "crash after the install")
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			wantReopened(t, path, segmentLimit, state, "closed after the install")
		})
	}
}

// TestBulkConflict: a write to the space's data after NewBulk, or the
// space dropped, makes Install fail with ErrBulkConflict and change
// nothing; a durable store's files then hold what its memory does.
func TestBulkConflict(t *testing.T) {
	for _, drop := range []bool{false, true} {
		t.Run(fmt.Sprint("drop=", drop), func(t *testing.T) {
			dir := t.TempDir()
			db := openPath(t, filepath.Join(dir, "db"), segmentLimit)
			defer db.Close()
			withSpace(t, db, "t", "a")
			b, _ := buildBulk(t, db, "t", 100)
			mustUpdate(t, db, func(tx *Tx) error {
				if drop {
					return tx.DropSpace("t")
				}
				return tx.Space("t").Put([]byte("b"), []byte("written"))
			})
			state := dumpState(t, db)
			err := b.Install(context.Background(), func(tx *Tx) error { return tx.CatalogPut([]byte("installed"), []byte("yes")) })
			if !errors.Is(err, ErrBulkConflict) {
				t.Fatalf("Install: %v, want ErrBulkConflict", err)
			}
			if got := dumpState(t, db); got != state {
				t.Fatalf("the failed install changed the state:\n%s\nwant:\n%s", got, state)
			}
			ck := db.eng.(*memEngine).wal.ck
			ck.running.Lock()
			copied := copyFiles(t, dir)
			ck.running.Unlock()
			wantReopened(t, filepath.Join(copied, "db"), segmentLimit, state, "crash after the failed install")
		})
	}
}

// TestBulkEtcd: a shared store has no bulk load; its callers write
// through Update.
func TestBulkEtcd(t *testing.T) {
	db := openEtcdTemp(t)
	if _, ok, _ := db.NewBulk("t"); ok {
		t.Fatal("NewBulk on etcd: ok")
	}
}

// BenchmarkBulkInstall measures Install of a durable store's bulk load of
// 200,000 entries (a 15-byte key and 100-byte value, put in a random
// order): mostly fillBolt's writing of the data into bbolt, fsynced per
// transaction. -benchmem's figures are the fill's garbage, which a server
// holding a large table pays for in collector headroom.
func BenchmarkBulkInstall(b *testing.B) {
	const n = 200000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "%06x-user-%04d", uint32(i)*2654435761, i%10000)
	}
	val := []byte(strings.Repeat("v", 100))
	for range b.N {
		b.StopTimer()
		db, err := Open(Options{Path: filepath.Join(b.TempDir(), "db")})
		if err != nil {
			b.Fatal(err)
		}
		withSpace(b, db, "t")
		bk, _, _ := db.NewBulk("t")
		for _, k := range keys {
			if err := bk.Put(k, val); err != nil {
				b.Fatal(err)
			}
		}
		bk.Len()
		b.StartTimer()
		if err := bk.Install(context.Background(), func(*Tx) error { return nil }); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkBulkPut measures Put and the sorted runs' inserts of 200,000
// entries put in a random order, until Len: keys that begin with four
// bytes of a hash, as a table's storage keys begin with their partition
// key's.
func BenchmarkBulkPut(b *testing.B) {
	const n = 200000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(binary.BigEndian.AppendUint32(nil, uint32(i)*2654435761), "-user-%04d", i%10000)
	}
	val := []byte(strings.Repeat("v", 100))
	db := openMem(b)
	withSpace(b, db, "t")
	b.ReportAllocs()
	for range b.N {
		bk, _, _ := db.NewBulk("t")
		for _, k := range keys {
			if err := bk.Put(k, val); err != nil {
				b.Fatal(err)
			}
		}
		if bk.Len() != n {
			b.Fatal("lost entries")
		}
	}
}
