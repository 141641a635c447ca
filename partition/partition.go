// Package partition maps partition-key hashes (attr.PartitionHash) onto the
// partitions of a table or index. As in DynamoDB, a partition owns one
// contiguous range of the hash space; a split halves a range and partitions
// never merge. Storage keys begin with the same hash, so a partition's items
// are one contiguous key range in the store.
package partition

import "sort"

// Map is an immutable partitioning of the uint64 hash space. The zero Map
// has one partition.
type Map struct {
	starts []uint64 // starts[0] == 0, strictly ascending
}

// Even returns n partitions (n < 1 means 1) of equal width.
func Even(n int) Map {
	if n < 1 {
		n = 1
	}
	starts := make([]uint64, n)
	width := ^uint64(0)/uint64(n) + 1
	if n == 1 {
		width = 0
	}
	for i := range starts {
		starts[i] = uint64(i) * width
	}
	return Map{starts: starts}
}

// Len is the number of partitions.
func (m Map) Len() int {
	if len(m.starts) == 0 {
		return 1
	}
	return len(m.starts)
}

// Of returns the partition that owns hash h.
func (m Map) Of(h uint64) int {
	if len(m.starts) == 0 {
		return 0
	}
	// The first start greater than h, minus one.
	return sort.Search(len(m.starts), func(i int) bool { return m.starts[i] > h }) - 1
}

// Range returns the inclusive hash range [lo, hi] of partition i.
func (m Map) Range(i int) (lo, hi uint64) {
	if len(m.starts) == 0 {
		return 0, ^uint64(0)
	}
	lo = m.starts[i]
	hi = ^uint64(0)
	if i+1 < len(m.starts) {
		hi = m.starts[i+1] - 1
	}
	return lo, hi
}

// Split returns a copy of m with partition i halved; the upper half becomes
// partition i+1. A partition one hash wide cannot split and is returned
// unchanged (ok false): one key value never spans partitions.
func (m Map) Split(i int) (out Map, ok bool) {
	lo, hi := m.Range(i)
	if lo == hi {
		return m, false
	}
	mid := lo + (hi-lo)/2 + 1
	starts := make([]uint64, 0, m.Len()+1)
	if len(m.starts) == 0 {
		starts = append(starts, 0)
	} else {
		starts = append(starts, m.starts[:i+1]...)
	}
	starts = append(starts, mid)
	if len(m.starts) > i+1 {
		starts = append(starts, m.starts[i+1:]...)
	}
	return Map{starts: starts}, true
}
