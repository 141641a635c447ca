package insights

import (
	"math/rand/v2"
	"testing"
)

// TestSketchHeapMatchesLinearScan: after every add of a random mix of new
// and tracked keys with random weights (zero included, so ties happen),
// the heap's root is the slot the plain linear scan picks, and every slot
// is where pos says it is in the heap.
func TestSketchHeapMatchesLinearScan(t *testing.T) {
	for _, capacity := range []int{1, 2, 7, 64} {
		r := rand.New(rand.NewPCG(uint64(capacity), 9))
		s := newSketch(capacity)
		for n := range 5000 {
			id := r.Uint64N(uint64(3 * capacity))
			s.add(id, []byte{byte(id)}, counts{readUnits: float64(r.IntN(4)) / 2})
			if got, want := int(s.heap[0]), s.minLinear(); got != want {
				t.Fatalf("cap %d, add %d: heap root = slot %d (weight %v), linear scan = slot %d (weight %v)",
					capacity, n, got, s.slots[got].weight, want, s.slots[want].weight)
			}
			for i, slot := range s.heap {
				if int(s.pos[slot]) != i {
					t.Fatalf("cap %d, add %d: pos[%d] = %d, want %d", capacity, n, slot, s.pos[slot], i)
				}
				if p := (i - 1) / 2; i > 0 && s.less(slot, s.heap[p]) {
					t.Fatalf("cap %d, add %d: heap entry %d is less than its parent", capacity, n, i)
				}
			}
		}
	}
}
