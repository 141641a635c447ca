package table

import (
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// memService returns a Service with opts over a fresh in-memory store
// (s.db), both closed when tb ends.
func memService(tb testing.TB, opts Options) *Service {
	tb.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		tb.Fatal(err)
	}
	s := New(db, opts)
	tb.Cleanup(func() {
		s.Close()
		db.Close()
	})
	return s
}

// clockService is memService on a fakeClock standing at a fixed instant,
// moved only by the test.
func clockService(tb testing.TB, opts Options) (*Service, *fakeClock) {
	tb.Helper()
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	opts.Now = clk.now
	return memService(tb, opts), clk
}
