package store

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// unitPacer is a Pacer of one unit that records how it is used: a second
// Acquire while held, or a Release while not, is an error, as is a bbolt
// commit run while held (commits checks that).
type unitPacer struct {
	unit chan struct{}

	mu                       sync.Mutex
	held                     bool
	acquires, pauses, misuse int
}

func newUnitPacer() *unitPacer { return &unitPacer{unit: make(chan struct{}, 1)} }

func (p *unitPacer) Acquire() {
	p.unit <- struct{}{}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held {
		p.misuse++
	}
	p.held = true
	p.acquires++
}

func (p *unitPacer) Release() {
	p.mu.Lock()
	if !p.held {
		p.misuse++
	}
	p.held = false
	p.mu.Unlock()
	<-p.unit
}

func (p *unitPacer) Pause(int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pauses++
}

func (p *unitPacer) isHeld() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// TestCheckpointWaitsForPacer: with a pacer set, a checkpoint computes
// only holding a unit (while another holder keeps it, the segment stays),
// gives it back for its commits and at its end, and pauses as it goes;
// both the plain and the sorted path.
func TestCheckpointWaitsForPacer(t *testing.T) {
	for _, tt := range []struct {
		name string
		min  int
	}{{"plain", math.MaxInt}, {"sorted", 16}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			db := openPath(t, path, 1<<20)
			ck := db.eng.(*memEngine).wal.ck
			var committed int
			setSorted(ck, tt.min, 4, 1<<20, func(step string) {
				if strings.HasSuffix(step, "committed") {
					committed++
				}
			})
			ck.chunk = 16 << 10
			p := newUnitPacer()
			db.SetPacer(p)
			mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("t") })
			val := []byte(strings.Repeat("v", 200))
			for i := range 3000 {
				mustUpdate(t, db, func(tx *Tx) error { return tx.Space("t").Put(spreadKey(i), val) })
			}
			p.Acquire() // another holder: the checkpoint must wait
			seg, err := db.eng.(*memEngine).handOver()
			if err != nil {
				t.Fatal(err)
			}
			applied := make(chan error, 1)
			go func() { applied <- ck.waitApplied(seg) }()
			select {
			case err := <-applied:
				t.Fatalf("segment checkpointed while the pacer's unit was held elsewhere (err %v)", err)
			case <-time.After(100 * time.Millisecond):
			}
			p.Release()
			if err := <-applied; err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.held || p.misuse != 0 || committed == 0 || p.acquires < committed+1 || p.pauses == 0 {
				t.Errorf("after the checkpoints: held %v, misuse %d, %d commits, %d acquires, %d pauses; want the unit back, no misuse, an acquire after each commit, pauses",
					p.held, p.misuse, committed, p.acquires, p.pauses)
			}
		})
	}
}

// TestCheckpointCommitFreesPacer: a bbolt commit (which waits for the
// disk) runs without the checkpoint's unit, which is held again after it,
// whether the commit fails or not.
func TestCheckpointCommitFreesPacer(t *testing.T) {
	for _, fail := range []error{nil, errors.New("disk full")} {
		p := newUnitPacer()
		c := &checkpointer{pace: &pace{p: p}}
		c.pace.hold()
		var heldInCommit bool
		err := c.commit(func() error {
			heldInCommit = p.isHeld()
			return fail
		})
		if err != fail || heldInCommit || !p.isHeld() {
			t.Errorf("commit failing with %v: returned %v, held during the commit %v, after %v; want the error, false, true", fail, err, heldInCommit, p.isHeld())
		}
		c.pace.free()
		if p.isHeld() || p.misuse != 0 {
			t.Errorf("after free: held %v, misuse %d", p.isHeld(), p.misuse)
		}
	}
}

// TestSetPacerWithoutLog: a store with no checkpointer (in memory) takes
// a pacer and does nothing with it.
func TestSetPacerWithoutLog(t *testing.T) {
	db, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := newUnitPacer()
	db.SetPacer(p)
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("t") })
	if p.acquires != 0 {
		t.Errorf("in memory: %d acquires", p.acquires)
	}
}
