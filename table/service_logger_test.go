package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/store"
)

// TestNilLoggerDiscards: Options.Logger nil means "discard", so a background
// path that logs without a nil check must not panic. resumeLinks logs when it
// cannot list the tables, as on a closed store.
func TestNilLoggerDiscards(t *testing.T) {
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	s := New(db, Options{})
	s.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.regionTables("", ""); err == nil {
		t.Fatal("listing tables on a closed store succeeded; the test needs it to fail")
	}
	s.resumeLinks() // panicked with a nil Logger before
}
