package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// faultFS is the OS's file system with faults injected: inject, when set,
// is asked before each operation (op is "open", "write", "datasync",
// "sync", "truncate", "rename", "remove", "syncdir") on name and returns
// the error the operation fails with, or nil to run it. A failed write
// writes the first half of its data first, as a disk filling up does.
type faultFS struct {
	osFS
	mu     sync.Mutex
	inject func(op, name string) error
	// opened holds the files OpenOS handed out (bbolt's), by name, so
	// that a test can break their descriptors (vfs_bolt_fault_linux_test.go).
	opened map[string]*os.File
}

func (f *faultFS) fault(op, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inject == nil {
		return nil
	}
	return f.inject(op, name)
}

// set replaces the injection rule (nil: no faults).
func (f *faultFS) set(inject func(op, name string) error) {
	f.mu.Lock()
	f.inject = inject
	f.mu.Unlock()
}

func (f *faultFS) OpenFile(name string, flag int, perm os.FileMode) (vfile, error) {
	if flag&os.O_CREATE != 0 {
		if err := f.fault("open", name); err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
	}
	file, err := f.osFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{vfile: file, fs: f, name: name}, nil
}

// OpenOS fails as "open" is told to (bbolt's open, so the store's Open),
// and keeps the file it opens.
func (f *faultFS) OpenOS(name string, flag int, perm os.FileMode) (*os.File, error) {
	if err := f.fault("open", name); err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	file, err := f.osFS.OpenOS(name, flag, perm)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.opened == nil {
		f.opened = map[string]*os.File{}
	}
	f.opened[name] = file
	return file, nil
}

