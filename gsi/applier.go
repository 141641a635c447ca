package gsi

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// tick is the safety net that runs a batch even when no Notify came (a
// writer that crashed between commit and Notify, retention expiring).
const tick = 100 * time.Millisecond

// Options configures an Applier for ONE table.
type Options struct {
	DB      *store.DB
	TableID string // the table's space id
	// Indexes returns the table's current global indexes that are ACTIVE or
	// being backfilled; it is called at the start of every batch and by
	// WaitFor (indexes come and go), from the Applier's goroutine and from
	// WaitFor's caller, so it must be safe for concurrent use. nil = none.
	Indexes func() []*index.Def
	// SpaceID returns an index's space id ("<tableID>/<name>").
	SpaceID func(indexName string) string
	// Retain keeps change-log records newer than now-Retain() (eventually
	// consistent reads need them later); nil = 0.
	Retain func() time.Duration
	Now    func() time.Time // nil = time.Now
	// Due, when not nil, says whether change-log record seq, committed at t
	// (Unix nanoseconds), may be applied yet: an index that lags on purpose
	// (the consistency policy). Records are applied in order, so one that is
	// not due holds back the ones after it. It must be safe for concurrent use.
	Due func(seq uint64, t int64) bool
	// Hold, when not nil, returns the sequence after which another consumer
	// of the change log (replication) needs its records, as tx sees it; ok
	// false when it needs none. The log is never trimmed past it.
	Hold   func(tx *store.Tx) (seq uint64, ok bool)
	Logger *slog.Logger // nil = discard
	// Owner, when set, says whether this process is the one that applies
	// the table's log (cluster mode: one front-end per table). While it is
	// not, batches do nothing (WaitFor still sees the owner's progress in
	// the store); each batch is fenced, so a deposed owner writes nothing.
	Owner Owner
	// Watch, when set, runs for the applier's lifetime and calls notify
	// when the change log may have grown through another process.
	Watch func(ctx context.Context, notify func())
}

// Owner is a claim on a table's one-owner work (store.Ownership).
type Owner interface {
	Held() bool
	// Fence makes tx commit only while the claim holds; it returns
	// store.ErrNotOwner when it does not.
	Fence(tx *store.Tx) error
}

// Applier applies one table's change log to its global indexes on its own
// goroutine. Its methods are safe for concurrent use.
type Applier struct {
	opts   Options
	notify chan struct{}      // capacity 1: pending Notify calls coalesce
	stop   context.CancelFunc // cancels the goroutine's context: Close
	done   chan struct{}      // closed when the goroutine has exited

	mu       sync.Mutex
	progress chan struct{} // closed and replaced after every batch
}

// Start starts the table's applier goroutine and returns its Applier. The
// goroutine exits when ctx is done or Close is called, or by itself when the
// store is closed (store.ErrClosed); Close must be called in every case to
// release it. Other store errors are logged and the batch is retried on the
// next Notify or tick.
func Start(ctx context.Context, opts Options) *Applier {
	a := newApplier(opts)
	ctx, a.stop = context.WithCancel(ctx)
	go a.run(ctx)
	return a
}

