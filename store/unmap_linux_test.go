package store

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCheckpointDropsMapped: a checkpoint of updates spread over a space
// reads bbolt pages through bbolt's map to change them, and gives them back
// once committed: the map's resident pages (/proc/self/smaps) are few
// after it, where without dropMapped they were the pages it read.
func TestCheckpointDropsMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openPath(t, path, 64<<10)
	defer db.Close()
	val := []byte(strings.Repeat("v", 100))
	withSpace(t, db, "t")
	putRange(t, db, 3000, val)
	rng := rand.New(rand.NewPCG(3, 3))
	for range 300 {
		k := fmt.Appendf(nil, "k%05d", rng.IntN(3000))
		mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").Put(k, append(val, 'x')) })
	}
	e := db.eng.(*memEngine)
	seg, err := e.handOver()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.wal.ck.waitApplied(seg); err != nil {
		t.Fatal(err)
	}
	// Without dropMapped: 800 KiB. With it, 64 KiB remain here: pages
	// the kernel counts as dirty (written by the commits, without fsync in
	// this test, and not yet written back), which it does not unmap.
	if kb := mappedRSS(t, e.wal.ck.b.db.Info().Data); kb > 128 {
		t.Errorf("bbolt's map holds %d KiB resident after the checkpoints, want at most 128", kb)
	}
}

// mappedRSS returns the resident KiB of this process's mapping that starts
// at addr, from /proc/self/smaps.
func mappedRSS(t *testing.T, addr uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	start := strconv.FormatUint(uint64(addr), 16) + "-"
	sc := bufio.NewScanner(f)
	for in := false; sc.Scan(); {
		line := sc.Text()
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") { // a mapping's first line
			in = strings.HasPrefix(line, start)
			continue
		}
		if rss, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rss), " kB"))
			return kb
		}
	}
	t.Fatalf("no mapping at %x in /proc/self/smaps", addr)
	return 0
}

// TestRecoveryDropsMapped: opening a durable store loads all of bbolt
// through its map into the memory engine, and then gives the pages back:
// without dropMapped the whole file stayed resident until a checkpoint.
func TestRecoveryDropsMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db := openPath(t, path, 64<<10)
	val := []byte(strings.Repeat("v", 100))
	withSpace(t, db, "t")
	putRange(t, db, 6000, val)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openPath(t, path, 64<<10)
	defer db.Close()
	if kb := mappedRSS(t, db.eng.(*memEngine).wal.ck.b.db.Info().Data); kb > 128 {
		t.Errorf("bbolt's map holds %d KiB resident after the start-up load, want at most 128", kb)
	}
}

// putRange puts keys k00000 to k(n-1), each with val, into space "t", a
// hundred a transaction.
func putRange(t *testing.T, db *DB, n int, val []byte) {
	t.Helper()
	for i := 0; i < n; i += 100 {
		mustUpdate(t, db, func(tx *Tx) error {
			for j := i; j < min(i+100, n); j++ {
				if err := tx.Space("t").Put(fmt.Appendf(nil, "k%05d", j), val); err != nil {
					return err
				}
			}
			return nil
		})
	}
}
