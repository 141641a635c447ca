package s3import

import "runtime"

// Budget bounds how many goroutines of background work compute at once.
// A server that runs an import beside its requests gives the import
// fewer cores than it has (GOMAXPROCS-1), so that one processor is idle
// when a request arrives: Go's scheduler polls the network from an idle
// processor at once, while with every processor busy it notices a
// request only when its monitor polls (every 10 ms) and then queues it
// behind the running goroutines (BenchmarkTransfer's foreground probe saw
// a GetItem's p99 at 13-34 ms during an import with every core decoding).
//
// The work also yields its processor every few hundred items (Pause): a
// request that became runnable on that processor's queue runs then, not
// when the step ends.
//
// Each goroutine of the work acquires a unit before a step of computing
// (splitting a chunk's lines, decoding a chunk, writing one) and releases
// it before it waits for anything else (a channel, the next step), so the
// units never deadlock the pipeline. A nil *Budget bounds nothing.
type Budget struct {
	units chan struct{}
}

// NewBudget returns a Budget of n units (at least one).
func NewBudget(n int) *Budget {
	return &Budget{units: make(chan struct{}, max(1, n))}
}

// Acquire waits for a unit.
func (b *Budget) Acquire() {
	if b != nil {
		b.units <- struct{}{}
	}
}

// Release gives a unit back.
func (b *Budget) Release() {
	if b != nil {
		<-b.units
	}
}

// Run runs fn holding a unit.
func (b *Budget) Run(fn func()) {
	b.Acquire()
	defer b.Release()
	fn()
}

// yieldEvery is how many items a goroutine holding a unit handles between
// yields: a few hundred microseconds of work.
const yieldEvery = 128

// Pause yields the processor every yieldEvery calls (i counts them), so
// that runnable goroutines queued behind the work run.
func (b *Budget) Pause(i int) {
	if b != nil && i%yieldEvery == yieldEvery-1 {
		runtime.Gosched()
	}
}
