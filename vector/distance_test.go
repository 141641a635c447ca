package vector

import (
	"math"
	"math/rand"
	"testing"
)

func randVec(r *rand.Rand, dims int, scale float64) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32((r.Float64()*2 - 1) * scale)
	}
	return v
}

// TestKernelsMatchPlainTwins: the kernels searches use (assembly on amd64
// with AVX) and the unrolled Go ones give the same bits as their
// one-element-at-a-time twins, for every tail length.
func TestKernelsMatchPlainTwins(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, dims := range []int{1, 2, 7, 8, 9, 15, 16, 17, 63, 768, 1536, 4096} {
		for _, scale := range []float64{1, 1e-30, 1e30, 3e38} {
			q32, v := randVec(r, dims, scale), randVec(r, dims, scale)
			q := widen(q32, nil)
			want := dotPlain(q, v)
			for name, got := range map[string]float64{"dot": dot(q, v), "dotGo": dotGo(q, v)} {
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("dims %d scale %g: %s %v, plain %v", dims, scale, name, got, want)
				}
			}
			want = sqDistPlain(q, v)
			for name, got := range map[string]float64{"sqDist": sqDist(q, v), "sqDistGo": sqDistGo(q, v)} {
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("dims %d scale %g: %s %v, plain %v", dims, scale, name, got, want)
				}
			}
		}
	}
}

// TestKernelsStayFinite: float64 sums of float32 values cannot overflow, even
// at the largest float32 magnitudes and the most dimensions.
func TestKernelsStayFinite(t *testing.T) {
	big := make([]float32, MaxDimensions)
	neg := make([]float32, MaxDimensions)
	for i := range big {
		big[i], neg[i] = math.MaxFloat32, -math.MaxFloat32
	}
	q := widen(big, nil)
	for name, got := range map[string]float64{"dot": dot(q, big), "sqDist": sqDist(q, neg), "norm": norm(big, nil)} {
		if math.IsInf(got, 0) || math.IsNaN(got) {
			t.Errorf("%s = %v", name, got)
		}
	}
}

func TestCosineScore(t *testing.T) {
	cases := []struct {
		d, nq, nv, want float64
	}{
		{1, 1, 1, 0}, {-1, 1, 1, 2}, {0, 1, 1, 1}, {0.5, 1, 1, 0.5},
		{1.0000001, 1, 1, 0},       // rounding past identical is held at 0
		{-1.0000001, 1, 1, 2},      // and past opposite at 2
		{3, 0, 2, 1}, {3, 2, 0, 1}, // a zero vector scores as orthogonal
	}
	for _, c := range cases {
		if got := cosineScore(c.d, c.nq, c.nv); got != c.want {
			t.Errorf("cosineScore(%v, %v, %v) = %v, want %v", c.d, c.nq, c.nv, got, c.want)
		}
	}
}

func TestParseFunc(t *testing.T) {
	for _, f := range []Func{Cosine, Euclidean, DotProduct} {
		if got, ok := ParseFunc(f.String()); !ok || got != f {
			t.Errorf("ParseFunc(%q) = %v, %v", f.String(), got, ok)
		}
	}
	for _, s := range []string{"", "cosine", "MANHATTAN", "DOT"} {
		if _, ok := ParseFunc(s); ok {
			t.Errorf("ParseFunc(%q) accepted", s)
		}
	}
}
