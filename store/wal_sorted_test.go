package store

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// setSorted sets a checkpointer's sorted-checkpoint bounds (min = MaxInt:
// never sorted; any keyspace with an entry qualifies) and step hook,
// between two checkpoints. The keys are collected 64 bytes at a time
// (many ranges of first bytes, setKeyBytes).
func setSorted(ck *checkpointer, min, nodes, size int, stepped func(string)) {
	ck.running.Lock()
	defer ck.running.Unlock()
	ck.sortedMin, ck.sortedTable, ck.sortedNodes, ck.sortedBytes, ck.stepped = min, 1, nodes, size, stepped
	ck.sortedKeyBytes = 64
}

// setKeyBytes sets the bound of the keys a sorted checkpoint collects at
// once, between two checkpoints.
func setKeyBytes(ck *checkpointer, n int) {
	ck.running.Lock()
	defer ck.running.Unlock()
	ck.sortedKeyBytes = n
}

// spreadWrite is an Update function that puts or deletes a few keys spread
// over space "big" (created by the first call), as a bulk load does.
func spreadWrite(rng *rand.Rand) func(tx *Tx) error {
	seed := rng.Uint64()
	return func(tx *Tx) error {
		r := rand.New(rand.NewPCG(seed, 2))
		if tx.Space("big") == nil {
			if err := tx.CreateSpace("big"); err != nil {
				return err
			}
		}
		sp := tx.Space("big")
		for range 1 + r.IntN(20) {
			key := []byte(fmt.Sprintf("%04x", r.IntN(3000)))
			var err error
			if r.IntN(5) == 0 {
				err = sp.Delete(key)
			} else {
				err = sp.Put(key, []byte(strings.Repeat("w", r.IntN(60))))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// boltDump renders every bucket (with its sequence), key and value of the
// bbolt file at path: what a checkpoint wrote, byte for byte.
func boltDump(t *testing.T, path string) string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sb strings.Builder
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		fmt.Fprintf(&sb, "%s seq %d\n", prefix, b.Sequence())
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(fmt.Sprintf("%s/%q", prefix, k), b.Bucket(k))
			} else {
				fmt.Fprintf(&sb, "%s %q=%q\n", prefix, k, v)
			}
			return nil
		})
	}
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			walk(fmt.Sprintf("%q", name), b)
			return nil
		})
	})
	return sb.String()
}

// TestSortedCheckpointIsPlain runs the same random writes (spread puts and
// deletes, log appends and trims, spaces created and dropped, the catalog)
// against two durable stores, one checkpointing record by record, the
// other sorted wherever a keyspace qualifies, with checkpoints running
// during the writes: once both have closed (checkpointing everything), the
// two bbolt files hold the same buckets, sequences, keys and values.
func TestSortedCheckpointIsPlain(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			var sorted int
			var mu sync.Mutex
			dumps := make([]string, 2)
			for i, min := range []int{math.MaxInt, 1 + int(seed)*8} {
				path := filepath.Join(t.TempDir(), "db")
				db := openPath(t, path, 4<<10)
				setSorted(db.eng.(*memEngine).wal.ck, min, 3, 400, func(step string) {
					mu.Lock()
					defer mu.Unlock()
					if step == "sorted committed" {
						sorted++
					}
				})
				if seed%2 == 0 { // every key at once; odd seeds, 64 bytes at a time
					setKeyBytes(db.eng.(*memEngine).wal.ck, sortedKeyBytes)
				}
				rng := rand.New(rand.NewPCG(seed, 3))
				for range 400 {
					if rng.IntN(3) == 0 {
						_ = db.Update(context.Background(), randomWrite(rng))
					} else {
						_ = db.Update(context.Background(), spreadWrite(rng))
					}
				}
				want := dumpState(t, db)
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				dumps[i] = boltDump(t, path)
				wantReopened(t, path, 4<<10, want, "reopened")
			}
			if sorted == 0 {
				t.Fatal("no sorted checkpoint ran")
			}
			if dumps[0] != dumps[1] {
				t.Errorf("bbolt after sorted checkpoints:\n%s\nafter plain ones:\n%s", dumps[1], dumps[0])
			}
		})
	}
}

