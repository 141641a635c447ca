package throttle

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkTake: an admitted request, the hot path of every read and write
// while throttling is on: one target (a table), three (a write that
// changes two global indexes) and six (five indexes).
// go test -bench Take -benchmem ./throttle/
func BenchmarkTake(b *testing.B) {
	for _, n := range []int{1, 3, 6} {
		b.Run(fmt.Sprintf("targets=%d", n), func(b *testing.B) {
			l := New(Options{})
			targets := make([]Target, n)
			for i := range targets {
				targets[i] = Target{Cap: Capacity{ARN: "arn:t"}, Hash: uint64(i) << 60, Units: 1}
				if i > 0 {
					targets[i].Index = fmt.Sprint("g", i)
				}
			}
			now := time.Unix(1e9, 0)
			b.ReportAllocs()
			for i := range b.N {
				// Two milliseconds apart: the buckets refill faster than one
				// unit a request drains them.
				if why := l.Take(now.Add(time.Duration(i)*2*time.Millisecond), "T", Write, targets); why != nil {
					b.Fatal(why)
				}
			}
		})
	}
}
