package vector

import "math"

// Func is a vector index's distance function.
type Func uint8

// The three distance functions of DynamoDB's vector indexes.
const (
	Cosine     Func = iota + 1 // 1 − cos θ: 0 identical … 2 opposite; lower is more similar
	Euclidean                  // ‖q − v‖; lower is more similar
	DotProduct                 // q · v; higher is more similar
)

var funcNames = [...]string{"", "COSINE", "EUCLIDEAN", "DOT_PRODUCT"}

// String returns f's wire name ("COSINE", "EUCLIDEAN", "DOT_PRODUCT").
func (f Func) String() string {
	if int(f) < len(funcNames) {
		return funcNames[f]
	}
	return ""
}

// ParseFunc returns the Func with wire name s, or false if s names none.
func ParseFunc(s string) (Func, bool) {
	for i, n := range funcNames {
		if i > 0 && n == s {
			return Func(i), true
		}
	}
	return 0, false
}

// lanes is the number of partial sums a kernel keeps: element i is added to
// partial sum i mod lanes, and the partial sums are combined pairwise at the
// end. Fixing this order is what makes a score the same bits everywhere; the
// unrolled kernels and their plain twins below follow it exactly.
const lanes = 8

// combine adds the partial sums in the fixed pairwise order.
func combine(a *[lanes]float64) float64 {
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
}

// dotGo returns q · v with q already widened to float64; len(v) ≥ len(q).
// Each product is rounded to float64 before it is added (the explicit
// conversions forbid fused multiply-adds, which would change the bits).
// dot uses it where the assembly kernel is not available.
func dotGo(q []float64, v []float32) float64 {
	v = v[:len(q)]
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	i := 0
	for ; i+lanes <= len(q); i += lanes {
		qq := q[i : i+lanes : i+lanes]
		vv := v[i : i+lanes : i+lanes]
		a0 += float64(qq[0] * float64(vv[0]))
		a1 += float64(qq[1] * float64(vv[1]))
		a2 += float64(qq[2] * float64(vv[2]))
		a3 += float64(qq[3] * float64(vv[3]))
		a4 += float64(qq[4] * float64(vv[4]))
		a5 += float64(qq[5] * float64(vv[5]))
		a6 += float64(qq[6] * float64(vv[6]))
		a7 += float64(qq[7] * float64(vv[7]))
	}
	a := [lanes]float64{a0, a1, a2, a3, a4, a5, a6, a7}
	for ; i < len(q); i++ {
		a[i%lanes] += float64(q[i] * float64(v[i]))
	}
	return combine(&a)
}

// dotPlain is dot's plain twin: the same sums in the same order, one element
// at a time.
func dotPlain(q []float64, v []float32) float64 {
	var a [lanes]float64
	for i := range q {
		a[i%lanes] += float64(q[i] * float64(v[i]))
	}
	return combine(&a)
}

// sqDistGo returns ‖q − v‖² with q already widened to float64; len(v) ≥
// len(q). sqDist uses it where the assembly kernel is not available.
func sqDistGo(q []float64, v []float32) float64 {
	v = v[:len(q)]
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	i := 0
	for ; i+lanes <= len(q); i += lanes {
		qq := q[i : i+lanes : i+lanes]
		vv := v[i : i+lanes : i+lanes]
		d0 := qq[0] - float64(vv[0])
		d1 := qq[1] - float64(vv[1])
		d2 := qq[2] - float64(vv[2])
		d3 := qq[3] - float64(vv[3])
		d4 := qq[4] - float64(vv[4])
		d5 := qq[5] - float64(vv[5])
		d6 := qq[6] - float64(vv[6])
		d7 := qq[7] - float64(vv[7])
		a0 += float64(d0 * d0)
		a1 += float64(d1 * d1)
		a2 += float64(d2 * d2)
		a3 += float64(d3 * d3)
		a4 += float64(d4 * d4)
		a5 += float64(d5 * d5)
		a6 += float64(d6 * d6)
		a7 += float64(d7 * d7)
	}
	a := [lanes]float64{a0, a1, a2, a3, a4, a5, a6, a7}
	for ; i < len(q); i++ {
		d := q[i] - float64(v[i])
		a[i%lanes] += float64(d * d)
	}
	return combine(&a)
}

// sqDistPlain is sqDist's plain twin.
func sqDistPlain(q []float64, v []float32) float64 {
	var a [lanes]float64
	for i := range q {
		d := q[i] - float64(v[i])
		a[i%lanes] += float64(d * d)
	}
	return combine(&a)
}

// norm returns ‖v‖, computed with dot so that a vector's norm and its dot
// products round alike.
func norm(v []float32, scratch []float64) float64 {
	w := widen(v, scratch)
	return math.Sqrt(dot(w, v))
}

// widen returns v as float64 values in scratch (grown if too short).
func widen(v []float32, scratch []float64) []float64 {
	if cap(scratch) < len(v) {
		scratch = make([]float64, len(v))
	}
	w := scratch[:len(v)]
	for i, f := range v {
		w[i] = float64(f)
	}
	return w
}

// cosineScore turns a dot product and the two norms into DynamoDB's cosine
// score, 1 − cos θ, held to [0, 2] against rounding. A zero vector has no
// direction; it scores 1, as if orthogonal to everything (the service's
// documentation does not say what it does).
func cosineScore(d, nq, nv float64) float64 {
	if nq == 0 || nv == 0 {
		return 1
	}
	s := 1 - d/(nq*nv)
	return min(max(s, 0), 2)
}
