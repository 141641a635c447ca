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

// gateFS holds the first segment fdatasync after arm until release, and
// reports each segment fdatasync as it starts.
type gateFS struct {
	osFS
	mu    sync.Mutex
	armed bool
	gate  chan error    // the held sync returns what is sent
	syncs chan struct{} // one value per segment sync started
}

func newGateFS() *gateFS {
	return &gateFS{gate: make(chan error, 1), syncs: make(chan struct{}, 1024)}
}

func (g *gateFS) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

func (g *gateFS) OpenFile(name string, flag int, perm os.FileMode) (vfile, error) {
	f, err := g.osFS.OpenFile(name, flag, perm)
	if err != nil || !isSegment(name) {
		return f, err
	}
	return &gateFile{vfile: f, g: g}, nil
}

type gateFile struct {
	vfile
	g *gateFS
}

func (f *gateFile) Datasync() error {
	f.g.mu.Lock()
	held := f.g.armed
	f.g.armed = false
	f.g.mu.Unlock()
	f.g.syncs <- struct{}{}
	if held {
		if err := <-f.g.gate; err != nil {
			return err
		}
	}
	return f.vfile.Datasync()
}

// waitSyncs waits for n segment syncs to start.
func (g *gateFS) waitSyncs(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-g.syncs:
		case <-time.After(10 * time.Second):
			t.Fatal("a commit's sync did not start: the commit behind the held one was not pipelined")
		}
	}
}

// TestPipelinedCommits holds the sync of one commit (A) while a second (B)
// reads what A wrote and writes after it: B must run and write its record
// before A is durable (pipelining), while neither is visible to readers
// nor answered. Released, both are answered and visible; failed, both
// fail, neither is visible, the log refuses further writes, and neither
// comes back when the store is opened again.
func TestPipelinedCommits(t *testing.T) {
	for _, tt := range []struct {
		name    string
		syncErr error
	}{{"sync succeeds", nil}, {"sync fails", syscall.EIO}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			fs := newGateFS()
			eng, err := openDurableFS(fs, path, SyncAlways, segmentLimit, nil)
			if err != nil {
				t.Fatal(err)
			}
			db := newDB(eng)
			withSpace(t, db, "t")
			for len(fs.syncs) > 0 {
				<-fs.syncs // the space's commit
			}
			fs.arm()

			errA, errB := make(chan error, 1), make(chan error, 1)
			go func() {
				errA <- db.Update(context.Background(), func(tx *Tx) error {
					return tx.Space("t").Put([]byte("a"), []byte("1"))
				})
			}()
			fs.waitSyncs(t, 1) // A's record is written, its sync held
			go func() {
				errB <- db.Update(context.Background(), func(tx *Tx) error {
					a := tx.Space("t").Get([]byte("a"))
					return tx.Space("t").Put([]byte("b"), append(append([]byte(nil), a...), '+'))
				})
			}()
			fs.waitSyncs(t, 1) // B ran on A's state and its record is written

			if got := pipelineState(t, db); got != "a= b=" {
				t.Errorf("before A is durable, readers see %q, want nothing", got)
			}
			select {
			case err := <-errA:
				t.Fatalf("A answered (%v) before its sync returned", err)
			case err := <-errB:
				t.Fatalf("B answered (%v) before A's sync returned", err)
			case <-time.After(50 * time.Millisecond):
			}

			fs.gate <- tt.syncErr
			gotA, gotB := <-errA, <-errB
			if tt.syncErr == nil {
				if gotA != nil || gotB != nil {
					t.Fatalf("A: %v, B: %v; want both committed", gotA, gotB)
				}
				if got := pipelineState(t, db); got != "a=1 b=1+" {
					t.Errorf("after the sync readers see %q, want a=1 b=1+", got)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
				reopenState(t, path, "a=1 b=1+")
				return
			}
			if !errors.Is(gotA, syscall.EIO) || !errors.Is(gotB, syscall.EIO) {
				t.Fatalf("A: %v, B: %v; want both to fail with the sync's error", gotA, gotB)
			}
			if got := pipelineState(t, db); got != "a= b=" {
				t.Errorf("after the failed sync readers see %q, want nothing", got)
			}
			if err := db.Update(context.Background(), func(tx *Tx) error {
				return tx.Space("t").Put([]byte("c"), []byte("3"))
			}); err == nil {
				t.Error("a write after the failed sync succeeded")
			}
			_ = db.Close()
			reopenState(t, path, "a= b=")
		})
	}
}

func pipelineState(t *testing.T, db *DB) string {
	t.Helper()
	var s string
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		s = "a=" + string(sp.Get([]byte("a"))) + " b=" + string(sp.Get([]byte("b")))
		return nil
	})
	return s
}

func reopenState(t *testing.T, path, want string) {
	t.Helper()
	db, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := pipelineState(t, db); got != want {
		t.Errorf("reopened: %q, want %q", got, want)
	}
}