// TestSortedCheckpointCrashAtEveryStep: the files as a crash would leave
// them after each step of checkpoints (a chunk of records, a bounded
// transaction of sorted keys, the segment applied, the segment removed)
// open with exactly the acknowledged writes, while the store keeps taking
// writes between the steps, so that the state sorted transactions read is
// ahead of the segment they checkpoint. The plain path runs it too: a
// crash between its chunks, replayed, once met a write to a space that a
// later record of the segment, already in bbolt, had dropped.
func TestSortedCheckpointCrashAtEveryStep(t *testing.T) {
	for _, tt := range []struct {
		name  string
		min   int
		steps []string
	}{
		{"plain", math.MaxInt, []string{"chunk committed", "segment applied", "segment removed"}},
		{"sorted", 4, []string{"chunk committed", "sorted committed", "segment applied", "segment removed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			crashes := crashEverySortedStep(t, tt.min)
			seen := map[string]int{}
			for _, c := range crashes {
				seen[c.step]++
			}
			for _, s := range tt.steps {
				if seen[s] == 0 {
					t.Errorf("no crash after %q among %v", s, seen)
				}
			}
			for i, c := range crashes {
				wantReopened(t, filepath.Join(c.files, "db"), 3<<10, c.want, fmt.Sprintf("crash %d, after %s", i, c.step))
			}
		})
	}
}

// crashAt is the files a crash would leave after a checkpoint step, and
// the state acknowledged then.
type crashAt struct{ files, step, want string }

// crashEverySortedStep writes to a durable store whose checkpoints go
// sorted from min operations on and copies its files after each step.
func crashEverySortedStep(t *testing.T, min int) []crashAt {
	dir := t.TempDir()
	db := openPath(t, filepath.Join(dir, "db"), 3<<10)
	ck := db.eng.(*memEngine).wal.ck
	rng := rand.New(rand.NewPCG(13, 13))
	var crashes []crashAt
	var done atomic.Bool
	var writes atomic.Int32
	setSorted(ck, min, 3, 300, func(step string) {
		// On the checkpointer's goroutine: a write lands between two
		// steps (a bounded number, so that the checkpoints catch up),
		// then the files are copied as a crash would leave them.
		if done.Load() {
			return
		}
		if writes.Add(1) < 200 {
			_ = db.Update(context.Background(), spreadWrite(rng))
		}
		crashes = append(crashes, crashAt{copyFiles(t, dir), step, dumpState(t, db)})
	})
	ck.running.Lock()
	ck.chunk = 500
	for i := range 150 {
		if i%4 == 0 {
			_ = db.Update(context.Background(), randomWrite(rng))
		} else {
			_ = db.Update(context.Background(), spreadWrite(rng))
		}
	}
	ck.running.Unlock()
	for idle := false; !idle || writes.Load() < 200; time.Sleep(time.Millisecond) {
		seg, err := db.eng.(*memEngine).handOver()
		if err == nil {
			err = ck.waitApplied(seg)
		}
		if err != nil {
			t.Fatal(err)
		}
		ck.mu.Lock()
		idle = len(ck.pending) == 0
		ck.mu.Unlock()
	}
	done.Store(true)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return crashes
}

// sortedKillEnv names the database a TestSortedKillChild process writes
// to; killModeEnv its sync mode.
const sortedKillEnv = "DDBLOCAL_STORE_SORTED_KILL_CHILD"

// TestSortedKillChild is the writer that
// TestKilledSortedCheckpointKeepsAckedWrites kills; run on its own it does
// nothing. Eight goroutines put keys spread over one space, with small
// segments checkpointed sorted, and print each key once its Update has
// returned; the checkpointer prints "sorted" after each sorted
// transaction, and pauses there so that the kill lands in the middle.
func TestSortedKillChild(t *testing.T) {
	path := os.Getenv(sortedKillEnv)
	if path == "" {
		t.Skip("only runs as TestKilledSortedCheckpointKeepsAckedWrites's child")
	}
	mode, err := ParseSyncMode(os.Getenv(killModeEnv))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	eng, err := openDurableLimit(path, mode, 64<<10, nil)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	db := newDB(eng)
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	say := func(s string) {
		mu.Lock()
		fmt.Fprintln(out, s)
		out.Flush()
		mu.Unlock()
	}
	setSorted(eng.wal.ck, 64, 8, 4<<10, func(step string) {
		if step == "sorted committed" {
			say("sorted")
			time.Sleep(5 * time.Millisecond)
		}
	})
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("t") })
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; ; i += 8 {
				n := strconv.Itoa(i)
				if err := db.Update(context.Background(), func(tx *Tx) error {
					return tx.Space("t").Put(spreadKey(i), []byte(n))
				}); err != nil {
					return
				}
				say(n)
			}
		})
	}
	wg.Wait()
}

