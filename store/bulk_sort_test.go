package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRunIsStable: sortRun orders a run as its plain twin,
// slices.SortStableFunc by key, does: entries with one key stay in the
// order put. The runs mix keys whose top bits are spread (a bucket each),
// share a few values (small buckets, sorted by insertion) or one value
// (a large bucket), with keys put twice or more and keys that share their
// first 24 bytes (equal prefixes).
func TestSortRunIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name  string
		n     int
		heads int // distinct first two bytes: 0 spreads them
	}{
		{"spread", 5000, 0},
		{"small buckets", 3000, 400},
		{"one bucket", 2000, 1},
		{"empty", 0, 0},
		{"one", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArena()
			var run []memEntry
			var keys [][]byte
			for i := range tc.n {
				var key []byte
				switch {
				case len(keys) > 0 && i%5 == 0:
					key = keys[rng.IntN(len(keys))] // put again
				case i%7 == 0:
					key = fmt.Appendf(nil, "%s-%030d-%d", head(rng, tc.heads), 0, rng.IntN(100)) // a prefix shared with others
				default:
					key = fmt.Appendf(nil, "%s%08x", head(rng, tc.heads), rng.Uint32())
				}
				keys = append(keys, key)
				run = append(run, a.store(key, fmt.Appendf(nil, "v%d", i)))
			}
			cmp := a.entryOrder
			want := slices.Clone(run)
			slices.SortStableFunc(want, cmp)
			got := sortRun(run, make([]memEntry, len(run)), make([]uint32, 1<<radixBits+1), cmp)
			if len(got) != len(want) {
				t.Fatalf("%d entries, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("entry %d: %q=%q, want %q=%q", i, a.key(got[i]), a.val(got[i]), a.key(want[i]), a.val(want[i]))
				}
			}
		})
	}
}

// head returns a key's first two bytes: random, or one of heads values.
func head(rng *rand.Rand, heads int) string {
	if heads == 0 {
		return string([]byte{byte(rng.Uint32()), byte(rng.Uint32())})
	}
	h := rng.IntN(heads)
	return string([]byte{byte(h >> 8), byte(h)})
}
