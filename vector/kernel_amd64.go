package vector

import "golang.org/x/sys/cpu"

// dotLanes and sqDistLanes (kernel_amd64.s) compute the lanes partial sums
// of the first n elements (n a multiple of lanes) into acc with AVX: one
// 4-wide float64 register holds lanes 0–3 and another lanes 4–7, each
// product rounded before it is added (no FMA), so the sums are bit for bit
// those of dotPlain and sqDistPlain.
//
//go:noescape
func dotLanes(q *float64, v *float32, n int, acc *[lanes]float64)

//go:noescape
func sqDistLanes(q *float64, v *float32, n int, acc *[lanes]float64)

// dot returns q · v with q already widened to float64; len(v) ≥ len(q).
func dot(q []float64, v []float32) float64 {
	if !cpu.X86.HasAVX || len(q) < lanes {
		return dotGo(q, v)
	}
	v = v[:len(q)]
	var a [lanes]float64
	n := len(q) &^ (lanes - 1)
	dotLanes(&q[0], &v[0], n, &a)
	for i := n; i < len(q); i++ {
		a[i%lanes] += float64(q[i] * float64(v[i]))
	}
	return combine(&a)
}

// sqDist returns ‖q − v‖² with q already widened to float64; len(v) ≥ len(q).
func sqDist(q []float64, v []float32) float64 {
	if !cpu.X86.HasAVX || len(q) < lanes {
		return sqDistGo(q, v)
	}
	v = v[:len(q)]
	var a [lanes]float64
	n := len(q) &^ (lanes - 1)
	sqDistLanes(&q[0], &v[0], n, &a)
	for i := n; i < len(q); i++ {
		d := q[i] - float64(v[i])
		a[i%lanes] += float64(d * d)
	}
	return combine(&a)
}