// spreadKey is key i of the kill test: consecutive i land far apart.
func spreadKey(i int) []byte { return []byte(fmt.Sprintf("%08x", uint32(i)*2654435761)) }

// TestKilledSortedCheckpointKeepsAckedWrites kills (SIGKILL) a process
// writing keys spread over a space while its checkpointer is in the
// middle of a sorted checkpoint: every write whose Update had returned
// must be there when the database is opened again, in both sync modes.
func TestKilledSortedCheckpointKeepsAckedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	for _, mode := range []SyncMode{SyncBackground, SyncAlways} {
		t.Run(mode.String(), func(t *testing.T) { killSortedAndReopen(t, mode) })
	}
}

func killSortedAndReopen(t *testing.T, mode SyncMode) {
	path := filepath.Join(t.TempDir(), "db")
	sorted := 0
	acked := runKillChild(t, "^TestSortedKillChild$", []string{sortedKillEnv + "=" + path, killModeEnv + "=" + mode.String()},
		func(line string) {
			if line != "sorted" {
				t.Fatalf("child said %q", line)
			}
			sorted++
		},
		func(acked map[int]bool) bool { return len(acked) >= 4000 && sorted >= 10 })
	if len(acked) < 4000 || sorted < 10 {
		t.Fatalf("child acknowledged %d writes and %d sorted transactions", len(acked), sorted)
	}
	checkAcked(t, path, acked, spreadKey)
}

// TestSortedCloseLeavesBacklog: a Close that finds a segment to
// checkpoint sorted stops once its budget is spent, counting the pages
// each sorted transaction rewrites: deletes spread over a table are few
// bytes of log but touch every page (counting their bytes alone let a
// close rewrite a whole table, 4 s after a 1,000,000-item load). The next
// open replays the rest.
func TestSortedCloseLeavesBacklog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	const limit, budget = 1 << 20, 64 << 10
	db := openPath(t, path, limit)
	ck := db.eng.(*memEngine).wal.ck
	var sorted, atClose atomic.Int32
	setSorted(ck, 16, 4, 1<<20, func(step string) {
		if step != "sorted committed" {
			return
		}
		sorted.Add(1)
		ck.mu.Lock()
		if ck.closing {
			atClose.Add(1)
		}
		ck.mu.Unlock()
	})
	ck.mu.Lock()
	ck.closeBudget = budget
	ck.mu.Unlock()
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("t") })
	val := []byte(strings.Repeat("v", 200))
	for i := range 3000 {
		mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").Put(spreadKey(i), val) })
	}
	seg, err := db.eng.(*memEngine).handOver()
	if err == nil {
		err = ck.waitApplied(seg)
	}
	if err != nil {
		t.Fatal(err)
	}
	ck.running.Lock() // the deletes wait for Close
	for i := range 2000 {
		mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").Delete(spreadKey(i)) })
	}
	want := dumpState(t, db)
	closeHeld(t, db, ck)
	if sorted.Load() == 0 {
		t.Fatal("no sorted transaction ran")
	}
	if segs, err := listSegments(osFS{}, path); err != nil || len(segs) != 1 {
		t.Fatalf("segments after Close = %v, %v; want the deletes' left", segs, err)
	}
	// Each sorted transaction rewrites its 4 nodes' pages: the budget
	// covers a few of them.
	if n := atClose.Load(); n > budget/(4*4096)+2 {
		t.Errorf("Close ran %d sorted transactions of 4 pages; budget %d bytes", n, budget)
	}
	wantReopened(t, path, limit, want, "reopened after a prompt Close")
}

