package s3import

import (
	"runtime"
	"sync"
	"time"
)

// Budget bounds how many goroutines of background work compute at once,
// and keeps processors free for foreground requests while they do.
//
// Why free processors: Go's scheduler polls the network from a processor
// that has nothing to run, at once, but with every processor busy it
// notices a request only when its monitor polls (every 10 ms), when a
// collection restarts the world, or when a processor runs out of work,
// and then queues it behind the running goroutines (BenchmarkTransfer's
// foreground probe saw a GetItem's p99 at 13-34 ms during an import with
// every core decoding). A Budget of NewBudget(n) units for GOMAXPROCS-1
// leaves one processor idle by giving the work one core fewer than the
// machine has (half of a 2-core machine). NewCoresBudget instead gives the
// work every core and runs the process with spareProcs processors more
// than cores while any unit is held (runtime.GOMAXPROCS): the processors
// left idle poll the network at once as before, and the operating system,
// not Go, shares the cores between the work's threads and the thread of a
// request that arrives (Linux runs a thread woken from its wait ahead of
// busy ones, within its scheduling slice), so a request is not held back
// by the work more than without it and an idle machine's cores all
// compute.
//
// The work also yields its processor every few hundred items (Pause): a
// request that became runnable on that processor's queue runs then, not
// when the step ends. (A yield does not poll the network: the yielding
// goroutine waits in the global queue, which the scheduler reads first.)
//
// Each goroutine of the work acquires a unit before a step of computing
// (splitting a chunk's lines, decoding a chunk, writing one) and releases
// it before it waits for anything else (a channel, the next step), so the
// units never deadlock the pipeline. A nil *Budget bounds nothing.
type Budget struct {
	units chan struct{}
	spare *spareProc // nil: GOMAXPROCS is left as it is
}

// NewBudget returns a Budget of n units (at least one).
func NewBudget(n int) *Budget {
	return &Budget{units: make(chan struct{}, max(1, n))}
}

// spareProcs is how many processors more than cores a NewCoresBudget
// runs the process with while its units are held. Beside the work's
// units, the collector computes for long stretches during a transfer:
// its dedicated mark worker (GOMAXPROCS 4 and more have one; below, every
// processor marks a quarter of its time) for about a third of the time,
// and an idle mark worker on every idle processor while it marks (those
// poll the network between bits of work). The durable store's
// checkpointer computed beside them too (a third to two fifths of a core
// during a bulk load) until it took a unit of the budget (store.Pacer).
// With one spare, all three processors were busy when 48-52 % of a
// foreground probe's requests arrived during a durable 1,000,000-item
// bulk load: those waited for the monitor's 10 ms network poll and then
// for a processor, and 16-25 % of the requests took 5 ms or more
// (fourteenth session; with three, 4-8 %). With the checkpointer paced,
// three spares still beat two (5.4-7.0 % against 7.2-8.9 % at 5 ms or
// more, loaded machine); four did no better than three.
const spareProcs = 3

// NewCoresBudget returns a Budget of cores units (at least one) that runs
// the process with cores+spareProcs processors while any unit is held,
// and gives GOMAXPROCS back to what it was once no unit has been held for
// spareLinger (the runtime's automatic default when it was that, so it
// keeps following the machine; else the variable's or the program's own
// value). GOMAXPROCS is the process's: two such Budgets in one process
// (servers in one test binary) may give it back while the other's work
// runs, which costs that work's requests latency, nothing else.
func NewCoresBudget(cores int) *Budget {
	cores = max(1, cores)
	return &Budget{units: make(chan struct{}, cores), spare: &spareProc{procs: cores + spareProcs}}
}

// Units returns how many goroutines may compute at once (a
// NewCoresBudget's cores), or, for a nil Budget, GOMAXPROCS. Work that
// sizes its goroutines asks this, not GOMAXPROCS, which the budget raises
// above the cores while a transfer computes.
func (b *Budget) Units() int {
	if b == nil {
		return runtime.GOMAXPROCS(0)
	}
	return cap(b.units)
}

// Acquire waits for a unit.
func (b *Budget) Acquire() {
	if b != nil {
		b.units <- struct{}{}
		b.spare.hold()
	}
}

// Release gives a unit back.
func (b *Budget) Release() {
	if b != nil {
		b.spare.drop()
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
// that runnable goroutines queued behind the work run. With spare
// processors (NewCoresBudget) it yields the thread's core too (osYield):
// a request's thread woken on that core runs then, not when the work's
// thread has used its scheduling slice.
func (b *Budget) Pause(i int) {
	if b != nil && i%yieldEvery == yieldEvery-1 {
		runtime.Gosched()
		if b.spare != nil {
			osYield()
		}
	}
}

// spareLinger is how long a Budget with spare processors keeps them after
// its last unit is given back: the steps of one transfer, and transfers
// run one after another, do not change GOMAXPROCS (which stops the world
// for a moment) each time.
const spareLinger = 250 * time.Millisecond

// spareProc is a Budget's extra processors: GOMAXPROCS is at least procs
// while a unit is held (held > 0) and until spareLinger after; raised
// says this raised it.
type spareProc struct {
	procs  int
	mu     sync.Mutex
	held   int
	raised bool
	prev   int // GOMAXPROCS before it was raised
	lower  *time.Timer
}

// hold counts a unit held, raising GOMAXPROCS if it is not.
func (s *spareProc) hold() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held++
	if s.lower != nil {
		s.lower.Stop()
	}
	if !s.raised && runtime.GOMAXPROCS(0) < s.procs {
		s.prev, s.raised = runtime.GOMAXPROCS(s.procs), true
	}
}

// drop counts a unit given back; the last starts the linger.
func (s *spareProc) drop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held--; s.held > 0 || !s.raised {
		return
	}
	if s.lower == nil {
		s.lower = time.AfterFunc(spareLinger, s.idle)
	} else {
		s.lower.Reset(spareLinger)
	}
}

// idle gives GOMAXPROCS back if no unit was taken since the linger began.
func (s *spareProc) idle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held > 0 || !s.raised {
		return
	}
	s.raised = false
	// The runtime's default (automatic, following the machine, or the
	// GOMAXPROCS variable's) when that is what the process ran with, so
	// it stays automatic; else the value it was given (a program's own
	// runtime.GOMAXPROCS call, which the default would override).
	runtime.SetDefaultGOMAXPROCS()
	if runtime.GOMAXPROCS(0) != s.prev {
		runtime.GOMAXPROCS(s.prev)
	}
}
