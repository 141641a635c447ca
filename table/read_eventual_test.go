package table

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/store"
)

// TestGSIDueInsideTransactions: a global index applier asks gsiDue about
// each record inside the store transaction of its batch (a read first,
// then the store's one write transaction), and so do lagging index reads
// and vector followers inside theirs. When the catalog cache has lost the
// table, gsiDue reads the catalog in a transaction of its own, nested in
// that one. The nested read must neither wait for the transaction it runs
// in nor for another writer, on each engine a server runs on (memory, and
// memory with its write-ahead log); etcd's transactions take no lock at
// all. It returns the lag's verdict all the same.
func TestGSIDueInsideTransactions(t *testing.T) {
	engines := []struct {
		name string
		opts func(t *testing.T) store.Options
	}{
		{"memory", func(*testing.T) store.Options { return store.Options{InMemory: true} }},
		{"durable", func(t *testing.T) store.Options {
			return store.Options{Path: filepath.Join(t.TempDir(), "ddb.db"), NoSync: true}
		}},
	}
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			db, err := store.Open(eng.opts(t))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			clk := clock.Manual(time.Unix(1_700_000_000, 0))
			s := New(db, Options{Now: clk.Now, EventualLag: consistency.Lag{Min: time.Hour, Max: time.Hour}})
			defer s.Close()
			createGSITable(t, s, "G")
			m, err := s.catalog.get(db, "r", "G")
			if err != nil || m == nil {
				t.Fatalf("catalog: %v, %v", m, err)
			}
			due := s.gsiDue(m)
			now := clk.Now().UnixNano()
			ask := func(what string) {
				t.Helper()
				s.catalog.forget(nil)
				if got := due(1, now); got {
					t.Errorf("%s: a record written now is due, want not before its hour of lag", what)
				}
				if got := due(2, now-2*time.Hour.Nanoseconds()); !got {
					t.Errorf("%s: a record two hours old is not due, want due", what)
				}
				if !s.catalogCached("r", "G") {
					t.Errorf("%s: the catalog was not read again: the nested read was not exercised", what)
				}
			}
			within(t, "gsiDue inside the write transaction", func() error {
				return db.Update(context.Background(), func(*store.Tx) error { ask("in Update"); return nil })
			})
			// Another writer holds the one write transaction open meanwhile.
			holding, release := make(chan struct{}), make(chan struct{})
			writer := make(chan error, 1)
			go func() {
				writer <- db.Update(context.Background(), func(*store.Tx) error { close(holding); <-release; return nil })
			}()
			<-holding
			within(t, "gsiDue inside a read while another write is open", func() error {
				return db.View(func(*store.Tx) error { ask("in View"); return nil })
			})
			close(release)
			if err := <-writer; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// within runs fn and fails the test when it has not returned after ten
// seconds: it waits on a lock it can never have.
func within(t *testing.T, what string, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still waiting after 10s (deadlocked)", what)
	}
}

// catalogCached reports whether the catalog cache holds table name of
// region.
func (s *Service) catalogCached(region, name string) bool {
	s.catalog.mu.RLock()
	defer s.catalog.mu.RUnlock()
	_, ok := s.catalog.tables[string(catalogKey(region, name))]
	return ok
}