func (f *faultFS) Rename(from, to string) error {
	if err := f.fault("rename", to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return f.osFS.Rename(from, to)
}

func (f *faultFS) Remove(name string) error {
	if err := f.fault("remove", name); err != nil {
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	return f.osFS.Remove(name)
}

func (f *faultFS) SyncDir(dir string) error {
	if err := f.fault("syncdir", dir); err != nil {
		return err
	}
	return f.osFS.SyncDir(dir)
}

type faultFile struct {
	vfile
	fs   *faultFS
	name string
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.fault("write", f.name); err != nil {
		n, _ := f.vfile.Write(p[:len(p)/2])
		return n, err
	}
	return f.vfile.Write(p)
}

func (f *faultFile) WriteAt(p []byte, off int64) (int, error) {
	if err := f.fs.fault("write", f.name); err != nil {
		n, _ := f.vfile.WriteAt(p[:len(p)/2], off)
		return n, err
	}
	return f.vfile.WriteAt(p, off)
}

func (f *faultFile) Datasync() error {
	if err := f.fs.fault("datasync", f.name); err != nil {
		return err
	}
	return f.vfile.Datasync()
}

func (f *faultFile) Sync() error {
	if err := f.fs.fault("sync", f.name); err != nil {
		return err
	}
	return f.vfile.Sync()
}

func (f *faultFile) Truncate(size int64) error {
	if err := f.fs.fault("truncate", f.name); err != nil {
		return err
	}
	return f.vfile.Truncate(size)
}

// openFaulty opens a durable store at path over fs, with fsync before
// each acknowledgement (SyncAlways, so that a commit's own sync can fail)
// and log records into logged.
func openFaulty(t *testing.T, fs vfs, path string, limit int64, logged *strings.Builder) *DB {
	t.Helper()
	return openFaultyMode(t, fs, path, limit, logged, SyncAlways)
}

// openFaultyMode is openFaulty with the given sync mode.
func openFaultyMode(t *testing.T, fs vfs, path string, limit int64, logged *strings.Builder, mode SyncMode) *DB {
	t.Helper()
	var log = textLogger(&lockedWriter{w: logged})
	eng, err := openDurableFS(fs, path, mode, limit, log)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return newDB(eng)
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func putKV(db *DB, k, v string) error {
	return db.Update(context.Background(), func(tx *Tx) error {
		if tx.Space("t") == nil {
			if err := tx.CreateSpace("t"); err != nil {
				return err
			}
		}
		return tx.Space("t").Put([]byte(k), []byte(v))
	})
}

func isSegment(name string) bool { return strings.Contains(filepath.Base(name), "-wal-0") }

// TestStorageFsyncFailureIsFatal: a failed fsync of the log fails its
// commit, and the log then takes no more writes (the kernel may have
// dropped the data it failed to write and call the pages clean, so a
// retried fsync proves nothing): every later write fails, Ready (so
// /_ddblocal/health) says why, the log says it once, and a restart
// recovers every acknowledged write and not the failed one.
func TestStorageFsyncFailureIsFatal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	fs := &faultFS{}
	var logged strings.Builder
	db := openFaulty(t, fs, path, segmentLimit, &logged)
	for i := range 5 {
		if err := putKV(db, fmt.Sprint("k", i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	want := dumpState(t, db)
	if err := db.Ready(); err != nil {
		t.Fatalf("Ready before the fault = %v", err)
	}
	fs.set(func(op, name string) error {
		if op == "datasync" && isSegment(name) {
			return syscall.EIO
		}
		return nil
	})
	if err := putKV(db, "lost", "v"); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Update with a failing fsync = %v, want EIO", err)
	}
	fs.set(nil)
	if err := putKV(db, "after", "v"); err == nil || !strings.Contains(err.Error(), "unusable") {
		t.Errorf("Update after a failed fsync = %v, want the log's failure", err)
	}
	if err := db.Ready(); err == nil || !strings.Contains(err.Error(), "sync") {
		t.Errorf("Ready after a failed fsync = %v, want the failure", err)
	}
	if got := dumpState(t, db); got != want {
		t.Errorf("state after the failed commits:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(logged.String(), "no more writes are accepted"); n != 1 {
		t.Errorf("the failure was logged %d times, want once:\n%s", n, logged.String())
	}
	_ = db.Close()
	wantReopened(t, path, segmentLimit, want, "restarted after a failed fsync")
}

// TestStorageDiskFull: while the disk is full a write fails with the error
// (never an acknowledgement) and leaves nothing behind; once space is freed
// writes succeed again, and every acknowledged one survives a restart. A
// full disk when the log moves to a new segment stops writes until the
// server is restarted with space. Both sync modes.
func TestStorageDiskFull(t *testing.T) {
	for _, mode := range []SyncMode{SyncBackground, SyncAlways} {
		t.Run(mode.String(), func(t *testing.T) { diskFull(t, mode) })
	}
}

func diskFull(t *testing.T, mode SyncMode) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	fs := &faultFS{}
	var logged strings.Builder
	const limit = 4 << 10
	db := openFaultyMode(t, fs, path, limit, &logged, mode)
	full := func(op, name string) error {
		if op == "write" || op == "open" || op == "rename" {
			return syscall.ENOSPC
		}
		return nil
	}
	acked := 0
	for i := range 200 {
		if i%20 == 5 {
			fs.set(full)
		}
		err := putKV(db, fmt.Sprint("k", i), strings.Repeat("v", 50))
		fs.set(nil)
		switch {
		case err == nil:
			acked++
		case errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "unusable"):
		default:
			t.Fatalf("write %d: %v", i, err)
		}
		if db.Ready() != nil {
			break // the next segment could not be created: a restart is needed
		}
	}
	want := dumpState(t, db)
	if acked == 0 || acked == 200 {
		t.Fatalf("%d of 200 writes acknowledged, want some refused", acked)
	}
	_ = db.Close()
	// Space freed, the server restarted: every acknowledged write is there,
	// and writes work.
	db = openFaultyMode(t, fs, path, limit, &logged, mode)
	if got := dumpState(t, db); got != want {
		t.Errorf("after the restart:\n%s\nwant:\n%s", got, want)
	}
	if err := putKV(db, "later", "v"); err != nil {
		t.Errorf("a write after space was freed and the server restarted: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Error(err)
	}
}

// TestStorageCheckpointCrashAtEveryStep: the files as a crash would leave
// them after each step of each checkpoint (a chunk of records committed to
// bbolt, the segment recorded as applied, the segment removed) open with
// exactly the acknowledged writes.
func TestStorageCheckpointCrashAtEveryStep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	eng, err := openDurableLimit(path, syncNever, 2<<10, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := newDB(eng)
	ck := eng.wal.ck
	var crashes []string // copies of the files, one per step
	var steps []string
	ck.running.Lock() // no checkpoint until the writes are done
	ck.chunk = 300
	ck.stepped = func(step string) {
		crashes = append(crashes, copyFiles(t, dir))
		steps = append(steps, step)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	for range 60 {
		_ = db.Update(context.Background(), randomWrite(rng))
	}
	want := dumpState(t, db)
	ck.running.Unlock()
	if err := db.Close(); err != nil { // checkpoints everything
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range steps {
		seen[s] = true
	}
	for _, s := range []string{"chunk committed", "segment applied", "segment removed"} {
		if !seen[s] {
			t.Errorf("no crash after %q among %d steps", s, len(steps))
		}
	}
	for i, c := range crashes {
		wantReopened(t, filepath.Join(c, "db"), 2<<10, want, fmt.Sprintf("crash %d, after %s", i, steps[i]))
	}
}

// TestSpareAbandonedAtStop: closing a DB while its next log segment is
// being zero-filled abandons that spare after the write under way, rather
// than writing and syncing the rest (32 MB on a busy disk can outlast a
// container's stop grace), and leaves no file behind.
func TestSpareAbandonedAtStop(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	fs := &faultFS{}
	entered, release := make(chan struct{}), make(chan struct{})
	var writes, syncs int
	fs.set(func(op, name string) error {
		if !strings.HasSuffix(name, "-wal-spare.tmp") {
			return nil
		}
		switch op {
		case "write":
			writes++
			if writes == 1 {
				close(entered)
				fs.mu.Unlock() // let stop and others use the file system meanwhile
				<-release
				fs.mu.Lock()
			}
		case "sync":
			syncs++
		}
		return nil
	})
	s := startSparer(fs, path, 8<<20)
	<-entered
	stopped := make(chan struct{})
	go func() { s.stop(); close(stopped) }()
	for !chanClosed(s.quit) {
		time.Sleep(time.Millisecond)
	}
	close(release)
	<-stopped
	fs.mu.Lock()
	w, sy := writes, syncs
	fs.mu.Unlock()
	if w != 1 || sy != 0 {
		t.Errorf("after stop: %d writes and %d syncs of the spare, want the one under way and none", w, sy)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after stop: %v", left)
	}
}

func chanClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
