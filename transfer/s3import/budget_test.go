package s3import_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// TestBudget: at most n goroutines run inside a Budget of n units at once
// (at least one), and a nil Budget bounds nothing.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		units, goroutines, want int
	}{
		{units: 1, goroutines: 8, want: 1},
		{units: 3, goroutines: 8, want: 3},
		{units: 0, goroutines: 4, want: 1},
		{units: -1, goroutines: 4, want: 4}, // nil: unbounded
	} {
		var b *s3import.Budget
		if tc.units >= 0 {
			b = s3import.NewBudget(tc.units)
		}
		var in, peak atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		release := make(chan struct{})
		var once sync.Once
		for range tc.goroutines {
			wg.Go(func() {
				<-start
				b.Run(func() {
					n := in.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					if n == int64(tc.want) {
						once.Do(func() { close(release) }) // the bound is reached: let everyone through
					}
					<-release
					b.Pause(127)
					in.Add(-1)
				})
			})
		}
		close(start)
		wg.Wait()
		if peak.Load() != int64(tc.want) {
			t.Errorf("%d units, %d goroutines: %d at once, want %d", tc.units, tc.goroutines, peak.Load(), tc.want)
		}
	}
}
