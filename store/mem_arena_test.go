package store

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestArenaCompaction overwrites every key until the dead bytes outweigh
// the live ones: the keyspace must be compacted into a new arena, hold the
// newest values, and a snapshot taken before must still read the old ones.
func TestArenaCompaction(t *testing.T) {
	db := openMem(t)
	withSpace(t, db, "t")
	key := func(i int) []byte { return fmt.Appendf(nil, "key%04d", i) }
	val := func(round, i int) []byte { return bytes.Repeat([]byte{byte('a' + round)}, 1000+i%7) }
	write := func(round int) {
		for start := 0; start < 1000; start += 100 {
			mustUpdate(t, db, func(tx *Tx) error {
				for i := start; i < start+100; i++ {
					if err := tx.Space("t").Put(key(i), val(round, i)); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	eng := db.eng.(*memEngine)
	arenaOf := func() *arena {
		sp, _ := eng.cur.Load().spaces.Get("t")
		return sp.kv[subData].a
	}
	write(0)
	first := arenaOf()
	old, _ := eng.begin(false) // a reader that outlives the compaction
	defer old.rollback()
	for round := 1; round <= 3; round++ {
		write(round)
	}
	a := arenaOf()
	if a == first {
		t.Fatalf("no compaction after 3 MB of overwrites of 1 MB (dead %d, live %d)", a.dead, a.live)
	}
	if a.wasteful() {
		t.Errorf("mostly dead after the commits (dead %d, live %d)", a.dead, a.live)
	}
	for i := range 1000 {
		if got := old.space("t").sub(subData).get(key(i)); !bytes.Equal(got, val(0, i)) {
			t.Fatalf("old snapshot, key %d: got %.10q…, want round 0", i, got)
		}
	}
	mustView(t, db, func(tx *Tx) error {
		n := 0
		err := tx.Space("t").Ascend(nil, nil, func(k, v []byte) bool {
			if !bytes.Equal(k, key(n)) || !bytes.Equal(v, val(3, n)) {
				t.Fatalf("entry %d after compaction: %q = %.10q…", n, k, v)
			}
			n++
			return true
		})
		if n != 1000 {
			t.Errorf("%d entries after compaction, want 1000", n)
		}
		return err
	})
}

// TestProbeSlotsExhausted takes every probe slot: a further search must
// wait for one, not fail or share it.
func TestProbeSlotsExhausted(t *testing.T) {
	var p probes
	held := make([]*probeSlot, probeSlots)
	for i := range held {
		_, held[i] = p.probe([]byte{byte(i)})
	}
	got := make(chan []byte)
	var wg sync.WaitGroup
	wg.Go(func() {
		e, s := p.probe([]byte("late"))
		got <- p.slots[e.ref&^probeRef].key
		s.release()
	})
	select {
	case k := <-got:
		t.Fatalf("a probe got slot with %q while all were held", k)
	case <-time.After(20 * time.Millisecond):
	}
	held[5].release()
	if k := <-got; string(k) != "late" {
		t.Errorf("slot holds %q, want %q", k, "late")
	}
	wg.Wait()
}

// TestCompactionUnderReaders overwrites every key in each commit, so that
// compactions keep replacing the arena, while readers check that each
// snapshot they take holds one commit's values throughout.
func TestCompactionUnderReaders(t *testing.T) {
	forEngines(t, func(t *testing.T, open func(testing.TB) *DB) {
		db := open(t)
		withSpace(t, db, "t")
		const keys = 200
		key := func(i int) []byte { return fmt.Appendf(nil, "k%03d", i) }
		write := func(round int) {
			mustUpdate(t, db, func(tx *Tx) error {
				for i := range keys {
					if err := tx.Space("t").Put(key(i), bytes.Repeat([]byte{byte(round)}, 8000)); err != nil {
						return err
					}
				}
				return nil
			})
		}
		write(0)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					mustView(t, db, func(tx *Tx) error {
						first := tx.Space("t").Get(key(0))
						for i := range keys {
							if v := tx.Space("t").Get(key(i)); !bytes.Equal(v, first) {
								t.Errorf("one snapshot holds two rounds: key 0 has %d, key %d has %d", first[0], i, v[0])
								return nil
							}
						}
						return nil
					})
				}
			})
		}
		for round := 1; round <= 12; round++ {
			write(round)
		}
		close(stop)
		wg.Wait()
	})
}

// TestNestedSearchesDoNotExhaustProbes runs more concurrent ascents than
// there are probe slots, all inside their visits at once and each searching
// again from there (as an index read fetches its table's item): an ascent
// must not hold its slot while it visits, or the searches would wait for
// each other forever.
func TestNestedSearchesDoNotExhaustProbes(t *testing.T) {
	// Not openMem: its Close would wait forever for stuck reads.
	db, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	withSpace(t, db, "t", "a")
	const n = probeSlots + 10
	var inside atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			mustView(t, db, func(tx *Tx) error {
				sp := tx.Space("t")
				return sp.Ascend([]byte("a"), nil, func(k, v []byte) bool {
					// Wait until every ascent is visiting (or give up, so
					// that a failing run ends in the check below).
					inside.Add(1)
					for deadline := time.Now().Add(5 * time.Second); inside.Load() < n && time.Now().Before(deadline); {
						time.Sleep(time.Millisecond)
					}
					return sp.Get(k) != nil
				})
			})
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("nested searches stuck waiting for probe slots (%d of %d ascents reached their visits)", inside.Load(), n)
	}
}
