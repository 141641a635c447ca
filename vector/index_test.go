package vector

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
)

// model is the brute-force oracle: the entries an index should hold, by key.
type model map[string]Entry

// oracleScore is the textbook formula in float64, written independently of
// the kernels.
func oracleScore(fn Func, q, v []float32) float64 {
	var d, qq, vv, sq float64
	for i := range q {
		a, b := float64(q[i]), float64(v[i])
		d += a * b
		qq += a * a
		vv += b * b
		sq += (a - b) * (a - b)
	}
	switch fn {
	case Cosine:
		if qq == 0 || vv == 0 {
			return 1
		}
		return 1 - d/(math.Sqrt(qq)*math.Sqrt(vv))
	case Euclidean:
		return math.Sqrt(sq)
	}
	return d
}

// better reports whether score a is more similar than b under fn.
func better(fn Func, a, b float64) bool {
	if fn == DotProduct {
		return a > b
	}
	return a < b
}

func (m model) matching(q Query) []Entry {
	var out []Entry
	for _, e := range m {
		if e.Partition != q.Partition {
			continue
		}
		ok := true
		for _, f := range q.Filters {
			ok = ok && e.Filters[f.Filter] == f.Value && f.Value != ""
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// checkSearch compares hits with the oracle: the right count, best first
// with ties by key, every score the oracle's (to rounding), and no item left
// out that the oracle finds more similar than the last hit.
func checkSearch(t *testing.T, fn Func, m model, q Query, hits []Hit) {
	t.Helper()
	cand := m.matching(q)
	if want := min(q.K, len(cand)); len(hits) != want {
		t.Fatalf("%d hits, want %d", len(hits), want)
	}
	const tol = 1e-6
	in := map[string]bool{}
	for i, h := range hits {
		in[h.Key] = true
		e, ok := m[h.Key]
		if !ok {
			t.Fatalf("hit %q is not in the model", h.Key)
		}
		if want := oracleScore(fn, q.Vector, e.Vector); math.Abs(h.Score-want) > tol*(1+math.Abs(want)) {
			t.Fatalf("hit %q score %v, oracle %v", h.Key, h.Score, want)
		}
		if i > 0 {
			p := hits[i-1]
			if better(fn, h.Score, p.Score) || (h.Score == p.Score && h.Key < p.Key) {
				t.Fatalf("hits %d and %d out of order: %+v then %+v", i-1, i, p, h)
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	last := hits[len(hits)-1].Score
	for _, e := range cand {
		if s := oracleScore(fn, q.Vector, e.Vector); !in[e.Key] && better(fn, s, last) && math.Abs(s-last) > tol*(1+math.Abs(last)) {
			t.Fatalf("item %q (oracle %v) left out, last hit scores %v", e.Key, s, last)
		}
	}
}

// TestSearchAgainstOracle drives random puts, replacements, partition moves
// and deletes, mirrored in the model, and checks searches of every
// partition with and without filters after each round.
func TestSearchAgainstOracle(t *testing.T) {
	for _, fn := range []Func{Cosine, Euclidean, DotProduct} {
		for _, dims := range []int{1, 3, 8, 13, 64} {
			t.Run(fmt.Sprintf("%v/%d", fn, dims), func(t *testing.T) {
				r := rand.New(rand.NewSource(int64(dims) * int64(fn)))
				x, m := New(dims, fn, 2), model{}
				for round := 0; round < 8; round++ {
					mutate(r, x, m, dims, 150)
					if x.Len() != len(m) {
						t.Fatalf("Len %d, model %d", x.Len(), len(m))
					}
					for _, q := range queries(r, dims) {
						checkSearch(t, fn, m, q, x.Search(q))
					}
				}
			})
		}
	}
}

func mutate(r *rand.Rand, x *Index, m model, dims, n int) {
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("k%03d", r.Intn(200))
		if r.Intn(5) == 0 {
			if _, had := m[key]; x.Delete(key) != had {
				panic("Delete disagrees with the model")
			}
			delete(m, key)
			continue
		}
		e := Entry{Key: key, Partition: []string{"", "p1", "p2"}[r.Intn(3)], Vector: randVec(r, dims, 1),
			Filters: []string{[]string{"", "a", "b"}[r.Intn(3)], []string{"", "x"}[r.Intn(2)]}}
		if r.Intn(4) == 0 { // duplicates make exact ties
			e.Vector = make([]float32, dims)
			e.Vector[0] = 1
		}
		x.Put(e)
		e.Vector = append([]float32(nil), e.Vector...)
		m[key] = e
	}
}

func queries(r *rand.Rand, dims int) []Query {
	var qs []Query
	for _, p := range []string{"", "p1", "p2", "nowhere"} {
		for _, f := range [][]Match{nil, {{0, "a"}}, {{0, "b"}, {1, "x"}}, {{1, "never"}}} {
			k := 1 + r.Intn(20)
			qs = append(qs, Query{Vector: randVec(r, dims, 1), K: k, Partition: p, Filters: f})
			tie := make([]float32, dims)
			tie[0] = 1
			qs = append(qs, Query{Vector: tie, K: k, Partition: p, Filters: f})
		}
	}
	return qs
}

// TestTiesFollowKeyOrder: equal vectors come back in ascending key order,
// whatever order they were written in, and the same whichever way the index
// was built.
func TestTiesFollowKeyOrder(t *testing.T) {
	keys := []string{"d", "a", "c", "e", "b", "f"}
	build := func(order []string) *Index {
		x := New(2, Euclidean, 0)
		for _, k := range order {
			x.Put(Entry{Key: k, Vector: []float32{1, 1}, Filters: []string{}})
		}
		x.Put(Entry{Key: "z", Vector: []float32{9, 9}, Filters: []string{}})
		return x
	}
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	q := Query{Vector: []float32{0, 0}, K: 4}
	want := build(keys).Search(q)
	for i, h := range want {
		if h.Key != sorted[i] || h.Score != float64(float32(math.Sqrt2)) {
			t.Fatalf("hit %d = %+v, want key %q score √2 at float32 precision", i, h, sorted[i])
		}
	}
	rev := append([]string(nil), sorted...)
	sort.Sort(sort.Reverse(sort.StringSlice(rev)))
	if got := build(rev).Search(q); !reflect.DeepEqual(got, want) {
		t.Fatalf("built in reverse: %+v, want %+v", got, want)
	}
}

func TestPutReplacesAndMoves(t *testing.T) {
	x := New(2, DotProduct, 1)
	x.Put(Entry{Key: "a", Partition: "p", Vector: []float32{1, 0}, Filters: []string{"f"}})
	x.Put(Entry{Key: "b", Partition: "p", Vector: []float32{2, 0}, Filters: []string{"f"}})
	x.Put(Entry{Key: "a", Partition: "p", Vector: []float32{3, 0}, Filters: []string{"g"}})
	q := Query{Vector: []float32{1, 0}, K: 5, Partition: "p"}
	if got, want := x.Search(q), []Hit{{"a", 3}, {"b", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after replace: %+v, want %+v", got, want)
	}
	q.Filters = []Match{{0, "f"}}
	if got, want := x.Search(q), []Hit{{"b", 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("filtered: %+v, want %+v", got, want)
	}
	x.Put(Entry{Key: "b", Partition: "other", Vector: []float32{2, 0}, Filters: []string{"f"}})
	if got := x.Search(q); len(got) != 0 {
		t.Fatalf("after move: %+v, want none", got)
	}
	if !x.Delete("a") || x.Delete("a") || x.Len() != 1 {
		t.Fatalf("Delete: Len %d", x.Len())
	}
}

// TestMemoryReleased: deleting most of a large partition gives its memory
// back, and what stays is dense.
func TestMemoryReleased(t *testing.T) {
	x := New(16, Cosine, 0)
	for i := 0; i < 5000; i++ {
		x.Put(Entry{Key: fmt.Sprint(i), Vector: make([]float32, 16), Filters: []string{}})
	}
	for i := 100; i < 5000; i++ {
		x.Delete(fmt.Sprint(i))
	}
	p := x.parts[""]
	held := 0
	for _, seg := range p.segs {
		held += cap(seg)
	}
	if p.len() != 100 || held > 2*100*16 {
		t.Fatalf("%d vectors, %d floats held after deletes", p.len(), held)
	}
}

// TestSegments: a partition larger than one segment (64 vectors of 4,096
// dimensions fill one) keeps every segment but the last full through
// appends, deletes from the middle and replacements, and searches it as
// the model says.
func TestSegments(t *testing.T) {
	const dims = MaxDimensions
	r := rand.New(rand.NewSource(7))
	x, m := New(dims, Euclidean, 0), model{}
	put := func(key string) {
		e := Entry{Key: key, Vector: randVec(r, dims, 1), Filters: []string{}}
		x.Put(e)
		e.Vector = append([]float32(nil), e.Vector...)
		m[key] = e
	}
	for i := 0; i < 300; i++ {
		put(fmt.Sprintf("k%03d", i))
	}
	for round := 0; round < 3; round++ {
		for i := 0; i < 100; i++ {
			key := fmt.Sprintf("k%03d", r.Intn(300))
			if r.Intn(2) == 0 {
				x.Delete(key)
				delete(m, key)
			} else {
				put(key)
			}
		}
		p := x.parts[""]
		for i, seg := range p.segs {
			if full := p.per * dims; i < len(p.segs)-1 && len(seg) != full || len(seg) == 0 || len(seg) > full {
				t.Fatalf("round %d: segment %d of %d holds %d floats, full is %d", round, i, len(p.segs), len(seg), full)
			}
		}
		if n := (len(p.segs)-1)*p.per + len(p.segs[len(p.segs)-1])/dims; n != len(m) || p.len() != len(m) {
			t.Fatalf("round %d: %d vectors in segments, %d keys, model %d", round, n, p.len(), len(m))
		}
		q := Query{Vector: randVec(r, dims, 1), K: 20}
		checkSearch(t, Euclidean, m, q, x.Search(q))
	}
}

// TestPartitions: sizes per search partition, largest first, ties by name,
// and partitions decode back to their HASH values.
func TestPartitions(t *testing.T) {
	x := New(1, Euclidean, 0)
	vals := []attr.Value{attr.String("b"), {T: attr.TypeN, S: "12.50"}, attr.String("a")}
	for i, n := range []int{2, 3, 2} {
		for j := 0; j < n; j++ {
			x.Put(Entry{Key: fmt.Sprintf("%d/%d", i, j), Partition: FilterValue(vals[i]), Vector: []float32{1}, Filters: []string{}})
		}
	}
	x.Delete("0/0")
	x.Delete("0/1")
	got := x.Partitions()
	var desc []string
	for _, p := range got {
		v, ok := DecodeFilterValue(p.Partition)
		if !ok {
			t.Fatalf("partition %q does not decode", p.Partition)
		}
		desc = append(desc, fmt.Sprintf("%s:%d", v.S, p.Vectors))
	}
	if want := "[12.5:3 a:2]"; fmt.Sprint(desc) != want {
		t.Fatalf("Partitions: %v, want %s", desc, want)
	}
	if _, ok := DecodeFilterValue(""); ok {
		t.Fatal(`DecodeFilterValue("") succeeded`)
	}
}
