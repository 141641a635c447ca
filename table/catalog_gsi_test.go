package table

import (
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// TestBackfillResumeNeedsTheStore: a table's applier, as it starts, looks
// for global index backfills a restart interrupted. When the store cannot
// be read, an index is not taken for an unfinished one (which would start
// its backfill again): nothing starts, and the applier's next use looks
// again.
func TestBackfillResumeNeedsTheStore(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{})
	defer s.Close()
	createGSITable(t, s, "G")
	m, err := s.catalog.get(db, "r", "G")
	if err != nil || m == nil {
		t.Fatalf("catalog: %v, %v", m, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) { // polling a condition with a deadline
		ready, err := s.indexReady(m, "byG")
		if err != nil {
			t.Fatal(err)
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("index byG not backfilled after 10s")
		}
	}
	s.stopApplier(m.ID) // as after a restart: no applier yet
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s.applier(m)
	s.appliers.mu.Lock()
	backfilling, unresumed := len(s.appliers.backfilling), s.appliers.unresumed[m.ID]
	s.appliers.mu.Unlock()
	if backfilling != 0 {
		t.Errorf("%d backfills started for indexes whose watermark could not be read, want none", backfilling)
	}
	if !unresumed {
		t.Errorf("table not marked to be looked at again")
	}
}
