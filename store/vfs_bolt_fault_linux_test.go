package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// breakDescriptor puts device (/dev/full: every write fails with ENOSPC;
// /dev/null: writes vanish and fdatasync fails) under the descriptor of
// the file fs opened as name, so that the library holding it (bbolt) fails
// inside its own writes and syncs while its mapping of the real file stays.
// The returned function puts the real file back ("space freed").
func breakDescriptor(t *testing.T, fs *faultFS, name, device string) (restore func()) {
	t.Helper()
	fs.mu.Lock()
	f := fs.opened[name]
	fs.mu.Unlock()
	if f == nil {
		t.Fatalf("%s was not opened through the seam", name)
	}
	fd := int(f.Fd())
	// Keep the real open file (and bbolt's lock on it) alive meanwhile.
	saved, err := syscall.Dup(fd)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := os.OpenFile(device, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if err := syscall.Dup3(int(dev.Fd()), fd, syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := syscall.Dup3(saved, fd, syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		_ = syscall.Close(saved)
	}
}

// TestStorageBoltFaults: with bbolt's own writes failing (a full disk) or
// its writes lost and fdatasync failing (the case where retrying fsync
// proves nothing), every checkpoint into bbolt fails inside bbolt's
// commit. The server goes on acknowledging writes, which are durable in
// the log; the segments stay on disk; the failure is logged and retried.
// bbolt rolls a failed commit back and writes its meta page last, so the
// file on disk is still the last good checkpoint: a crash meanwhile
// recovers every acknowledged write, and once the disk works again the
// retry absorbs the segments, and a restart finds the same state in a
// bbolt file that passes its own consistency check.
func TestStorageBoltFaults(t *testing.T) {
	for _, tc := range []struct{ name, device, want string }{
		{"disk full", "/dev/full", "no space left on device"},
		{"writes lost, fdatasync fails", "/dev/null", "invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "db")
			fs := &faultFS{}
			var logged strings.Builder
			const limit = 2 << 10
			db := openFaulty(t, fs, path, limit, &logged)
			eng := db.eng.(*memEngine)
			ck := eng.wal.ck
			ck.inject(20*time.Millisecond, nil)
			// Overwrite a small set of keys, so that bbolt's commits reuse
			// freed pages and reach their writes (a commit that needs a
			// larger file fails earlier, when bbolt stats it).
			write := func(from, to int) {
				t.Helper()
				for i := from; i < to; i++ {
					if err := putKV(db, fmt.Sprint("k", i%25), fmt.Sprintf("%s-%d", strings.Repeat("v", 60), i)); err != nil {
						t.Fatalf("write %d: %v", i, err)
					}
				}
			}
			write(0, 150)
			waitCheckpointed(t, ck)

			restore := breakDescriptor(t, fs, path, tc.device)
			write(150, 300)
			errs := waitFailures(t, ck, 3)
			// What a crash now leaves: taken between checkpoint attempts.
			ck.running.Lock()
			crashed, atCrash := copyFiles(t, dir), dumpState(t, db)
			ck.running.Unlock()
			if segs, err := listSegments(osFS{}, path); err != nil || len(segs) < 2 {
				t.Errorf("segments while bbolt fails: %v %v, want the closed ones kept", segs, err)
			}
			if err := db.Ready(); err != nil {
				t.Errorf("Ready while checkpoints fail = %v, want nil (writes are durable in the log)", err)
			}
			t.Logf("checkpoint failures:\n%s", strings.Join(errs, "\n"))
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("no failure inside bbolt's commit said %q", tc.want)
			}

			restore()
			write(300, 320)
			waitCheckpointed(t, ck)
			want := dumpState(t, db)
			if err := db.Close(); err != nil {
				t.Fatalf("Close after the disk works again: %v", err)
			}
			if !strings.Contains(logged.String(), "checkpoint failed") {
				t.Errorf("the failed checkpoints were not logged:\n%s", logged.String())
			}
			wantReopened(t, path, limit, want, "restarted after bbolt's faults")
			wantReopened(t, filepath.Join(crashed, "db"), limit, atCrash, "crashed while bbolt failed")
			checkBolt(t, path)
		})
	}
}

// waitCheckpointed waits until the checkpointer has absorbed every closed
// segment without a failure outstanding.
func waitCheckpointed(t *testing.T, ck *checkpointer) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		ck.mu.Lock()
		done := len(ck.pending) == 0 && ck.err == nil
		ck.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the checkpointer did not catch up within a minute")
		}
	}
}

// waitFailures waits until n checkpoint attempts have failed and returns
// their errors.
func waitFailures(t *testing.T, ck *checkpointer, n int) []string {
	t.Helper()
	var errs []string
	for deadline := time.Now().Add(time.Minute); len(errs) < n; time.Sleep(time.Millisecond) {
		ck.mu.Lock()
		err := ck.err
		ck.err = nil // each attempt sets it anew: count each failure once
		ck.mu.Unlock()
		if err != nil {
			errs = append(errs, err.Error())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d checkpoint failures within a minute, want %d", len(errs), n)
		}
	}
	return errs
}

// checkBolt runs bbolt's consistency check on the file at path.
func checkBolt(t *testing.T, path string) {
	t.Helper()
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	if err := bdb.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check: %v", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
