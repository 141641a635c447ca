package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// errseqFS models how Linux reports a failed write-back to fdatasync
// (errseq_t, since 4.13): the failure is recorded in the file (here: the
// segment's name), and each open file description reports every failure
// recorded since its own previous sync once, at its next sync, whoever
// else has been told. A test fails the write-back of a segment's pages
// with failWriteback, and can hold the next segment sync before or after
// its check of that state.
type errseqFS struct {
	osFS
	mu      sync.Mutex
	seq     map[string]int // failures recorded per segment
	hold    *errseqHold    // the next sync to hold, if any
	started chan struct{}  // one value per segment sync started
	checked chan struct{}  // one value per segment sync that checked
}

// errseqHold holds one sync until release is closed: before its check of
// the recorded failures (beforeCheck) or after it, before returning.
type errseqHold struct {
	beforeCheck bool
	release     chan struct{}
}

func newErrseqFS() *errseqFS {
	return &errseqFS{seq: map[string]int{}, started: make(chan struct{}, 1024), checked: make(chan struct{}, 1024)}
}

// holdNext holds the next segment sync and returns the channel to close
// to let it go on.
func (g *errseqFS) holdNext(beforeCheck bool) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hold = &errseqHold{beforeCheck: beforeCheck, release: make(chan struct{})}
	return g.hold.release
}

// failWriteback records a failed write-back of some of name's pages.
func (g *errseqFS) failWriteback(name string) {
	g.mu.Lock()
	g.seq[name]++
	g.mu.Unlock()
}

func (g *errseqFS) OpenFile(name string, flag int, perm os.FileMode) (vfile, error) {
	f, err := g.osFS.OpenFile(name, flag, perm)
	if err != nil || !isSegment(name) {
		return f, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return &errseqFile{vfile: f, g: g, name: name, since: g.seq[name]}, nil
}

// errseqFile is one open file description of a segment.
type errseqFile struct {
	vfile
	g     *errseqFS
	name  string
	since int // the failures this description has reported
}

func (f *errseqFile) Datasync() error {
	g := f.g
	g.mu.Lock()
	h := g.hold
	g.hold = nil
	g.mu.Unlock()
	g.started <- struct{}{}
	if h != nil && h.beforeCheck {
		<-h.release
	}
	err := f.vfile.Datasync()
	g.mu.Lock()
	if n := g.seq[f.name]; n != f.since && err == nil {
		f.since, err = n, syscall.EIO
	}
	g.mu.Unlock()
	g.checked <- struct{}{}
	if h != nil && !h.beforeCheck {
		<-h.release
	}
	return err
}

// letGo releases a held sync, if it is not released yet (so that a failed
// test's Close does not wait for it forever).
func letGo(release chan struct{}) {
	select {
	case <-release:
	default:
		close(release)
	}
}

func waitFor(t *testing.T, c chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

// putAsync writes k=v in its own goroutine and returns its answer's channel.
func putAsync(db *DB, k, v string) chan error {
	c := make(chan error, 1)
	go func() {
		c <- db.Update(context.Background(), func(tx *Tx) error {
			return tx.Space("t").Put([]byte(k), []byte(v))
		})
	}()
	return c
}

// openErrseq opens a durable store over an errseqFS with a space "t",
// and returns it, the file system, its path and its current segment's.
func openErrseq(t *testing.T) (*DB, *errseqFS, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db")
	fs := newErrseqFS()
	eng, err := openDurableFS(fs, path, SyncAlways, segmentLimit, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := newDB(eng)
	withSpace(t, db, "t")
	for len(fs.started)+len(fs.checked) > 0 { // the space's commit
		select {
		case <-fs.started:
		case <-fs.checked:
		}
	}
	return db, fs, path, segmentName(path, eng.wal.seg)
}

// TestPipelineWritebackErrorReachesItsCommit: commit A's sync is in flight
// when the write-back of A's page fails, and commit B's sync, begun later,
// checks first. The kernel tells one file description once, so over one
// descriptor shared by the syncers B's sync would take the error and A's
// would return success: A acknowledged, its record lost. Each syncer has a
// descriptor of its own, so A's sync reports the failure too, and neither
// A nor B is acknowledged, visible, or found after a restart.
func TestPipelineWritebackErrorReachesItsCommit(t *testing.T) {
	db, fs, path, seg := openErrseq(t)
	defer db.Close()

	releaseA := fs.holdNext(true)
	defer letGo(releaseA)
	errA := putAsync(db, "a", "1")
	waitFor(t, fs.started, "A's sync did not start")
	fs.failWriteback(seg) // A's page
	releaseB := fs.holdNext(false)
	defer letGo(releaseB)
	errB := putAsync(db, "b", "2")
	waitFor(t, fs.started, "B's sync did not start: B was not pipelined behind A")
	waitFor(t, fs.checked, "B's sync did not check") // B took the error, not returned yet

	letGo(releaseA)
	waitFor(t, fs.checked, "A's sync did not check")
	select {
	case err := <-errA:
		if !errors.Is(err, syscall.EIO) {
			t.Fatalf("A = %v, want the write-back failure (EIO)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("A was not answered after its sync returned")
	}
	letGo(releaseB)
	if err := <-errB; !errors.Is(err, syscall.EIO) {
		t.Fatalf("B = %v, want EIO", err)
	}
	if got := pipelineState(t, db); got != "a= b=" {
		t.Errorf("after the failure readers see %q, want nothing", got)
	}
	if err := db.Ready(); err == nil {
		t.Error("Ready after a failed sync = nil, want the log's failure")
	}
	_ = db.Close()
	reopenState(t, path, "a= b=")
}

// TestPipelineFailureFailsUnacknowledged: A's sync has returned success
// but A is not yet acknowledged when B's sync, begun later, fails. The log
// is then unusable, and A, not yet answered, fails with it: nothing is
// acknowledged after a sync has failed, and the log is cut back to A.
func TestPipelineFailureFailsUnacknowledged(t *testing.T) {
	db, fs, path, seg := openErrseq(t)
	defer db.Close()

	releaseA := fs.holdNext(false)
	defer letGo(releaseA)
	errA := putAsync(db, "a", "1")
	waitFor(t, fs.started, "A's sync did not start")
	waitFor(t, fs.checked, "A's sync did not check") // A's pages are on disk
	fs.failWriteback(seg)                            // B's page
	errB := putAsync(db, "b", "2")
	waitFor(t, fs.started, "B's sync did not start: B was not pipelined behind A")
	waitFor(t, fs.checked, "B's sync did not check")
	for deadline := time.Now().Add(10 * time.Second); db.Ready() == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("B's failed sync did not make the log's failure sticky")
		}
	}
	letGo(releaseA)
	if err := <-errA; !errors.Is(err, syscall.EIO) {
		t.Fatalf("A = %v, want the log's failure (EIO): it was not acknowledged before B's sync failed", err)
	}
	if err := <-errB; !errors.Is(err, syscall.EIO) {
		t.Fatalf("B = %v, want EIO", err)
	}
	if got := pipelineState(t, db); got != "a= b=" {
		t.Errorf("after the failure readers see %q, want nothing", got)
	}
	_ = db.Close()
	reopenState(t, path, "a= b=")
}