// newApplier fills in Options' defaults; tests drive batches without the
// goroutine through it.
func newApplier(opts Options) *Applier {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Retain == nil {
		opts.Retain = func() time.Duration { return 0 }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Indexes == nil {
		opts.Indexes = func() []*index.Def { return nil }
	}
	return &Applier{
		opts:     opts,
		notify:   make(chan struct{}, 1),
		done:     make(chan struct{}),
		progress: make(chan struct{}),
	}
}

// Notify tells the applier a write committed. It never blocks; calls made
// while a batch is pending coalesce into that batch.
func (a *Applier) Notify() {
	select {
	case a.notify <- struct{}{}:
	default:
	}
}

// Close stops the goroutine and waits for it to exit; a batch in flight is
// committed or rolled back as a whole first. It is idempotent. Waiting
// WaitFor calls return ErrClosed.
func (a *Applier) Close() {
	a.stop()
	<-a.done
}

// run is the applier goroutine. It exits, closing a.done, when ctx is done
// (Start's context ended or Close cancelled it) or the store has been closed.
func (a *Applier) run(ctx context.Context) {
	defer close(a.done)
	if a.opts.Watch != nil {
		go a.opts.Watch(ctx, a.Notify) // exits with ctx, cancelled by Close
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var lastErr string
	for {
		err := a.catchUp(ctx)
		switch {
		case errors.Is(err, store.ErrClosed), ctx.Err() != nil:
			return
		case err != nil && err.Error() != lastErr:
			// Logged once per distinct error: a stuck batch is retried
			// every tick and would otherwise flood the log.
			a.opts.Logger.Error("gsi: applying change log", "table", a.opts.TableID, "err", err)
		}
		lastErr = ""
		if err != nil {
			lastErr = err.Error()
		}
		select {
		case <-ctx.Done():
			return
		case <-a.notify:
		case <-t.C:
		}
	}
}

// catchUp runs batches until one stops short of its bounds, ctx is done,
// or a batch fails. Waiters are woken after every batch.
func (a *Applier) catchUp(ctx context.Context) error {
	for ctx.Err() == nil {
		res, err := a.step(ctx)
		a.broadcast()
		if err != nil || !res.more {
			return err
		}
	}
	return nil
}

// step runs one batch in one store transaction.
func (a *Applier) step(ctx context.Context) (batchResult, error) {
	defs := a.opts.Indexes()
	cutoff := a.opts.Now().Add(-a.opts.Retain()).UnixNano()
	var res batchResult
	if a.opts.Owner != nil && !a.opts.Owner.Held() {
		return res, nil
	}
	// A read-only look first: an idle table (most of them, most of the time)
	// must not cost a write transaction, let alone an fsync, every tick.
	var work bool
	if err := a.opts.DB.View(func(tx *store.Tx) error {
		work = hasWork(tx, a.opts.TableID, defs, a.opts.SpaceID, cutoff, a.opts.Due, a.opts.Hold)
		return nil
	}); err != nil || !work {
		return res, err
	}
	err := a.opts.DB.UpdateAlone(ctx, func(tx *store.Tx) error {
		if a.opts.Owner != nil {
			if err := a.opts.Owner.Fence(tx); err != nil {
				return err
			}
		}
		var err error
		res, err = runBatch(tx, a.opts.TableID, defs, a.opts.SpaceID, cutoff, a.opts.Due, a.opts.Hold)
		return err
	})
	if err == nil && res.stuck != nil {
		err, res.more = res.stuck, false
	}
	return res, err
}

// broadcast wakes every WaitFor call waiting on the current progress channel.
func (a *Applier) broadcast() {
	a.mu.Lock()
	close(a.progress)
	a.progress = make(chan struct{})
	a.mu.Unlock()
}

func (a *Applier) progressChan() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.progress
}

// WaitFor blocks until every index returned by Indexes() that has a watermark
// has applied all records with seq <= seq. An index being backfilled has no
// watermark yet and is not waited for, nor is one whose space is gone. It
// returns nil when done, ctx.Err() if ctx ends first, ErrClosed if the
// Applier stops first, or the store's error from reading the watermarks.
func (a *Applier) WaitFor(ctx context.Context, seq uint64) error {
	a.Notify() // once: re-notifying on every wake-up would spin a caught-up applier
	for {
		ch := a.progressChan() // before the check, so no batch slips between
		ok, err := a.caughtUp(seq)
		if errors.Is(err, store.ErrClosed) {
			return ErrClosed
		}
		if err != nil || ok {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-a.done:
			return ErrClosed
		}
	}
}

// caughtUp reports whether every maintained index has watermark >= seq.
func (a *Applier) caughtUp(seq uint64) (bool, error) {
	defs := a.opts.Indexes()
	ok := true
	err := a.opts.DB.View(func(tx *store.Tx) error {
		tsp := tx.Space(a.opts.TableID)
		if tsp == nil {
			return nil
		}
		for _, def := range defs {
			wm, has := readWatermark(tsp, def.Name)
			if has && wm < seq && tx.Space(a.opts.SpaceID(def.Name)) != nil {
				ok = false
				return nil
			}
		}
		return nil
	})
	return ok, err
}

// Watermark returns index name's watermark: the sequence number of the last
// change-log record applied to it. It returns 0, false if the index has none
// yet (it is being backfilled, or does not exist), and the store's error
// when it cannot be read (then the index may well have one).
func (a *Applier) Watermark(name string) (uint64, bool, error) {
	var wm uint64
	var ok bool
	err := a.opts.DB.View(func(tx *store.Tx) error {
		wm, ok = Watermark(tx, a.opts.TableID, name)
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	return wm, ok, nil
}

// Watermark returns global index name's watermark in table tableID as the
// snapshot tx sees it, as Applier.Watermark does; 0, false when the index
// has none yet or the table is gone.
func Watermark(tx *store.Tx, tableID, name string) (uint64, bool) {
	tsp := tx.Space(tableID)
	if tsp == nil {
		return 0, false
	}
	return readWatermark(tsp, name)
}