// TestSortedNeedsLargeKeyspace: a keyspace a segment writes often goes
// sorted only once it holds sortedTable entries; below that the plain
// path's transaction is small anyway.
func TestSortedNeedsLargeKeyspace(t *testing.T) {
	for _, tt := range []struct {
		keys   int
		sorted bool
	}{{300, false}, {3000, true}} {
		t.Run(fmt.Sprint(tt.keys), func(t *testing.T) {
			db := openPath(t, filepath.Join(t.TempDir(), "db"), 32<<10)
			ck := db.eng.(*memEngine).wal.ck
			var sorted atomic.Int32
			setSorted(ck, 16, 2, 1<<20, func(step string) {
				if step == "sorted committed" {
					sorted.Add(1)
				}
			})
			ck.running.Lock()
			ck.sortedTable = 1000
			ck.running.Unlock()
			mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("t") })
			for i := range 4 * tt.keys {
				mustUpdate(t, db, func(tx *Tx) error {
					return tx.Space("t").Put(spreadKey(i%tt.keys), fmt.Appendf(nil, "%0200d", i))
				})
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if got := sorted.Load() > 0; got != tt.sorted {
				t.Errorf("sorted transactions: %d; want some: %v", sorted.Load(), tt.sorted)
			}
		})
	}
}

// TestKeyRanges: the ranges of first bytes cover 0-255 in order, each
// holds at most the bound of keys and spans unless it is one first byte,
// and a range ends only where the next byte would pass the bound.
func TestKeyRanges(t *testing.T) {
	hist := func(counts map[int]keyCount) *sortedKeys {
		s := &sortedKeys{}
		for b, c := range counts {
			s.hist[b] = c
		}
		return s
	}
	for _, tt := range []struct {
		name  string
		plan  map[ckptTarget]*sortedKeys
		bound int
		want  [][2]int
	}{
		{"empty", map[ckptTarget]*sortedKeys{}, 100, [][2]int{{0, 256}}},
		{"under the bound", map[ckptTarget]*sortedKeys{{"a", 0}: hist(map[int]keyCount{1: {2, 10}, 200: {1, 5}})}, 100, [][2]int{{0, 256}}},
		// each byte 1, 2, 3 takes 2*8+24 = 40 bytes: two fit in 80
		{"split", map[ckptTarget]*sortedKeys{{"a", 0}: hist(map[int]keyCount{1: {2, 24}, 2: {2, 24}, 3: {2, 24}})}, 80, [][2]int{{0, 3}, {3, 256}}},
		// two keyspaces add up: byte 5 takes 40+40
		{"summed", map[ckptTarget]*sortedKeys{{"a", 0}: hist(map[int]keyCount{5: {2, 24}}), {"b", 0}: hist(map[int]keyCount{5: {2, 24}, 6: {1, 1}})}, 80, [][2]int{{0, 6}, {6, 256}}},
		// one byte over the bound stands alone
		{"one byte over", map[ckptTarget]*sortedKeys{{"a", 0}: hist(map[int]keyCount{0: {1, 1}, 7: {10, 100}, 8: {1, 1}})}, 50, [][2]int{{0, 7}, {7, 8}, {8, 256}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := keyRanges(tt.plan, tt.bound); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("keyRanges = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSortedKeysCollectRange: keys outside the range are not collected,
// and collect empties what the last range held.
func TestSortedKeysCollectRange(t *testing.T) {
	s := &sortedKeys{}
	s.hist['a'] = keyCount{2, 4}
	s.hist['b'] = keyCount{1, 2}
	s.collect('a', 'b')
	for _, k := range []string{"b1", "a2", "", "a1", "a2"} {
		s.add([]byte(k))
	}
	s.sort()
	var got []string
	for _, sp := range s.spans {
		got = append(got, string(s.key(sp)))
	}
	s.collect(0, 'a')
	s.add([]byte(""))
	s.add([]byte("a1"))
	if fmt.Sprint(got) != "[a1 a2]" || len(s.spans) != 1 || len(s.key(s.spans[0])) != 0 {
		t.Errorf("range a: %q; then range 0-a holds %d keys; want [a1 a2], then the empty key alone", got, len(s.spans))
	}
}
