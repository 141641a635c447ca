package vector

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"
	"time"
	"unsafe"
)

const benchN, benchDims = 100_000, 768

// benchIndex builds one search partition of benchN random vectors with
// storage-key-sized keys, and returns the heap it holds per vector.
func benchIndex(b *testing.B, fn Func) (*Index, float64) {
	b.Helper()
	r := rand.New(rand.NewSource(1))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := New(benchDims, fn, 0)
	v := make([]float32, benchDims)
	for i := 0; i < benchN; i++ {
		for j := range v {
			v[j] = r.Float32()*2 - 1
		}
		x.Put(Entry{Key: fmt.Sprintf("\x13\x37\x00\x42\x01\x02\x03\x04user#%08d\x00\x01", i), Vector: v, Filters: []string{}})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return x, float64(after.HeapAlloc-before.HeapAlloc) / benchN
}

// readBound streams the same float32 memory as a search, as 64-bit words
// with four independent sums: the time the machine needs to read it once.
func readBound(f []float32) uint64 {
	w := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(f))), len(f)/2)
	var s0, s1, s2, s3 uint64
	for i := 0; i+4 <= len(w); i += 4 {
		c := w[i : i+4 : i+4]
		s0 += c[0]
		s1 += c[1]
		s2 += c[2]
		s3 += c[3]
	}
	return s0 ^ s1 ^ s2 ^ s3
}

var benchSink uint64

// BenchmarkSearch is SearchVectors' core: TopK 10 over 100,000 vectors of
// 768 dimensions (307 MB) in one partition. Each iteration also times one
// plain read of the same memory, alternating with the search so that both
// see the same machine load; x-read-bound is the ratio (target ≤ 2).
//
//	go test ./vector -run '^$' -bench Search -benchtime 20x
func BenchmarkSearch(b *testing.B) {
	for _, fn := range []Func{Cosine, Euclidean, DotProduct} {
		b.Run(fn.String(), func(b *testing.B) {
			x, perVec := benchIndex(b, fn)
			segs := x.parts[""].segs
			q := Query{Vector: make([]float32, benchDims), K: 10}
			for i := range q.Vector {
				q.Vector[i] = float32(i%7) - 3
			}
			var search, read time.Duration
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				for _, seg := range segs {
					benchSink += readBound(seg)
				}
				t1 := time.Now()
				if len(x.Search(q)) != 10 {
					b.Fatal("short result")
				}
				search += time.Since(t1)
				read += t1.Sub(t0)
			}
			b.ReportMetric(float64(read.Nanoseconds())/float64(b.N), "read-ns/op")
			b.ReportMetric(float64(search.Nanoseconds())/float64(b.N), "search-ns/op")
			b.ReportMetric(float64(search)/float64(read), "x-read-bound")
			b.ReportMetric(perVec, "heap-B/vector")
			b.ReportMetric(perVec/(4*benchDims), "heap-x-4dims")
		})
	}
}
