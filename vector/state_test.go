package vector

import (
	"context"
	"testing"

	"github.com/ddblocal/ddblocal/store"
)

// view runs fn on the test table's space in a read transaction.
func (lt *logTable) view(fn func(sp *store.Space)) {
	lt.t.Helper()
	if err := lt.db.View(func(tx *store.Tx) error { fn(tx.Space("T")); return nil }); err != nil {
		lt.t.Fatal(err)
	}
}

func (lt *logTable) update(fn func(sp *store.Space) error) {
	lt.t.Helper()
	if err := lt.db.Update(context.Background(), func(tx *store.Tx) error { return fn(tx.Space("T")) }); err != nil {
		lt.t.Fatal(err)
	}
}

// TestDecide: the owner's next watermark is the end of the run of due
// records after the published one; the first record not due holds back
// every later one, even due ones.
func TestDecide(t *testing.T) {
	lt := newLogTable(t)
	for i, at := range []int64{5, 6, 20, 7, 8} {
		lt.write(string(rune('a'+i)), vecItem(t, "t", "1", "0"), at)
	}
	by := func(limit int64) func(uint64, int64) bool {
		return func(_ uint64, at int64) bool { return at <= limit }
	}
	for _, tc := range []struct {
		name string
		from uint64
		due  func(uint64, int64) bool
		want uint64
	}{
		{"every record due (no lag)", 0, nil, 5},
		{"held back by the third", 0, by(10), 2},
		{"from past the held record", 3, by(10), 5},
		{"the first after from not due", 2, by(10), 2},
		{"all due", 1, by(100), 5},
		{"nothing after from", 5, by(0), 5},
	} {
		var got uint64
		var err error
		lt.view(func(sp *store.Space) { got, err = Decide(sp, tc.from, tc.due) })
		if err != nil || got != tc.want {
			t.Errorf("%s: Decide(%d) = %d, %v; want %d", tc.name, tc.from, got, err, tc.want)
		}
	}
	// Trimmed records were due: from 0 the decision starts at the first kept.
	lt.trim(3)
	var got uint64
	lt.view(func(sp *store.Space) { got, _ = Decide(sp, 0, by(7)) })
	if got != 4 {
		t.Errorf("after a trim to 3, by 7: %d, want 4", got)
	}
}

// TestStateAndSettled: what the owner publishes reads back as written, an
// index counts as built only for the definition it was built for, and a
// recorded settle only moves forward.
func TestStateAndSettled(t *testing.T) {
	lt := newLogTable(t)
	lt.view(func(sp *store.Space) {
		if _, ok := ReadState(sp); ok {
			t.Error("a state before any was published")
		}
		if _, ok := Floor(sp); ok {
			t.Error("a floor before any state was published")
		}
	})
	want := State{Seq: 7, Indexes: map[string]Published{"emb": {Created: 100, Count: 3}}}
	lt.update(func(sp *store.Space) error { return WriteState(sp, want) })
	lt.update(func(sp *store.Space) error { return WriteSettled(sp, 50) })
	lt.update(func(sp *store.Space) error { return WriteSettled(sp, 40) })
	lt.view(func(sp *store.Space) {
		got, ok := ReadState(sp)
		if !ok || got.Seq != 7 || got.Indexes["emb"] != want.Indexes["emb"] {
			t.Errorf("ReadState = %+v, %v", got, ok)
		}
		if n, ok := got.Built("emb", 100); !ok || n != 3 {
			t.Errorf("Built(emb, 100) = %d, %v", n, ok)
		}
		if _, ok := got.Built("emb", 101); ok {
			t.Error("an index re-created under the same name counts as built")
		}
		if f, ok := Floor(sp); !ok || f != 7 {
			t.Errorf("Floor = %d, %v", f, ok)
		}
		if got := ReadSettled(sp); got != 50 {
			t.Errorf("ReadSettled = %d, want 50 (a settle never moves back)", got)
		}
	})
}
