package vector

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
)

// Entry is one item's place in an index: its storage key, the search
// partition it belongs to (the encoded HASH value, "" without one), its
// vector (Dims float32 values, copied by Put) and its INLINE_FILTER values
// (encoded with FilterValue; "" for an absent attribute), one per filter of
// the index in order.
type Entry struct {
	Key       string
	Partition string
	Vector    []float32
	Filters   []string
}

// Match is one equality of a search condition on an INLINE_FILTER: the
// filter's position in the index's filters and the encoded value.
type Match struct {
	Filter int
	Value  string
}

// Query is one search: the query vector (Dims values), how many results,
// the search partition, and INLINE_FILTER equalities every result must meet.
type Query struct {
	Vector    []float32
	K         int
	Partition string
	Filters   []Match
}

// Hit is one search result: the item's storage key and its score, in the
// distance function's own terms (see Func).
type Hit struct {
	Key   string
	Score float64
}

// Index holds one vector index's vectors. Create it with New.
type Index struct {
	dims int
	fn   Func

	mu    sync.RWMutex
	parts map[string]*partition
	where map[string]loc      // item key → where its vector is
	dict  []map[string]uint32 // per filter: encoded value → id (0 = absent)
}

// loc is a vector's place: its partition and slot there.
type loc struct {
	p    *partition
	slot int
}

// New returns an empty index of vectors with dims dimensions (1 …
// MaxDimensions), compared with fn, with the given number of INLINE_FILTER
// attributes. It panics on dims out of range or an unknown fn: callers
// validate definitions before building indexes.
func New(dims int, fn Func, filters int) *Index {
	if dims < 1 || dims > MaxDimensions || fn.String() == "" {
		panic("vector: bad index definition")
	}
	x := &Index{dims: dims, fn: fn, parts: map[string]*partition{}, where: map[string]loc{}}
	x.dict = make([]map[string]uint32, filters)
	for i := range x.dict {
		x.dict[i] = map[string]uint32{}
	}
	return x
}

// Dims returns the number of dimensions of the index's vectors.
func (x *Index) Dims() int { return x.dims }

// Func returns the index's distance function.
func (x *Index) Func() Func { return x.fn }

// Len returns the number of vectors in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.where)
}

// PartitionSize is a search partition (its encoded HASH value, "" when the
// index has no HASH element) and how many vectors it holds.
type PartitionSize struct {
	Partition string
	Vectors   int
}

// Partitions returns the index's search partitions, largest first, equal
// sizes in ascending partition order.
func (x *Index) Partitions() []PartitionSize {
	x.mu.RLock()
	out := make([]PartitionSize, 0, len(x.parts))
	for name, p := range x.parts {
		out = append(out, PartitionSize{name, p.len()})
	}
	x.mu.RUnlock()
	slices.SortFunc(out, func(a, b PartitionSize) int {
		return cmp.Or(cmp.Compare(b.Vectors, a.Vectors), strings.Compare(a.Partition, b.Partition))
	})
	return out
}

