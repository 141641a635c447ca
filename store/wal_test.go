package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// dumpState renders everything a DB holds, for comparing two states.
func dumpState(t testing.TB, db *DB) string {
	t.Helper()
	var sb strings.Builder
	mustView(t, db, func(tx *Tx) error {
		dumpTxn(&sb, tx.t)
		return nil
	})
	return sb.String()
}

func dumpTxn(sb *strings.Builder, t txn) {
	t.catalog().ascend(nil, nil, func(k, v []byte) bool {
		fmt.Fprintf(sb, "catalog %q=%q\n", k, v)
		return true
	})
	t.spaceIDs(func(id string) bool {
		sp := t.space(id)
		fmt.Fprintf(sb, "space %q seq %d\n", id, sp.sub(subLog).sequence())
		for which := range subCount {
			sp.sub(which).ascend(nil, nil, func(k, v []byte) bool {
				fmt.Fprintf(sb, "  %d %q=%q\n", which, k, v)
				return true
			})
		}
		return true
	})
}

// randomWrite is one Update function drawn from rng: a few catalog, space,
// data, log and metadata changes. Failures it provokes on purpose (a space
// that exists already) make the whole call fail and change nothing.
func randomWrite(rng *rand.Rand) func(tx *Tx) error {
	seed := rng.Uint64()
	return func(tx *Tx) error {
		r := rand.New(rand.NewPCG(seed, 1)) // the same choices if re-run
		spaces := []string{"s1", "s2", "s3"}
		for range 1 + r.IntN(6) {
			id := spaces[r.IntN(len(spaces))]
			key := []byte(fmt.Sprintf("k%02d", r.IntN(30)))
			val := []byte(strings.Repeat("v", r.IntN(40)))
			sp := tx.Space(id)
			var err error
			switch n := r.IntN(20); {
			case n == 0:
				err = tx.CatalogPut(key, val)
			case n == 1:
				err = tx.CatalogDelete(key)
			case n == 2:
				err = tx.DropSpace(id)
			case sp == nil || n == 3:
				if sp == nil {
					err = tx.CreateSpace(id)
				}
			case n < 12:
				err = sp.Put(key, val)
			case n < 15:
				err = sp.Delete(key)
			case n < 18:
				_, err = sp.AppendLog(val)
			case n == 18:
				err = sp.TrimLog(sp.LastLogSeq() / 2)
			default:
				err = sp.AddStats(1, int64(len(val)))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// copyFiles copies every file in src into a new directory, as a crash would
// leave them (the page cache survives a killed process).
func copyFiles(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		in, err := os.Open(filepath.Join(src, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // the spare's temporary file, renamed meanwhile
		}
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		in.Close()
		out.Close()
	}
	return dst
}

func openPath(t *testing.T, path string, limit int64) *DB {
	t.Helper()
	eng, err := openDurableLimit(path, syncNever, limit, nil)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return newDB(eng)
}

// wantReopened opens the store at path (without fsync) and fails the test
// unless it holds want.
func wantReopened(t *testing.T, path string, limit int64, want, what string) {
	t.Helper()
	db := openPath(t, path, limit)
	if got := dumpState(t, db); got != want {
		t.Errorf("%s: recovered state differs:\ngot:\n%s\nwant:\n%s", what, got, want)
	}
	if err := db.Close(); err != nil {
		t.Errorf("%s: close: %v", what, err)
	}
}

// TestDurableCrashRecovery copies the files of an open durable DB after each
// of many random commits (what a crash at that moment leaves), with segments
// small enough that checkpoints run meanwhile, and opens each copy: it must
// hold exactly what had been committed.
func TestDurableCrashRecovery(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	db := openPath(t, path, 2<<10)
	defer db.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 120 {
		_ = db.Update(context.Background(), randomWrite(rng))
		if i%10 != 9 {
			continue
		}
		want := dumpState(t, db)
		ck := db.eng.(*memEngine).wal.ck
		ck.running.Lock()
		copied := copyFiles(t, dir)
		ck.running.Unlock()
		wantReopened(t, filepath.Join(copied, "db"), 2<<10, want, fmt.Sprintf("after commit %d", i))
	}
}

// TestDurableTornTail cuts the last record short at every length, as a
// crash in the middle of its write would: the DB must open with the state
// before that commit, and accept new commits after it.
func TestDurableTornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	db := openPath(t, path, segmentLimit)
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		_ = db.Update(context.Background(), randomWrite(rng))
	}
	before := dumpState(t, db)
	mustUpdate(t, db, func(tx *Tx) error {
		if tx.Space("torn") == nil {
			if err := tx.CreateSpace("torn"); err != nil {
				return err
			}
		}
		return tx.Space("torn").Put([]byte("key"), []byte(strings.Repeat("x", 100)))
	})
	after := dumpState(t, db)

	segs, err := listSegments(osFS{}, path)
	if err != nil || len(segs) != 1 {
		t.Fatalf("segments = %v, %v; want one", segs, err)
	}
	full, err := os.ReadFile(segmentName(path, segs[0]))
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	if _, err := readRecords(strings.NewReader(string(full)), func(body []byte) error {
		ends = append(ends, recordHeader+int64(len(body)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lastStart := int64(len(full)) - ends[len(ends)-1]
	for cut := lastStart; cut <= int64(len(full)); cut += 7 {
		if cut == int64(len(full)) {
			continue
		}
		copyDir := copyFiles(t, dir)
		if err := os.Truncate(segmentName(filepath.Join(copyDir, "db"), segs[0]), cut); err != nil {
			t.Fatal(err)
		}
		crashed := openPath(t, filepath.Join(copyDir, "db"), segmentLimit)
		if got := dumpState(t, crashed); got != before {
			t.Fatalf("cut at %d of %d: recovered state is not the one before the torn commit", cut, len(full))
		}
		mustUpdate(t, crashed, func(tx *Tx) error { return tx.CatalogPut([]byte("later"), []byte("1")) })
		want := dumpState(t, crashed)
		if err := crashed.Close(); err != nil {
			t.Fatal(err)
		}
		wantReopened(t, filepath.Join(copyDir, "db"), segmentLimit, want, fmt.Sprintf("cut at %d, a commit after recovery", cut))
	}
	// The whole record recovers the commit.
	wantReopened(t, filepath.Join(copyFiles(t, dir), "db"), segmentLimit, after, "intact log")
}

// TestDurableCloseCheckpoints checks that a clean Close leaves bbolt holding
// everything and no segments, after rotations made the checkpointer run.
func TestDurableCloseCheckpoints(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	db := openPath(t, path, 1<<10)
	rng := rand.New(rand.NewPCG(5, 5))
	for range 200 {
		_ = db.Update(context.Background(), randomWrite(rng))
	}
	want := dumpState(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if segs, err := listSegments(osFS{}, path); err != nil || len(segs) != 0 {
		t.Errorf("segments after Close = %v, %v; want none", segs, err)
	}
	b, err := openBolt(osFS{}, path, true)
	if err != nil {
		t.Fatal(err)
	}
	bdb := newDB(b)
	if got := dumpState(t, bdb); got != want {
		t.Errorf("bbolt after Close:\n%s\nwant:\n%s", got, want)
	}
	if err := bdb.Close(); err != nil {
		t.Fatal(err)
	}
	wantReopened(t, path, 1<<10, want, "reopened")
}

// TestReplayIsIdempotent applies a log again over every state a checkpoint
// interrupted part-way could have left: the result must not depend on where
// it stopped.
func TestReplayIsIdempotent(t *testing.T) {
	e := newMemEngine()
	e.wal = &wal{} // only to make begin record; commit never appends here
	rng := rand.New(rand.NewPCG(9, 9))
	var records [][]byte
	for range 60 {
		tx, _ := e.begin(true)
		mt := tx.(*memTxn)
		err := randomWrite(rng)(&Tx{t: mt})
		if err != nil || mt.rec.empty() {
			mt.rollback()
			continue
		}
		records = append(records, slices.Clone(mt.rec.seal()[recordHeader:]))
		mt.rec = nil // committed without the log
		if err := mt.commit(); err != nil {
			t.Fatal(err)
		}
	}
	apply := func(e *memEngine, recs [][]byte) {
		t.Helper()
		tx, _ := e.begin(true)
		for _, r := range recs {
			if err := applyRecord(tx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.commit(); err != nil {
			t.Fatal(err)
		}
	}
	dump := func(e *memEngine) string {
		var sb strings.Builder
		tx, _ := e.begin(false)
		defer tx.rollback()
		dumpTxn(&sb, tx)
		return sb.String()
	}
	full := newMemEngine()
	apply(full, records)
	want := dump(full)
	var orig strings.Builder
	otx, _ := e.begin(false)
	dumpTxn(&orig, otx)
	otx.rollback()
	if orig.String() != want {
		t.Fatalf("replaying the records does not rebuild the state they logged")
	}
	for k := range len(records) {
		m := newMemEngine()
		apply(m, records[:k])
		apply(m, records)
		if got := dump(m); got != want {
			t.Fatalf("prefix of %d records applied twice: state differs", k)
		}
	}
}

// TestWALFailureFailsCommit makes the log unwritable: the commit must fail
// and stay invisible, and later commits must fail too.
func TestWALFailureFailsCommit(t *testing.T) {
	db := openDurableTemp(t)
	withSpace(t, db, "t", "a")
	before := dumpState(t, db)
	w := db.eng.(*memEngine).wal
	w.f.Close() // every write to it fails from now on
	for range 2 {
		err := db.Update(context.Background(), func(tx *Tx) error {
			return tx.Space("t").Put([]byte("b"), []byte("b"))
		})
		if err == nil {
			t.Fatal("Update succeeded with an unwritable log")
		}
	}
	if got := dumpState(t, db); got != before {
		t.Errorf("a failed commit became visible:\n%s", got)
	}
	w.f = nil // already closed
}

func TestReadRecordsStopsAtDamage(t *testing.T) {
	var r recorder
	var log []byte
	for i := range 3 {
		r.reset()
		r.put("s", subData, []byte{byte(i)}, []byte("value"))
		log = append(log, r.seal()...)
	}
	recLen := len(log) / 3
	tests := []struct {
		name string
		data []byte
		want int // intact records
	}{
		{"intact", log, 3},
		{"zeros after", append(slices.Clone(log), make([]byte, 64)...), 3},
		{"short header", log[:2*recLen+3], 2},
		{"short body", log[:3*recLen-1], 2},
		{"flipped byte", func() []byte { d := slices.Clone(log); d[recLen+10] ^= 1; return d }(), 1},
		{"empty", nil, 0},
	}
	for _, tt := range tests {
		got := 0
		end, err := readRecords(strings.NewReader(string(tt.data)), func([]byte) error { got++; return nil })
		if err != nil || got != tt.want || end != int64(tt.want*recLen) {
			t.Errorf("%s: got %d records ending at %d (%v), want %d ending at %d", tt.name, got, end, err, tt.want, tt.want*recLen)
		}
	}
}

// TestLeftoverSegmentIgnored puts back a segment that a checkpoint had
// absorbed (a crash between bbolt's commit and the file's removal leaves
// one): opening must not replay it over newer state.
func TestLeftoverSegmentIgnored(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	var oldSeg uint64
	var old []byte
	for _, val := range []string{"old", "new"} {
		db := openPath(t, path, segmentLimit)
		mustUpdate(t, db, func(tx *Tx) error { return tx.CatalogPut([]byte("k"), []byte(val)) })
		if old == nil {
			segs, err := listSegments(osFS{}, path)
			if err != nil || len(segs) != 1 {
				t.Fatalf("segments = %v, %v; want one", segs, err)
			}
			oldSeg = segs[0]
			if old, err = os.ReadFile(segmentName(path, oldSeg)); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(segmentName(path, oldSeg), old, 0o600); err != nil {
		t.Fatal(err)
	}
	db := openPath(t, path, segmentLimit)
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		if got := string(tx.CatalogGet([]byte("k"))); got != "new" {
			t.Errorf("k = %q, want %q", got, "new")
		}
		return nil
	})
	if _, err := os.Stat(segmentName(path, oldSeg)); !os.IsNotExist(err) {
		t.Errorf("leftover segment not removed: %v", err)
	}
}

// TestSpareSegments runs with fsync, where segments come from zero-filled
// spares: the log must move into them, recover from a crash copy (zeros
// after the last record are its end; a record torn in place is dropped),
// and leave nothing behind on Close.
func TestSpareSegments(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	const limit = 64 << 10
	eng, err := openDurableLimit(path, SyncBackground, limit, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := newDB(eng)
	w := eng.wal
	rng := rand.New(rand.NewPCG(11, 11))
	for w.seg < 4 || !w.prealloc {
		_ = db.Update(context.Background(), randomWrite(rng))
	}
	if st, err := os.Stat(segmentName(path, w.seg)); err != nil || st.Size() < limit {
		t.Fatalf("current segment %v (%v): want a preallocated file of %d bytes", st, err, limit)
	}
	before := dumpState(t, db)
	lastAt := w.size
	mustUpdate(t, db, func(tx *Tx) error { return tx.CatalogPut([]byte("last"), bytes.Repeat([]byte("z"), 50)) })
	after := dumpState(t, db)

	crashCopy := func() string {
		w.ck.running.Lock()
		defer w.ck.running.Unlock()
		return filepath.Join(copyFiles(t, dir), "db")
	}
	for _, tt := range []struct {
		name string
		tear bool
		want string
	}{{"intact", false, after}, {"last record torn", true, before}} {
		copied := crashCopy()
		if tt.tear {
			f, err := os.OpenFile(segmentName(copied, w.seg), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			// The record's second half never reached the disk.
			if _, err := f.WriteAt(make([]byte, (w.size-lastAt)/2), lastAt+(w.size-lastAt)/2); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		wantReopened(t, copied, limit, tt.want, tt.name)
	}

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files after Close: %v, want the bbolt file alone", names)
	}
}

// TestCheckpointRetries fails the first checkpoints: the failure is logged,
// the segment stays, and a later retry absorbs it; Close then leaves the
// bbolt file alone and reports nothing.
func TestCheckpointRetries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	var logged strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	eng, err := openDurableLimit(path, syncNever, 1<<10, log)
	if err != nil {
		t.Fatal(err)
	}
	var failures atomic.Int32
	eng.wal.ck.inject(time.Millisecond, func(uint64) error {
		if failures.Add(1) <= 3 {
			return errors.New("disk full")
		}
		return nil
	})
	db := newDB(eng)
	rng := rand.New(rand.NewPCG(13, 13))
	for range 50 {
		_ = db.Update(context.Background(), randomWrite(rng))
	}
	want := dumpState(t, db)
	// Let the retries get past the failures before Close, which would
	// otherwise report the one it interrupts.
	for deadline := time.Now().Add(5 * time.Second); failures.Load() <= 3 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close after the checkpoints recovered: %v", err)
	}
	if failures.Load() <= 3 {
		t.Fatalf("%d checkpoint attempts; the test needs retries", failures.Load())
	}
	mu.Lock()
	if !strings.Contains(logged.String(), "checkpoint failed") || !strings.Contains(logged.String(), "disk full") {
		t.Errorf("log = %q, want the checkpoint failure", logged.String())
	}
	mu.Unlock()
	if segs, _ := listSegments(osFS{}, path); len(segs) != 0 {
		t.Errorf("segments left: %v", segs)
	}
	wantReopened(t, path, 1<<10, want, "reopened")
}

// TestCheckpointFailureKeepsLog makes every checkpoint fail: Close reports
// it, the segments stay, and the next open replays them.
func TestCheckpointFailureKeepsLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	eng, err := openDurableLimit(path, syncNever, 1<<10, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng.wal.ck.inject(time.Millisecond, func(uint64) error { return errors.New("disk full") })
	db := newDB(eng)
	rng := rand.New(rand.NewPCG(17, 17))
	for range 50 {
		_ = db.Update(context.Background(), randomWrite(rng))
	}
	want := dumpState(t, db)
	if err := db.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close = %v, want the checkpoint failure", err)
	}
	if segs, _ := listSegments(osFS{}, path); len(segs) == 0 {
		t.Fatal("no segments left after failed checkpoints")
	}
	wantReopened(t, path, 1<<10, want, "reopened")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
