package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAddStatsMatchesPlain adds the same random counters to two spaces in
// the same transactions, one through AddStats (the memory engine's one
// search, memBucket.addStats) and one through its plain twin (a get and a
// put), some transactions rolled back and some with user metadata beside
// the counters, and requires the two meta keyspaces to hold the same bytes
// after every transaction, in memory and durable, and after the durable
// store is reopened from its log.
func TestAddStatsMatchesPlain(t *testing.T) {
	forMemAndDurable(t, testAddStatsMatchesPlain)
}

func testAddStatsMatchesPlain(t *testing.T, db *DB, reopen func() *DB) {
	withSpace(t, db, "fast")
	withSpace(t, db, "plain")
	mustView(t, db, func(tx *Tx) error {
		if _, ok := tx.Space("fast").metaB().(*memBucket); !ok {
			t.Fatal("the memory engine's meta keyspace is not a *memBucket: the fast path is not taken")
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(5, 31))
	boom := errors.New("rolled back")
	committed := false
	for step := range 400 {
		fail := rng.IntN(5) == 0
		err := db.Update(t.Context(), func(tx *Tx) error {
			fast, plain := tx.Space("fast"), tx.Space("plain")
			for range 1 + rng.IntN(4) {
				items, size := rng.Int64N(11)-5, rng.Int64N(2001)-1000
				if err := fast.AddStats(items, size); err != nil {
					return err
				}
				if err := plain.addStatsPlain(items, size); err != nil {
					return err
				}
				if rng.IntN(8) == 0 {
					name, val := fmt.Sprint("m", rng.IntN(5)), fmt.Appendf(nil, "v%d", step)
					if err := fast.PutMeta(name, val); err != nil {
						return err
					}
					if err := plain.PutMeta(name, val); err != nil {
						return err
					}
				}
			}
			if fail {
				return boom
			}
			return nil
		})
		if fail != errors.Is(err, boom) || !fail && err != nil {
			t.Fatalf("step %d: Update: %v", step, err)
		}
		committed = committed || !fail
		sameMeta(t, db, step, committed)
	}
	if reopen == nil {
		return
	}
	db = reopen()
	sameMeta(t, db, -1, committed)
}

// sameMeta requires spaces fast and plain to hold the same meta keyspace
// and counters, not empty once a transaction has committed.
func sameMeta(t *testing.T, db *DB, step int, committed bool) {
	t.Helper()
	mustView(t, db, func(tx *Tx) error {
		dump := func(sp *Space) []byte {
			var out []byte
			sp.metaB().ascend(nil, nil, func(k, v []byte) bool {
				out = fmt.Appendf(out, "%q=%x;", k, v)
				return true
			})
			return out
		}
		fast, plain := tx.Space("fast"), tx.Space("plain")
		if f, p := dump(fast), dump(plain); !bytes.Equal(f, p) || committed != (len(f) > 0) {
			t.Fatalf("step %d: meta keyspaces differ:\nfast  %s\nplain %s", step, f, p)
		}
		fi, fb := fast.Stats()
		pi, pb := plain.Stats()
		if fi != pi || fb != pb {
			t.Fatalf("step %d: Stats %d %d, plain %d %d", step, fi, fb, pi, pb)
		}
		return nil
	})
}
