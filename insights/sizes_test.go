package insights

import (
	"encoding/binary"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ddblocal/ddblocal/partition"
)

// TestSizesMatchSizer: Sizes kept from random additions, changes and
// deletions give the Sizer a walk of the final entries gives (items and
// bytes per partition, distinct keys, sample, largest collections with
// their ties in key order), also after the partitioning has split; so do
// Sizes loaded from a walk of the final entries.
func TestSizesMatchSizer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prefixes int // distinct partition keys drawn from
		changes  int
	}{
		{"empty", 5, 0},
		{"few keys", 3, 200},
		{"many keys, ties", 1500, 6000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := partition.Even(4)
			r := New(Options{Partitions: func(string, string) partition.Map { return m }})
			const prefixLen = 12 // hash ‖ 4-byte partition key
			kept := r.NewSizes("t", "", func([]byte) int { return prefixLen })
			rng := rand.New(rand.NewPCG(1, uint64(tc.changes)))
			state := map[string]int64{}
			for range tc.changes {
				k := binary.BigEndian.AppendUint64(nil, uint64(rng.IntN(tc.prefixes))*0x9e3779b97f4a7c15)
				k = binary.BigEndian.AppendUint32(k, uint32(rng.IntN(tc.prefixes)%7))
				k = append(k, byte(rng.IntN(4)))
				old, ok := state[string(k)]
				if !ok {
					old = -1
				}
				next := int64(10 * rng.IntN(5))
				if rng.IntN(4) == 0 {
					next = -1
				}
				kept.Change(k, old, next)
				if next < 0 {
					delete(state, string(k))
				} else {
					state[string(k)] = next
				}
			}
			for _, split := range []int{-1, 1, 0} {
				if split >= 0 {
					m, _ = m.Split(split)
				}
				walked := r.Sizer("t", "")
				keys := make([]string, 0, len(state))
				for k := range state {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for _, k := range keys {
					walked.Entry([]byte(k), prefixLen, int(state[k]))
				}
				walked.Finish()
				got := r.SizerOf("t", "", kept)
				if !reflect.DeepEqual(got, walked) {
					t.Fatalf("after split %d: kept %+v\nwalked %+v", split, got, walked)
				}
				loaded := r.NewSizes("t", "", func([]byte) int { return prefixLen })
				err := loaded.Load(func(entry func([]byte, int64)) error {
					for _, k := range keys {
						entry([]byte(k), state[k])
					}
					return nil
				})
				if got := r.SizerOf("t", "", loaded); err != nil || !reflect.DeepEqual(got, walked) {
					t.Fatalf("after split %d: loaded %+v (%v)\nwalked %+v", split, got, err, walked)
				}
			}
		})
	}
}
