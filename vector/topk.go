package vector

import "sort"

// candidate is one vector kept by a search: its rank (lower is more similar)
// and its key, found through the partition's key slice so that keys are
// only read when ranks tie.
type candidate struct {
	rank float64
	key  string
}

// less orders candidates: lower rank first, then ascending key.
func (c candidate) less(d candidate) bool {
	if c.rank != d.rank {
		return c.rank < d.rank
	}
	return c.key < d.key
}

// topK keeps the k best candidates offered, as a max-heap on (rank, key)
// so that the worst kept one is at the root.
type topK struct {
	k    int
	heap []candidate
}

// offer considers the vector in slot i of a partition whose keys are keys.
func (t *topK) offer(rank float64, keys []string, i int) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, candidate{rank, keys[i]})
		t.up(len(t.heap) - 1)
		return
	}
	worst := t.heap[0]
	if rank > worst.rank || (rank == worst.rank && keys[i] >= worst.key) {
		return
	}
	t.heap[0] = candidate{rank, keys[i]}
	t.down(0)
}

func (t *topK) up(i int) {
	h := t.heap
	for i > 0 {
		parent := (i - 1) / 2
		if !h[parent].less(h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func (t *topK) down(i int) {
	h := t.heap
	for {
		big := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[big].less(h[c]) {
				big = c
			}
		}
		if big == i {
			return
		}
		h[big], h[i] = h[i], h[big]
		i = big
	}
}

// sorted returns the kept candidates best first.
func (t *topK) sorted() []candidate {
	out := append([]candidate(nil), t.heap...)
	sort.Slice(out, func(i, j int) bool { return out[i].less(out[j]) })
	return out
}
