package replication

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// tick is the safety net that runs a batch even when no Notify came (a
// writer that crashed between commit and Notify, a lag running out).
const tick = 100 * time.Millisecond

// keepConflicts is how many recent conflicts a Replicator lists.
const keepConflicts = 100

// Endpoint is one replica of a link.
type Endpoint struct {
	ID     string // the table's space id
	Region string // the Region it is in
}

// Options configures the Replicator of ONE link.
type Options struct {
	DB             *store.DB
	Source, Target Endpoint
	// Apply writes one change to the target inside tx (see Change) and
	// returns the write capacity units it consumed there: the replicated
	// write units (rWCU) the link counts. ErrThrottled (nothing written)
	// holds the link at that change until a later batch; any other error
	// rolls the batch back, and is logged and retried.
	Apply func(tx *store.Tx, c Change) (float64, error)
	// Due, when not nil, says whether source log record seq, committed at
	// t (Unix nanoseconds), may be applied yet: replication lag. Records are
	// applied in order, so one that is not due holds back the ones after
	// it. It must be safe for concurrent use.
	Due    func(seq uint64, t int64) bool
	Now    func() time.Time // nil = time.Now
	Logger *slog.Logger     // nil = discard
	// Owner, when set, says whether this process runs the link (cluster
	// mode); each batch is fenced by it, as gsi.Applier's are.
	Owner Owner
	// Watch, when set, runs for the replicator's lifetime and calls notify
	// when the source's log may have grown through another process.
	Watch func(ctx context.Context, notify func())
	// Applied, when set, is called after each committed batch that applied
	// something to the target (its index applier has work).
	Applied func()
	// Paused starts the link paused, as if Pause were called before its
	// first batch: a link that must be held from the start never applies
	// anything in the moment between Start and Pause.
	Paused bool
}

// Owner is a claim on one-owner work (store.Ownership).
type Owner interface {
	Held() bool
	// Fence makes tx commit only while the claim holds; it returns
	// store.ErrNotOwner when it does not.
	Fence(tx *store.Tx) error
}

// Replicator replicates one link on its own goroutine. Its methods are safe
// for concurrent use.
type Replicator struct {
	opts   Options
	notify chan struct{}      // capacity 1: pending Notify calls coalesce
	stop   context.CancelFunc // cancels the goroutine's context: Close
	done   chan struct{}      // closed when the goroutine has exited
	paused atomic.Bool

	mu        sync.Mutex
	progress  chan struct{} // closed and replaced after every batch and on Pause
	conflicts []Conflict    // the most recent, oldest first
	nConflict int64         // all counted since Start
	units     float64       // replicated write units consumed since Start
	throttled int64         // batches held back by ErrThrottled since Start
}

// Start starts the link's replicator goroutine. The goroutine exits when ctx
// is done or Close is called, or by itself when the store is closed
// (store.ErrClosed); Close must be called in every case to release it.
// Other errors are logged and the batch is retried on the next Notify or
// tick.
func Start(ctx context.Context, opts Options) *Replicator {
	r := newReplicator(opts)
	ctx, r.stop = context.WithCancel(ctx)
	go r.run(ctx)
	return r
}

// newReplicator fills in Options' defaults; tests drive batches without the
// goroutine through it.
func newReplicator(opts Options) *Replicator {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Replicator{opts: opts, notify: make(chan struct{}, 1), done: make(chan struct{}), progress: make(chan struct{})}
	r.paused.Store(opts.Paused)
	return r
}

// Notify tells the replicator that the source may have new records. It never
// blocks; calls made while a batch is pending coalesce into that batch.
func (r *Replicator) Notify() {
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// Close stops the goroutine and waits for it to exit; a batch in flight is
// committed or rolled back as a whole first. It is idempotent.
func (r *Replicator) Close() {
	r.stop()
	<-r.done
}

// Pause stops the link from applying anything until Resume, as if the
// target's Region were cut off; writes keep accumulating in the source's
// log. Waiting WaitFor calls return ErrPaused.
func (r *Replicator) Pause() {
	r.paused.Store(true)
	r.broadcast()
}

// Resume lets a paused link catch up.
func (r *Replicator) Resume() {
	r.paused.Store(false)
	r.Notify()
}

// Paused reports whether the link is paused.
func (r *Replicator) Paused() bool { return r.paused.Load() }

// run is the replicator goroutine. It exits, closing r.done, when ctx is
// done or the store has been closed.
func (r *Replicator) run(ctx context.Context) {
	defer close(r.done)
	if r.opts.Watch != nil {
		go r.opts.Watch(ctx, r.Notify) // exits with ctx, cancelled by Close
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var lastErr string
	for {
		err := r.catchUp(ctx)
		switch {
		case errors.Is(err, store.ErrClosed), ctx.Err() != nil:
			return
		case err != nil && err.Error() != lastErr:
			// Once per distinct error: a stuck batch is retried every tick.
			r.opts.Logger.Error("replication: replicating change log",
				"source", r.opts.Source.ID, "target", r.opts.Target.ID, "err", err)
		}
		lastErr = ""
		if err != nil {
			lastErr = err.Error()
		}
		select {
		case <-ctx.Done():
			return
		case <-r.notify:
		case <-t.C:
		}
	}
}

// catchUp runs batches until one stops short of its bounds, ctx is done, or
// a batch fails. Waiters are woken after every batch.
func (r *Replicator) catchUp(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := r.step(ctx)
		r.broadcast()
		if err != nil || !res.more {
			return err
		}
	}
	return nil
}

// step runs one batch in one store transaction, unless the link is paused,
// this process does not own it, or a read-only look finds nothing to do.
func (r *Replicator) step(ctx context.Context) (batchResult, error) {
	var res batchResult
	if r.paused.Load() || (r.opts.Owner != nil && !r.opts.Owner.Held()) {
		return res, nil
	}
	var work bool
	if err := r.opts.DB.View(func(tx *store.Tx) error {
		work = r.opts.hasWork(tx)
		return nil
	}); err != nil || !work {
		return res, err
	}
	err := r.opts.DB.UpdateAlone(ctx, func(tx *store.Tx) error {
		if r.opts.Owner != nil {
			if err := r.opts.Owner.Fence(tx); err != nil {
				return err
			}
		}
		var err error
		res, err = r.opts.runBatch(tx)
		return err
	})
	if err == nil {
		r.record(res)
		if res.applied > 0 && r.opts.Applied != nil {
			r.opts.Applied()
		}
		if res.stuck != nil {
			err, res.more = res.stuck, false
		}
	}
	return res, err
}

// record adds a committed batch's conflicts to the list and count, and its
// replicated write units and throttling to theirs.
func (r *Replicator) record(res batchResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.units += res.units
	if res.throttled {
		r.throttled++
	}
	cs := res.conflicts
	if len(cs) == 0 {
		return
	}
	r.nConflict += int64(len(cs))
	r.conflicts = append(r.conflicts, cs...)
	if over := len(r.conflicts) - keepConflicts; over > 0 {
		r.conflicts = append(r.conflicts[:0:0], r.conflicts[over:]...)
	}
}

// Conflicts returns how many replicated writes last-writer-wins has
// discarded on this link since Start, and the most recent of them (at most
// 100), oldest first.
func (r *Replicator) Conflicts() (int64, []Conflict) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nConflict, append([]Conflict(nil), r.conflicts...)
}

// broadcast wakes every WaitFor call waiting on the current progress channel.
func (r *Replicator) broadcast() {
	r.mu.Lock()
	close(r.progress)
	r.progress = make(chan struct{})
	r.mu.Unlock()
}

func (r *Replicator) progressChan() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.progress
}
