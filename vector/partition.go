package vector

// segmentBytes is the size of a full segment of a partition's vectors.
// Segments make appending cheap: a partition grows by adding a segment,
// never by copying all its vectors into a larger array (growing one array
// by a sixteenth, to keep spare memory small, copied each vector sixteen
// times on average). A search streams each 1 MiB segment front to back,
// which is as fast as one array: the hardware prefetcher follows it.
const segmentBytes = 1 << 20

// partition is one search partition's vectors, held in segments of
// contiguous float32 memory: vector i is at (i%per)*dims in segment i/per,
// with its norm, key and filter ids at index i of the parallel slices.
// Every segment but the last is full. Removing a vector moves the last one
// into its place, so the vectors stay dense.
type partition struct {
	name    string
	dims    int
	per     int // vectors per full segment
	segs    [][]float32
	norms   []float64
	keys    []string
	filters [][]uint32 // filters[f][i]: id of vector i's value of filter f
	scratch []float64
}

func newPartition(name string, dims, filters int) *partition {
	return &partition{name: name, dims: dims, per: max(1, segmentBytes/(4*dims)), filters: make([][]uint32, filters)}
}

func (p *partition) len() int { return len(p.keys) }

func (p *partition) vec(i int) []float32 {
	j := (i % p.per) * p.dims
	return p.segs[i/p.per][j : j+p.dims : j+p.dims]
}

// add appends a vector and returns its slot.
func (p *partition) add(key string, v []float32, ids []uint32) int {
	p.grow()
	last := len(p.segs) - 1
	p.segs[last] = append(p.segs[last], v...)
	p.norms = append(p.norms, norm(v, p.scratch))
	p.keys = append(p.keys, key)
	for f, id := range ids {
		p.filters[f] = append(p.filters[f], id)
	}
	return len(p.keys) - 1
}

// grow makes room for one more vector in the last segment. The first
// segment doubles up to its full size, so a small partition holds little
// spare memory; later ones are allocated full, so at most one segment's
// worth of memory is ever spare and only the first segment is ever copied.
func (p *partition) grow() {
	full := p.per * p.dims
	n := len(p.segs)
	switch {
	case n == 0:
		p.segs = append(p.segs, make([]float32, 0, p.dims))
	case len(p.segs[n-1]) == full:
		p.segs = append(p.segs, make([]float32, 0, full))
	case cap(p.segs[n-1])-len(p.segs[n-1]) < p.dims:
		s := p.segs[n-1]
		p.segs[n-1] = append(make([]float32, 0, min(2*len(s), full)), s...)
	}
}

// set overwrites vector i in place.
func (p *partition) set(i int, v []float32, ids []uint32) {
	copy(p.vec(i), v)
	p.norms[i] = norm(v, p.scratch)
	for f, id := range ids {
		p.filters[f][i] = id
	}
}

// remove deletes the vector in slot i, moving the last vector into it, and
// returns the moved vector's key ("" when i was the last). An emptied
// segment is released, and so is the spare room of a last segment once
// more than half of it is unused.
func (p *partition) remove(i int) (moved string) {
	last := len(p.keys) - 1
	if i != last {
		copy(p.vec(i), p.vec(last))
		p.norms[i] = p.norms[last]
		p.keys[i] = p.keys[last]
		for f := range p.filters {
			p.filters[f][i] = p.filters[f][last]
		}
		moved = p.keys[i]
	}
	n := len(p.segs) - 1
	s := p.segs[n][:len(p.segs[n])-p.dims]
	switch {
	case len(s) == 0:
		p.segs[n] = nil
		p.segs = p.segs[:n]
	case len(s) < cap(s)/2:
		s = append(make([]float32, 0, len(s)+len(s)/4), s...)
		fallthrough
	default:
		p.segs[n] = s
	}
	p.norms = p.norms[:last]
	p.keys[last] = ""
	p.keys = p.keys[:last]
	for f := range p.filters {
		p.filters[f] = p.filters[f][:last]
	}
	return moved
}

// scan offers every vector whose filter ids match want to s, and returns
// how many it offered. It walks the segments front to back, so a search
// streams the float32 memory once.
func (p *partition) scan(s *searcher, want []filterID) (scored int) {
	i := 0
	for _, seg := range p.segs {
		for off := 0; off < len(seg); off, i = off+p.dims, i+1 {
			if !p.matches(i, want) {
				continue
			}
			r := s.rank(seg[off:off+p.dims:off+p.dims], p.norms[i])
			s.top.offer(r, p.keys, i)
			scored++
		}
	}
	return scored
}

func (p *partition) matches(i int, want []filterID) bool {
	for _, w := range want {
		if p.filters[w.filter][i] != w.id {
			return false
		}
	}
	return true
}
