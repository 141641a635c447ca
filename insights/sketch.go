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
type sketch struct {
	cap   int
	slots []slot
	byID  map[uint64]int32
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
		return
	}
	if len(s.slots) < s.cap {
		s.byID[id] = int32(len(s.slots))
		s.slots = append(s.slots, slot{id: id, key: append([]byte(nil), key...), weight: w, counts: c})
		return
	}
	m := 0
	for i := range s.slots {
		if s.slots[i].weight < s.slots[m].weight {
			m = i
		}
	}
	sl := &s.slots[m]
	delete(s.byID, sl.id)
	s.byID[id] = int32(m)
	sl.id, sl.key = id, append(sl.key[:0], key...)
	sl.inherited = sl.weight
	sl.weight += w
	sl.counts = c
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
