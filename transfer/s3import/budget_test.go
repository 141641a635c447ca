package s3import_test

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// TestCoresBudgetSpare: a NewCoresBudget of n units lets n goroutines
// compute at once, runs the process with n+3 processors while a unit is
// held (never fewer than it had), and gives GOMAXPROCS back once no unit
// is held (here to the value the GOMAXPROCS variable set). Whether the
// processors stay for the linger is not checked: a loaded machine may
// stall the test longer than that.
func TestCoresBudgetSpare(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	t.Setenv("GOMAXPROCS", strconv.Itoa(before))
	for _, cores := range []int{before, 1} {
		b := s3import.NewCoresBudget(cores)
		want := max(before, cores+3)
		var in, peak atomic.Int64
		var wg sync.WaitGroup
		for range cores + 2 {
			wg.Go(func() {
				b.Run(func() {
					n := in.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					if got := runtime.GOMAXPROCS(0); got != want {
						t.Errorf("%d cores: GOMAXPROCS %d while a unit is held, want %d", cores, got, want)
					}
					// Work sized while the budget runs gets the cores, not
					// the raised GOMAXPROCS.
					if got := b.Units(); got != cores {
						t.Errorf("%d cores: Units %d while a unit is held, want %d", cores, got, cores)
					}
					time.Sleep(10 * time.Millisecond)
					b.Pause(127)
					in.Add(-1)
				})
			})
		}
		wg.Wait()
		if peak.Load() > int64(cores) {
			t.Errorf("%d cores: %d goroutines at once", cores, peak.Load())
		}
		deadline := time.Now().Add(10 * time.Second)
		for runtime.GOMAXPROCS(0) != before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			t.Fatalf("%d cores: GOMAXPROCS %d once no unit is held, want %d back", cores, got, before)
		}
	}
}

// TestCoresBudgetGivesBackExplicit: a program that set GOMAXPROCS itself
// (runtime.GOMAXPROCS, no variable) gets that value back once the work is
// done, not the runtime's default.
func TestCoresBudgetGivesBackExplicit(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // restored when the test ends
	os.Unsetenv("GOMAXPROCS")
	before := runtime.GOMAXPROCS(1)
	defer runtime.SetDefaultGOMAXPROCS()
	defer runtime.GOMAXPROCS(before)
	b := s3import.NewCoresBudget(1)
	b.Run(func() {
		if got := runtime.GOMAXPROCS(0); got != 4 {
			t.Errorf("GOMAXPROCS %d while a unit is held, want 4", got)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for runtime.GOMAXPROCS(0) == 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d once no unit is held, want the program's 1 back", got)
	}
}
