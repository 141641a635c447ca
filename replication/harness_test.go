package replication

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

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

// world is a store holding replica tables, one per Region, written to the
// way table/write.go writes (item and change-log record in one Update), with
// items as plain bytes.
type world struct {
	t     testing.TB
	db    *store.DB
	clock *fakeClock

	mu      sync.Mutex
	applied map[string]int // Apply calls by "target/key"
}

func newWorld(t testing.TB) *world {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &world{t: t, db: db, clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, applied: map[string]int{}}
}

// table creates the table of region (space id "tbl-<region>") and makes it
// a replica.
func (w *world) table(region string, enable bool) Endpoint {
	w.t.Helper()
	e := Endpoint{ID: "tbl-" + region, Region: region}
	w.update(func(tx *store.Tx) error {
		if err := tx.CreateSpace(e.ID); err != nil {
			return err
		}
		if enable {
			return Enable(tx, e.ID)
		}
		return nil
	})
	return e
}

func (w *world) update(fn func(tx *store.Tx) error) {
	w.t.Helper()
	if err := w.db.Update(context.Background(), fn); err != nil {
		w.t.Fatal(err)
	}
}

// write writes key=val (val "" deletes) in e's table at the clock's time,
// which then moves on by a nanosecond.
func (w *world) write(e Endpoint, key, val string) {
	w.t.Helper()
	now := w.clock.Now().UnixNano()
	w.clock.Advance(time.Nanosecond)
	w.writeAt(e, key, val, now)
}

// writeAt writes key=val (val "" deletes) in e's table with commit time t.
func (w *world) writeAt(e Endpoint, key, val string, t int64) {
	w.t.Helper()
	w.update(func(tx *store.Tx) error {
		sp := tx.Space(e.ID)
		old := sp.Get([]byte(key))
		var nv []byte
		if val != "" {
			nv = []byte(val)
		}
		if old == nil && nv == nil {
			return nil
		}
		return writeItem(sp, changelog.Record{Time: t, Key: []byte(key), Old: old, New: nv})
	})
}

// writeItem stores rec's new image under its key and logs rec.
func writeItem(sp *store.Space, rec changelog.Record) error {
	var err error
	if rec.New == nil {
		err = sp.Delete(rec.Key)
	} else {
		err = sp.Put(rec.Key, rec.New)
	}
	if err != nil {
		return err
	}
	_, err = sp.AppendLog(changelog.Append(nil, rec))
	return err
}

// apply is the Apply of a link into target: what table's would do. A
// replicated write consumes one unit per byte of its item (at least one), a
// copy none.
func (w *world) apply(target Endpoint) func(tx *store.Tx, c Change) (float64, error) {
	return func(tx *store.Tx, c Change) (float64, error) {
		units := float64(max(1, len(c.Item)))
		if c.Copy {
			units = 0
		}
		w.mu.Lock()
		w.applied[target.ID+"/"+string(c.Key)]++
		w.mu.Unlock()
		sp := tx.Space(target.ID)
		old := sp.Get(c.Key)
		if old == nil && c.Item == nil {
			return units, nil
		}
		now := w.clock.Now().UnixNano()
		return units, writeItem(sp, changelog.Record{Time: now, Key: c.Key, Old: old, New: c.Item,
			Origin: c.Origin, OriginTime: c.Time, Expired: c.Expired})
	}
}

// link links source to target (copying first when copy is set) and returns
// a replicator that tests drive by hand with drain or step.
func (w *world) link(source, target Endpoint, copy bool) *Replicator {
	w.t.Helper()
	w.update(func(tx *store.Tx) error {
		return Link(tx, source.ID, target.ID, tx.Space(source.ID).LastLogSeq(), copy)
	})
	return w.replicator(source, target)
}

func (w *world) replicator(source, target Endpoint) *Replicator {
	return newReplicator(Options{DB: w.db, Source: source, Target: target, Apply: w.apply(target), Now: w.clock.Now})
}

// drain runs r's batches until it has nothing left to do.
func (w *world) drain(r *Replicator) {
	w.t.Helper()
	for i := 0; ; i++ {
		res, err := r.step(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		if !res.more {
			return
		}
		if i > 10000 {
			w.t.Fatal("drain: no end")
		}
	}
}

// items returns e's items.
func (w *world) items(e Endpoint) map[string]string {
	w.t.Helper()
	out := map[string]string{}
	if err := w.db.View(func(tx *store.Tx) error {
		return tx.Space(e.ID).Ascend(nil, nil, func(k, v []byte) bool {
			out[string(k)] = string(v)
			return true
		})
	}); err != nil {
		w.t.Fatal(err)
	}
	return out
}

// logRecords returns e's change log.
func (w *world) logRecords(e Endpoint) []changelog.Record {
	w.t.Helper()
	var out []changelog.Record
	if err := w.db.View(func(tx *store.Tx) error {
		return tx.Space(e.ID).AscendLog(0, func(_ uint64, raw []byte) bool {
			rec, err := changelog.Decode(raw)
			if err != nil {
				panic(err)
			}
			rec.Key, rec.Old, rec.New = clone(rec.Key), clone(rec.Old), clone(rec.New)
			out = append(out, rec)
			return true
		})
	}); err != nil {
		w.t.Fatal(err)
	}
	return out
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

func (w *world) version(e Endpoint, key string) (Version, bool) {
	w.t.Helper()
	var v Version
	var ok bool
	if err := w.db.View(func(tx *store.Tx) error {
		var err error
		v, ok, err = ItemVersion(tx, e.ID, []byte(key))
		return err
	}); err != nil {
		w.t.Fatal(err)
	}
	return v, ok
}

func diff(got, want map[string]string) string {
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			return fmt.Sprintf("key %q: got %q (present %v), want %q", k, g, ok, v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("key %q: got %q, want none", k, v)
		}
	}
	return ""
}
