package store

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// TestCloseLeavesBacklog: a Close that finds a backlog of segments (the
// checkpointer held up while they were written, as after a large load)
// checkpoints only its budget of records, at a segment's end or in the
// middle of one, leaves the other segments on disk, and the next open
// replays them: nothing is lost. The reopened store, with a backlog small
// enough, then closes to the bbolt file alone.
func TestCloseLeavesBacklog(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		limit                int64
		chunk, budget, write int
	}{
		{"at a segment's end", 1 << 10, checkpointChunk, 4 << 10, 300},
		{"in a segment's middle", 16 << 10, 512, 1 << 10, 300},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			eng, err := openDurableLimit(path, syncNever, tt.limit, nil)
			if err != nil {
				t.Fatal(err)
			}
			ck := eng.wal.ck
			ck.mu.Lock()
			ck.chunk, ck.closeBudget = tt.chunk, tt.budget
			ck.mu.Unlock()
			ck.running.Lock() // the checkpointer falls behind
			db := newDB(eng)
			rng := rand.New(rand.NewPCG(23, 23))
			for range tt.write {
				_ = db.Update(context.Background(), randomWrite(rng))
			}
			want := dumpState(t, db)
			closeHeld(t, db, ck)
			segs, err := listSegments(osFS{}, path)
			if err != nil || len(segs) < 2 {
				t.Fatalf("segments after Close = %v, %v; want the backlog left", segs, err)
			}
			if ck.closeSpent < tt.budget || ck.closeSpent > tt.budget+max(tt.chunk, int(tt.limit))+4<<10 {
				t.Errorf("Close checkpointed %d bytes of records; budget %d", ck.closeSpent, tt.budget)
			}
			wantReopened(t, path, tt.limit, want, "reopened after a prompt Close")
			if segs, _ := listSegments(osFS{}, path); len(segs) != 0 {
				t.Errorf("segments after the second Close: %v; want none", segs)
			}
		})
	}
}

// closeHeld closes db while the test holds its checkpointer's running
// lock, and lets the checkpointer go on only once Close has begun, so
// that what it does next is Close's.
func closeHeld(t *testing.T, db *DB, ck *checkpointer) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	for closing := false; !closing; time.Sleep(time.Millisecond) {
		ck.mu.Lock()
		closing = ck.closing
		ck.mu.Unlock()
	}
	ck.running.Unlock()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
}
