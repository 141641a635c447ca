package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bgIdle waits until the background syncer has synced every record
// written, so that the next sync to start is a later commit's.
func bgIdle(t *testing.T, e *memEngine) {
	t.Helper()
	if err := e.wal.bg.drain(); err != nil {
		t.Fatal(err)
	}
}

// bgUnsynced returns how many bytes of records are written and not yet
// synced.
func bgUnsynced(e *memEngine) int64 {
	s := e.wal.bg
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written - s.synced
}

// openGated opens a durable store over a gateFS in the given mode with a
// space "t" whose commit is synced.
func openGated(t *testing.T, mode SyncMode, limit int64) (*DB, *memEngine, *gateFS, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	fs := newGateFS()
	eng, err := openDurableFS(fs, path, mode, limit, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := newDB(eng)
	withSpace(t, db, "t")
	if eng.wal.bg != nil {
		bgIdle(t, eng)
	}
	for len(fs.syncs) > 0 {
		<-fs.syncs // the space's commit
	}
	return db, eng, fs, path
}

// release lets a held sync go, if it is still held (so that a failed
// test's Close does not wait for it forever).
func (g *gateFS) release() {
	select {
	case g.gate <- nil:
	default:
	}
}

// TestSyncModeAcknowledgement holds the fdatasync of a commit's record.
// With SyncBackground the commit is answered and visible while its sync
// is held, and a copy of the files at that moment (what a SIGKILL leaves:
// the kernel's pages, not the disk's) opens with it; with SyncAlways it
// is neither answered nor visible until the sync returns.
func TestSyncModeAcknowledgement(t *testing.T) {
	for _, mode := range []SyncMode{SyncBackground, SyncAlways} {
		t.Run(mode.String(), func(t *testing.T) {
			db, _, fs, path := openGated(t, mode, segmentLimit)
			defer db.Close()
			defer fs.release()
			fs.arm()
			errA := putAsync(db, "a", "1")
			fs.waitSyncs(t, 1) // A's record is written, a sync of it held
			if mode == SyncBackground {
				select {
				case err := <-errA:
					if err != nil {
						t.Fatal(err)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the commit was not answered while its sync was held: the acknowledgement waits for the disk")
				}
				if got := pipelineState(t, db); got != "a=1 b=" {
					t.Errorf("answered before its sync, readers see %q, want a=1", got)
				}
				killed := filepath.Join(copyFiles(t, filepath.Dir(path)), "db")
				reopenState(t, killed, "a=1 b=")
			} else {
				select {
				case err := <-errA:
					t.Fatalf("answered (%v) while its sync was held", err)
				case <-time.After(100 * time.Millisecond):
				}
				if got := pipelineState(t, db); got != "a= b=" {
					t.Errorf("before its sync readers see %q, want nothing", got)
				}
			}
			fs.gate <- nil
			if mode == SyncAlways {
				if err := <-errA; err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			reopenState(t, path, "a=1 b=")
		})
	}
}

// answeredWhileHeld counts the answers given in 300 ms with the sync held,
// failing the test at a second one. The writer waits for each answer, so
// one write at most is in flight: the one whose record crossed the bound,
// which is answered; the next must wait for the sync. Counting answers, not
// timing the one in flight, keeps a stalled machine from failing the test.
func answeredWhileHeld(t *testing.T, eng *memEngine, answers <-chan error) int {
	t.Helper()
	window := time.After(300 * time.Millisecond)
	for late := 0; ; {
		select {
		case err := <-answers:
			if err != nil {
				t.Fatal(err)
			}
			if late++; late > 1 {
				t.Fatalf("a second write answered with %d bytes unsynced and the sync held: no back-pressure", bgUnsynced(eng))
			}
		case <-window:
			return late
		}
	}
}

// TestBackgroundSyncBackPressure holds a background sync while one
// writer commits, one write at a time: the writes are answered until
// the records not synced reach the bound, then the next one waits (it
// is not answered while the sync is held), and once the sync returns the
// rest are answered.
func TestBackgroundSyncBackPressure(t *testing.T) {
	db, eng, fs, path := openGated(t, SyncBackground, segmentLimit)
	defer db.Close()
	defer fs.release()
	const bound = 2 << 10
	eng.wal.bg.mu.Lock()
	eng.wal.bg.bound = bound
	eng.wal.bg.mu.Unlock()

	fs.arm()
	const n = 100 // of about 100 bytes of record each: well past the bound
	answers := make(chan error, n)
	go func() {
		for i := range n {
			err := <-putAsync(db, fmt.Sprintf("k%03d", i), strings.Repeat("v", 64))
			answers <- err
		}
	}()
	acked := 0
	for bgUnsynced(eng) < bound {
		select {
		case err := <-answers:
			if err != nil {
				t.Fatal(err)
			}
			acked++
		case <-time.After(10 * time.Second):
			t.Fatalf("%d writes answered, %d bytes unsynced: the writer stopped below the bound", acked, bgUnsynced(eng))
		}
	}
	fs.waitSyncs(t, 1)
	acked += answeredWhileHeld(t, eng, answers)
	if acked == 0 || acked >= n {
		t.Fatalf("%d of %d writes answered while the sync was held", acked, n)
	}
	if u := bgUnsynced(eng); u > bound+200 {
		t.Errorf("%d bytes unsynced, want at most the bound (%d) and one record", u, bound)
	}
	fs.gate <- nil
	for acked < n {
		select {
		case err := <-answers:
			if err != nil {
				t.Fatal(err)
			}
			acked++
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d writes answered after the sync returned", acked, n)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	mustView(t, reopened, func(tx *Tx) error {
		if v := tx.Space("t").Get([]byte(fmt.Sprintf("k%03d", n-1))); string(v) != strings.Repeat("v", 64) {
			t.Errorf("the last write reopened = %q", v)
		}
		return nil
	})
}

// TestBackgroundRotationWaitsForSync: the commit that fills a segment is
// not answered, and the segment not handed to the checkpointer, until the
// background syncer has synced it through.
func TestBackgroundRotationWaitsForSync(t *testing.T) {
	const limit = 8 << 10 // 1 KiB if the first segment is not a spare
	const n = 200         // of about 250 bytes of record each: past 8 KiB
	db, eng, fs, path := openGated(t, SyncBackground, limit)
	defer db.Close()
	defer fs.release()
	first := eng.wal.seg
	fs.arm()
	answers := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			err := <-putAsync(db, fmt.Sprintf("k%03d", i), strings.Repeat("v", 200))
			answers <- err
			if err != nil || i == n-1 {
				close(answers)
				return
			}
		}
	}()
	acked := 0
	for blocked := false; !blocked; {
		select {
		case err := <-answers:
			if err != nil {
				t.Fatal(err)
			}
			acked++
		case <-time.After(300 * time.Millisecond):
			blocked = true
		}
	}
	if acked >= n {
		t.Fatal("every write was answered while the sync was held: the segment moved on unsynced")
	}
	segs, err := listSegments(osFS{}, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 || segs[0] != first {
		t.Errorf("segments %v while the full one's sync is held, want only %d", segs, first)
	}
	fs.gate <- nil
	for err := range answers {
		if err != nil {
			t.Fatal(err)
		}
	}
	if eng.wal.seg == first {
		t.Error("the log did not move to the next segment")
	}
}

// TestBackgroundSyncFailureIsSticky: a background fdatasync that fails
// (after its writes were answered) makes the log's failure sticky at
// once: every later write fails with the log's error, Ready says why, and
// the log says once that acknowledged writes may not be on disk. The
// answered write is not cut back: the kernel's copy is the best there is.
func TestBackgroundSyncFailureIsSticky(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	fs := &faultFS{}
	var logged strings.Builder
	db := openFaultyMode(t, fs, path, segmentLimit, &logged, SyncBackground)
	eng := db.eng.(*memEngine)
	for i := range 5 {
		if err := putKV(db, fmt.Sprint("k", i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	bgIdle(t, eng)
	fs.set(func(op, name string) error {
		if op == "datasync" && isSegment(name) {
			return syscall.EIO
		}
		return nil
	})
	if err := putKV(db, "acked", "v"); err != nil {
		t.Fatalf("a write before its background sync failed: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); db.Ready() == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the failed background sync did not make the log's failure sticky")
		}
	}
	fs.set(nil)
	for _, k := range []string{"after", "later"} {
		if err := putKV(db, k, "v"); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "write-ahead log unusable: sync") {
			t.Errorf("write %q after the failed sync = %v, want the log's failure", k, err)
		}
	}
	if err := db.Ready(); err == nil || !strings.Contains(err.Error(), "sync") {
		t.Errorf("Ready = %v, want the failure", err)
	}
	for _, msg := range []string{"no more writes are accepted", "may not be on disk"} {
		if n := strings.Count(logged.String(), msg); n != 1 {
			t.Errorf("%q logged %d times, want once:\n%s", msg, n, logged.String())
		}
	}
	want := dumpState(t, db)
	if !strings.Contains(want, "acked") || strings.Contains(want, "after") {
		t.Errorf("state after the failure:\n%s\nwant the answered write and not the refused ones", want)
	}
	_ = db.Close()
	wantReopened(t, path, segmentLimit, want, "restarted after a failed background sync")
}
