package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSwapJoinedMatchesPlain stores the same random values, each given as
// a head and the rest, in two spaces in the same transactions: through
// SwapJoined (the memory engine copies both parts into its arena) and
// through its plain twin (joined first, then stored), with replacements,
// empty parts, and some transactions rolled back; each pair of calls must
// return the same old value and the two keyspaces must hold the same bytes
// after every transaction, in memory and durable, and after the durable
// store is reopened from its log (the record holds the joined value).
func TestSwapJoinedMatchesPlain(t *testing.T) {
	forMemAndDurable(t, testSwapJoinedMatchesPlain)
}

func testSwapJoinedMatchesPlain(t *testing.T, db *DB, reopen func() *DB) {
	withSpace(t, db, "fast")
	withSpace(t, db, "plain")
	mustView(t, db, func(tx *Tx) error {
		if _, ok := tx.Space("fast").dataB().(*memBucket); !ok {
			t.Fatal("the memory engine's data keyspace is not a *memBucket: the fast path is not taken")
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(9, 2))
	boom := errors.New("rolled back")
	for step := range 300 {
		fail := rng.IntN(5) == 0
		err := db.Update(t.Context(), func(tx *Tx) error {
			fast, plain := tx.Space("fast"), tx.Space("plain")
			for range 1 + rng.IntN(6) {
				key := fmt.Appendf(nil, "k%03d", rng.IntN(60))
				head := fmt.Appendf(nil, "%d", rng.IntN(1000))[:rng.IntN(3)]
				val := bytes.Repeat([]byte{byte('a' + step%26)}, rng.IntN(300))
				p1, err1 := fast.SwapJoined(key, head, val)
				p2, err2 := plain.swapJoinedPlain(key, head, val)
				if err1 != nil || err2 != nil {
					return errors.Join(err1, err2)
				}
				if !bytes.Equal(p1, p2) || (p1 == nil) != (p2 == nil) {
					t.Fatalf("step %d: %q: SwapJoined replaced %q, plain %q", step, key, p1, p2)
				}
				if got := fast.Get(key); !bytes.Equal(got, append(append([]byte{}, head...), val...)) {
					t.Fatalf("step %d: %q reads back %q", step, key, got)
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
		sameData(t, db, step)
	}
	if reopen == nil {
		return
	}
	db = reopen()
	sameData(t, db, -1)
}

// sameData requires spaces fast and plain to hold the same keys and values.
func sameData(t *testing.T, db *DB, step int) {
	t.Helper()
	mustView(t, db, func(tx *Tx) error {
		dump := func(sp *Space) []byte {
			var out []byte
			if err := sp.Ascend(nil, nil, func(k, v []byte) bool {
				out = fmt.Appendf(out, "%q=%q;", k, v)
				return true
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		if f, p := dump(tx.Space("fast")), dump(tx.Space("plain")); !bytes.Equal(f, p) {
			t.Fatalf("step %d: data keyspaces differ:\nfast  %s\nplain %s", step, f, p)
		}
		return nil
	})
}
