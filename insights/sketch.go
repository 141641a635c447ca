package insights

import (
	"cmp"
	"slices"
)

// sketch is a space-saving top-K sketch (Metwally, Agrawal, El Abbadi,
// "Efficient Computation of Frequent and Top-k Elements in Data Streams",
// 2005) over weighted keys: it tracks at most cap keys; a key not tracked
// when the sketch is full replaces the key of least weight and inherits that
// weight as its possible error. Any key whose true weight exceeds
// total/cap is guaranteed to be tracked, so the hot key is always found.
//
// Keys are identified by a 64-bit id (a partition hash, or a maphash of the
// whole storage key) and keep a copy of the last storage key seen, in a
// buffer reused when the slot changes hands: once cap keys have been seen,
// adding never allocates.
//
// Finding the key of least weight is O(log cap): heap orders the slots by
// (weight, slot index), so its root is the slot the plain linear scan
// (minLinear, the twin the tests compare it with) would choose.
type sketch struct {
	cap   int
	slots []slot
	byID  map[uint64]int32
	heap  []int32 // slot indexes, a min-heap by (weight, index)
	pos   []int32 // pos[i] is slot i's place in heap
}

// slot is one tracked key.
type slot struct {
	id  uint64
	key []byte // the storage key, for the report to decode
	// weight is the ranking weight: the counts' units or throttles plus
	// inherited (the weight of the key it replaced, an overestimate bound).
	weight, inherited float64
	counts            counts // what was recorded while this key held the slot
}

func newSketch(capacity int) *sketch {
	return &sketch{cap: capacity, byID: make(map[uint64]int32, capacity)}
}

// weightOf is what ranks a key: throttles in a throttle sketch, units in
// the others (c has one or the other).
func weightOf(c counts) float64 {
	return c.readUnits + c.writeUnits + c.readThrottles + c.writeThrottles
}

// add records c against the key id whose storage key is key.
func (s *sketch) add(id uint64, key []byte, c counts) {
	w := weightOf(c)
	if i, ok := s.byID[id]; ok {
		sl := &s.slots[i]
		sl.weight += w
		sl.counts.add(c)
		s.down(int(s.pos[i]))
		return
	}
	if len(s.slots) < s.cap {
		i := int32(len(s.slots))
		s.byID[id] = i
		s.slots = append(s.slots, slot{id: id, key: append([]byte(nil), key...), weight: w, counts: c})
		s.pos = append(s.pos, int32(len(s.heap)))
		s.heap = append(s.heap, i)
		s.up(len(s.heap) - 1)
		return
	}
	m := s.heap[0]
	sl := &s.slots[m]
	delete(s.byID, sl.id)
	s.byID[id] = m
	sl.id, sl.key = id, append(sl.key[:0], key...)
	sl.inherited = sl.weight
	sl.weight += w
	sl.counts = c
	s.down(0)
}

// less orders slots a and b as the heap does: by weight, then index.
func (s *sketch) less(a, b int32) bool {
	wa, wb := s.slots[a].weight, s.slots[b].weight
	return wa < wb || (wa == wb && a < b)
}

func (s *sketch) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.pos[s.heap[i]], s.pos[s.heap[j]] = int32(i), int32(j)
}

// up moves heap entry i towards the root while it is less than its parent.
func (s *sketch) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(s.heap[i], s.heap[p]) {
			return
		}
		s.swap(i, p)
		i = p
	}
}

// down moves heap entry i towards the leaves while a child is less: weights
// only grow, so an entry never needs to move up after an add.
func (s *sketch) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(s.heap) && s.less(s.heap[l], s.heap[m]) {
			m = l
		}
		if r := l + 1; r < len(s.heap) && s.less(s.heap[r], s.heap[m]) {
			m = r
		}
		if m == i {
			return
		}
		s.swap(i, m)
		i = m
	}
}

// minLinear is the plain twin of heap[0]: the first slot of least weight,
// found by scanning every slot.
func (s *sketch) minLinear() int {
	m := 0
	for i := range s.slots {
		if s.slots[i].weight < s.slots[m].weight {
			m = i
		}
	}
	return m
}

// top returns copies of the n tracked keys with the most recorded weight
// (what is known to belong to the key, without the inherited bound),
// heaviest first; ties keep the order of the slots.
func (s *sketch) top(n int) []slot {
	out := make([]slot, 0, len(s.slots))
	for _, sl := range s.slots {
		if weightOf(sl.counts) > 0 {
			sl.key = append([]byte(nil), sl.key...)
			out = append(out, sl)
		}
	}
	sortSlots(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// total is the recorded weight of every tracked key.
func (s *sketch) total() float64 {
	var t float64
	for _, sl := range s.slots {
		t += weightOf(sl.counts)
	}
	return t
}

// lookup returns the counts recorded for id, if it is tracked.
func (s *sketch) lookup(id uint64) (counts, bool) {
	if i, ok := s.byID[id]; ok {
		return s.slots[i].counts, true
	}
	return counts{}, false
}

// sortSlots orders slots by recorded weight, heaviest first, stably.
func sortSlots(s []slot) {
	slices.SortStableFunc(s, func(a, b slot) int { return cmp.Compare(weightOf(b.counts), weightOf(a.counts)) })
}
