package gsi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

const tableID = "t"

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// tableKey is the table's key attribute in every test.
var tableKey = []index.KeyAttr{{Name: "pk", Type: attr.TypeS}}

// byG is partition g (S), sort s (N), all attributes projected.
func byG() *index.Def {
	return &index.Def{Name: "byG", Global: true, TableKey: tableKey,
		Partition:      []index.KeyAttr{{Name: "g", Type: attr.TypeS}},
		Sort:           []index.KeyAttr{{Name: "s", Type: attr.TypeN}},
		ProjectionType: "ALL"}
}

// byH is partition h (N), no sort key, keys only.
func byH() *index.Def {
	return &index.Def{Name: "byH", Global: true, TableKey: tableKey,
		Partition:      []index.KeyAttr{{Name: "h", Type: attr.TypeN}},
		ProjectionType: "KEYS_ONLY"}
}

// byGX is partitions g and x (multi-attribute key), projecting y.
func byGX() *index.Def {
	return &index.Def{Name: "byGX", Global: true, TableKey: tableKey,
		Partition:      []index.KeyAttr{{Name: "g", Type: attr.TypeS}, {Name: "x", Type: attr.TypeS}},
		ProjectionType: "INCLUDE", NonKey: []string{"y"}}
}

func spaceID(name string) string { return tableID + "/" + name }

// harness is a table with global indexes in a store, written to the way
// table/item_write.go writes: item, counters and change-log record in one Update.
type harness struct {
	t     testing.TB
	db    *store.DB
	clock *fakeClock

	mu   sync.Mutex
	defs []*index.Def // what Options.Indexes returns
}

// newHarness opens an in-memory store holding an empty table and empty
// spaces for defs. The indexes get no watermark: call built or Backfill.
func newHarness(t testing.TB, defs ...*index.Def) *harness {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	h := &harness{t: t, db: db, clock: newClock()}
	h.update(func(tx *store.Tx) error { return tx.CreateSpace(tableID) })
	for _, d := range defs {
		h.addIndex(d)
	}
	return h
}

// addIndex creates def's space and lists it in Indexes.
func (h *harness) addIndex(def *index.Def) {
	h.t.Helper()
	h.update(func(tx *store.Tx) error { return tx.CreateSpace(spaceID(def.Name)) })
	h.mu.Lock()
	h.defs = append(h.defs, def)
	h.mu.Unlock()
}

func (h *harness) indexes() []*index.Def {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.defs)
}

// built backfills every index (an empty table makes that instant).
func (h *harness) built() {
	h.t.Helper()
	for _, d := range h.indexes() {
		if err := Backfill(context.Background(), h.db, tableID, d, spaceID(d.Name), 0); err != nil {
			h.t.Fatalf("Backfill %s: %v", d.Name, err)
		}
	}
}

func (h *harness) options() Options {
	return Options{DB: h.db, TableID: tableID, Indexes: h.indexes, SpaceID: spaceID, Now: h.clock.Now}
}

// start starts an Applier closed when the test ends.
func (h *harness) start(opts Options) *Applier {
	a := Start(context.Background(), opts)
	h.t.Cleanup(a.Close)
	return a
}

func (h *harness) update(fn func(tx *store.Tx) error) {
	h.t.Helper()
	if err := h.db.Update(context.Background(), fn); err != nil {
		h.t.Fatalf("Update: %v", err)
	}
}

// write sets item pk to it (nil deletes) and returns the log sequence of
// the write, or the last one if it changed nothing.
func (h *harness) write(pk string, it attr.Item) uint64 {
	h.t.Helper()
	seq, err := h.tryWrite(pk, it)
	if err != nil {
		h.t.Fatalf("write %s: %v", pk, err)
	}
	return seq
}

// tryWrite is write for goroutines other than the test's.
func (h *harness) tryWrite(pk string, it attr.Item) (uint64, error) {
	return h.writeAll([]op{{pk, it}})
}

// writeAll performs ops in one transaction, each with its own log record,
// and returns the last log sequence.
func (h *harness) writeAll(ops []op) (uint64, error) {
	now := h.clock.Now().UnixNano()
	var seq uint64
	err := h.db.Update(context.Background(), func(tx *store.Tx) error {
		for _, o := range ops {
			var err error
			if seq, err = writeTx(tx, now, o.pk, o.it); err != nil {
				return err
			}
		}
		return nil
	})
	return seq, err
}

// writeTx writes one item as table/item_write.go does: item, counters and
// change-log record. pk's storage key is "k"+pk.
func writeTx(tx *store.Tx, now int64, pk string, it attr.Item) (uint64, error) {
	key := []byte("k" + pk)
	sp := tx.Space(tableID)
	raw := sp.Get(key)
	if it == nil && raw == nil {
		return sp.LastLogSeq(), nil // deleting an absent item changes nothing
	}
	var items, size int64
	if raw != nil {
		old, err := attr.DecodeBinary(raw)
		if err != nil {
			return 0, err
		}
		items, size = -1, -int64(old.Size())
	}
	var newBytes []byte
	if it != nil {
		newBytes = attr.AppendBinary(nil, it)
		if err := sp.Put(key, newBytes); err != nil {
			return 0, err
		}
		items, size = items+1, size+int64(it.Size())
	} else if err := sp.Delete(key); err != nil {
		return 0, err
	}
	if err := sp.AddStats(items, size); err != nil {
		return 0, err
	}
	return sp.AppendLog(changelog.Append(nil, changelog.Record{Time: now, Key: key, Old: raw, New: newBytes}))
}