// Put adds e to the index, replacing any entry with the same key (which may
// move it to another partition). It panics if e.Vector does not have Dims
// values or e.Filters does not have one value per filter.
func (x *Index) Put(e Entry) {
	if len(e.Vector) != x.dims || len(e.Filters) != len(x.dict) {
		panic("vector: entry does not fit the index")
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	ids := make([]uint32, len(e.Filters))
	for i, v := range e.Filters {
		ids[i] = x.intern(i, v)
	}
	if l, ok := x.where[e.Key]; ok {
		if l.p.name == e.Partition {
			l.p.set(l.slot, e.Vector, ids)
			return
		}
		x.remove(e.Key, l)
	}
	p := x.parts[e.Partition]
	if p == nil {
		p = newPartition(e.Partition, x.dims, len(x.dict))
		x.parts[e.Partition] = p
	}
	x.where[e.Key] = loc{p, p.add(e.Key, e.Vector, ids)}
}

// Delete removes the entry with the given key and reports whether there was one.
func (x *Index) Delete(key string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	l, ok := x.where[key]
	if ok {
		x.remove(key, l)
	}
	return ok
}

func (x *Index) remove(key string, l loc) {
	if moved := l.p.remove(l.slot); moved != "" {
		x.where[moved] = loc{l.p, l.slot}
	}
	delete(x.where, key)
	if l.p.len() == 0 {
		delete(x.parts, l.p.name)
	}
}

// intern returns the id of filter f's encoded value v, adding it if new.
// Ids are never reused, so an id held by a slot stays meaningful.
func (x *Index) intern(f int, v string) uint32 {
	if v == "" {
		return 0
	}
	d := x.dict[f]
	id, ok := d[v]
	if !ok {
		id = uint32(len(d) + 1)
		d[v] = id
	}
	return id
}

// Search returns the q.K entries of partition q.Partition meeting every
// equality of q.Filters that are most similar to q.Vector, most similar
// first, equal scores in ascending key order. It returns fewer when fewer
// match. It panics if q.Vector does not have Dims values.
func (x *Index) Search(q Query) []Hit {
	hits, _ := x.SearchCount(q)
	return hits
}

// SearchCount is Search that also returns how many vectors it scored (those
// of the partition that met the filters): the data a search examined.
func (x *Index) SearchCount(q Query) ([]Hit, int) {
	if len(q.Vector) != x.dims {
		panic("vector: query does not fit the index")
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	p := x.parts[q.Partition]
	if p == nil || q.K <= 0 {
		return nil, 0
	}
	want, ok := x.filterIDs(q.Filters)
	if !ok {
		return nil, 0
	}
	s := newSearcher(x.fn, q.Vector, q.K)
	scored := p.scan(s, want)
	return s.hits(), scored
}

// filterIDs turns the query's equalities into (filter, id) pairs; false when
// some value was never indexed, so that nothing can match.
func (x *Index) filterIDs(ms []Match) ([]filterID, bool) {
	out := make([]filterID, 0, len(ms))
	for _, m := range ms {
		id, ok := x.dict[m.Filter][m.Value]
		if !ok || m.Value == "" {
			return nil, false
		}
		out = append(out, filterID{m.Filter, id})
	}
	return out, true
}

type filterID struct {
	filter int
	id     uint32
}

// searcher scores vectors against one query and keeps the best K.
type searcher struct {
	fn      Func
	q       []float64
	qnorm   float64
	top     topK
	scratch []float64
}

func newSearcher(fn Func, q []float32, k int) *searcher {
	s := &searcher{fn: fn, top: topK{k: k}}
	s.q = widen(q, nil)
	s.qnorm = math.Sqrt(dot(s.q, q))
	return s
}

// rank returns v's rank, lower is more similar: its score at float32
// precision (the precision the index stores vectors at), negated for
// DOT_PRODUCT. Ranking by the rounded score makes equal reported scores
// exactly the ties that are ordered by key.
func (s *searcher) rank(v []float32, vnorm float64) float64 {
	switch s.fn {
	case Cosine:
		return round32(cosineScore(dot(s.q, v), s.qnorm, vnorm))
	case Euclidean:
		return round32(math.Sqrt(sqDist(s.q, v)))
	default:
		return -round32(dot(s.q, v))
	}
}

// round32 rounds to float32 precision; float64 results too large for a
// float32 (a DOT_PRODUCT of huge vectors) keep float64 precision rather
// than becoming infinite.
func round32(f float64) float64 {
	if r := float32(f); !math.IsInf(float64(r), 0) {
		return float64(r)
	}
	return f
}

// score turns a rank back into the score the caller sees.
func (s *searcher) score(rank float64) float64 {
	if s.fn == DotProduct {
		return -rank
	}
	return rank
}

func (s *searcher) hits() []Hit {
	c := s.top.sorted()
	out := make([]Hit, len(c))
	for i, c := range c {
		out[i] = Hit{Key: c.key, Score: s.score(c.rank)}
	}
	return out
}
