package vector

// partition is one search partition's vectors, held contiguously: vector i
// is vecs[i*dims : (i+1)*dims], with its norm, key and filter ids at index i
// of the parallel slices. Removing a vector moves the last one into its
// place, so the slices stay dense.
type partition struct {
	name    string
	dims    int
	vecs    []float32
	norms   []float64
	keys    []string
	filters [][]uint32 // filters[f][i]: id of vector i's value of filter f
	scratch []float64
}

func newPartition(name string, dims, filters int) *partition {
	return &partition{name: name, dims: dims, filters: make([][]uint32, filters)}
}

func (p *partition) len() int { return len(p.keys) }

func (p *partition) vec(i int) []float32 { return p.vecs[i*p.dims : (i+1)*p.dims : (i+1)*p.dims] }

// add appends a vector and returns its slot. The float32 slice grows by a
// sixteenth once past 64 vectors, not by Go's usual quarter, to keep the
// spare capacity (memory held but unused) under about 6% of the vectors.
func (p *partition) add(key string, v []float32, ids []uint32) int {
	p.vecs = growFloats(p.vecs, p.dims)
	p.vecs = append(p.vecs, v...)
	p.norms = append(p.norms, norm(v, p.scratch))
	p.keys = append(p.keys, key)
	for f, id := range ids {
		p.filters[f] = append(p.filters[f], id)
	}
	return len(p.keys) - 1
}

// growFloats returns s with room for n more values, growing it by a
// sixteenth of its length (at least n) when it has none.
func growFloats(s []float32, n int) []float32 {
	if cap(s)-len(s) >= n {
		return s
	}
	extra := len(s) / 16
	if len(s) < 64*n {
		extra = max(len(s), n)
	}
	t := make([]float32, len(s), len(s)+extra)
	copy(t, s)
	return t
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
// returns the moved vector's key ("" when i was the last). It releases memory
// once more than a quarter of the capacity is unused.
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
	p.vecs = p.vecs[:last*p.dims]
	p.norms = p.norms[:last]
	p.keys[last] = ""
	p.keys = p.keys[:last]
	for f := range p.filters {
		p.filters[f] = p.filters[f][:last]
	}
	if cap(p.vecs) > 64*p.dims && len(p.vecs) < cap(p.vecs)*3/4 {
		p.vecs = append(make([]float32, 0, len(p.vecs)+len(p.vecs)/16), p.vecs...)
	}
	return moved
}

// scan offers every vector whose filter ids match want to s, and returns
// how many it offered. It walks the
// float32 memory front to back, so a search streams it once.
func (p *partition) scan(s *searcher, want []filterID) (scored int) {
	n := len(p.keys)
	for i := 0; i < n; i++ {
		if !p.matches(i, want) {
			continue
		}
		r := s.rank(p.vecs[i*p.dims:(i+1)*p.dims], p.norms[i])
		s.top.offer(r, p.keys, i)
		scored++
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