// lastSeq returns the table's LastLogSeq.
func (h *harness) lastSeq() uint64 {
	var seq uint64
	h.view(func(tx *store.Tx) error { seq = tx.Space(tableID).LastLogSeq(); return nil })
	return seq
}

func (h *harness) view(fn func(tx *store.Tx) error) {
	h.t.Helper()
	if err := h.db.View(fn); err != nil {
		h.t.Fatalf("View: %v", err)
	}
}

// logSeqs returns the sequence numbers still in the table's log.
func (h *harness) logSeqs() []uint64 {
	var seqs []uint64
	h.view(func(tx *store.Tx) error {
		return tx.Space(tableID).AscendLog(0, func(seq uint64, _ []byte) bool {
			seqs = append(seqs, seq)
			return true
		})
	})
	return seqs
}

// content is an index's entries (projected items by storage key) and counters.
type content struct {
	entries     map[string]attr.Item
	items, size int64
}

// want recomputes def's content from the table's items.
func (h *harness) want(def *index.Def) content {
	c := content{entries: map[string]attr.Item{}}
	h.view(func(tx *store.Tx) error {
		var err error
		aerr := tx.Space(tableID).Ascend(nil, nil, func(k, v []byte) bool {
			var it attr.Item
			if it, err = attr.DecodeBinary(v); err != nil {
				return false
			}
			if ik, ok := def.Key(it, k); ok {
				p := def.Project(it)
				c.entries[string(ik)] = p
				c.items, c.size = c.items+1, c.size+int64(p.Size())
			}
			return true
		})
		if err != nil {
			return err
		}
		return aerr
	})
	return c
}

// got reads def's content from its space.
func (h *harness) got(def *index.Def) content {
	c := content{entries: map[string]attr.Item{}}
	h.view(func(tx *store.Tx) error {
		sp := tx.Space(spaceID(def.Name))
		c.items, c.size = sp.Stats()
		var err error
		aerr := sp.Ascend(nil, nil, func(k, v []byte) bool {
			var it attr.Item
			if it, err = index.DecodeEntry(v); err != nil {
				return false
			}
			c.entries[string(k)] = it
			return true
		})
		if err != nil {
			return err
		}
		return aerr
	})
	return c
}

// checkIndex fails the test unless def's content and counters equal what
// the table's items say they should be.
func (h *harness) checkIndex(def *index.Def) {
	h.t.Helper()
	got, want := h.got(def), h.want(def)
	if got.items != want.items || got.size != want.size {
		h.t.Errorf("%s counters: got %d items %d bytes, want %d items %d bytes", def.Name, got.items, got.size, want.items, want.size)
	}
	if len(got.entries) != len(want.entries) {
		h.t.Errorf("%s: got %d entries, want %d", def.Name, len(got.entries), len(want.entries))
	}
	bad := 0
	for _, k := range slices.Sorted(maps.Keys(want.entries)) {
		g, ok := got.entries[k]
		if !ok || !itemsEqual(g, want.entries[k]) {
			if bad++; bad <= 5 {
				h.t.Errorf("%s entry %x: got %v (present %v), want %v", def.Name, k, g, ok, want.entries[k])
			}
		}
	}
	for k := range got.entries {
		if _, ok := want.entries[k]; !ok {
			if bad++; bad <= 5 {
				h.t.Errorf("%s has stale entry %x: %v", def.Name, k, got.entries[k])
			}
		}
	}
}

func itemsEqual(a, b attr.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !attr.Equal(v, w) {
			return false
		}
	}
	return true
}

// pks returns the table keys (pk values) present in def's index, sorted.
func (h *harness) pks(def *index.Def) []string {
	var out []string
	for _, it := range h.got(def).entries {
		out = append(out, it["pk"].S)
	}
	slices.Sort(out)
	return out
}

// waitFor calls a.WaitFor with a generous deadline (a hang is a failure,
// never a timing assertion).
func waitFor(t testing.TB, a *Applier, seq uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := a.WaitFor(ctx, seq); err != nil {
		t.Fatalf("WaitFor(%d): %v", seq, err)
	}
}

// item builds a test item from name/value pairs; values are string (S),
// int (N) or attr.Value.
func item(kv ...any) attr.Item {
	it := attr.Item{}
	for i := 0; i < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			it[name] = attr.String(v)
		case int:
			it[name] = attr.Int(int64(v))
		case attr.Value:
			it[name] = v
		default:
			panic(fmt.Sprintf("item: %T", v))
		}
	}
	return it
}
