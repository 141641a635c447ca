package gsi

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkApply measures how fast one applier drains a backlog of b.N log
// records into two indexes (one record per op; trimming included).
func BenchmarkApply(b *testing.B) {
	h := newHarness(b, byG(), byH())
	h.built()
	const batch = 1000
	ops := make([]op, 0, batch)
	for i := range b.N {
		pk := fmt.Sprint(i % 10000)
		ops = append(ops, op{pk, item("pk", pk, "g", fmt.Sprint(i%97), "s", i, "h", i%13, "pad", "0123456789abcdef")})
		if len(ops) == batch || i == b.N-1 {
			if _, err := h.writeAll(ops); err != nil {
				b.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	last := h.lastSeq()
	b.ResetTimer()
	start := time.Now()
	a := Start(context.Background(), h.options())
	if err := a.WaitFor(context.Background(), last); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	a.Close()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "records/s")
}

// BenchmarkBackfill measures how fast Backfill indexes existing items.
func BenchmarkBackfill(b *testing.B) {
	g := byG()
	h := newHarness(b)
	ops := make([]op, 0, 1000)
	for i := range b.N {
		pk := fmt.Sprint(i)
		ops = append(ops, op{pk, item("pk", pk, "g", fmt.Sprint(i%97), "s", i, "pad", "0123456789abcdef")})
		if len(ops) == cap(ops) || i == b.N-1 {
			if _, err := h.writeAll(ops); err != nil {
				b.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	h.addIndex(g)
	b.ResetTimer()
	start := time.Now()
	if err := Backfill(context.Background(), h.db, tableID, g, spaceID(g.Name), 0); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "items/s")
}
