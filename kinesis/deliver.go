package kinesis

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// Sink is the Kinesis endpoint a Deliverer sends to (*Client).
type Sink interface {
	StreamStatus(ctx context.Context, s StreamARN) (string, error)
	PutRecords(ctx context.Context, s StreamARN, entries []Entry) (failed []int, err error)
}

// Owner is a claim on one-owner work (store.Ownership).
type Owner interface {
	Held() bool
	// Fence makes tx commit only while the claim holds.
	Fence(tx *store.Tx) error
}

// Options configures the Deliverer of one table.
type Options struct {
	DB      *store.DB
	TableID string // the table's space
	// Table returns what records say of the table; false once it is gone.
	Table func() (Table, bool)
	// Sink is the Kinesis endpoint; nil fails every destination's enabling
	// (no stream can be found).
	Sink   Sink
	Now    func() time.Time // nil = time.Now
	Logger *slog.Logger     // nil = discard
	// Owner, when set, says whether this process delivers the table's
	// records (cluster mode).
	Owner Owner
	// Watch, when set, runs for the deliverer's lifetime and calls notify
	// when the table's log may have grown through another process.
	Watch func(ctx context.Context, notify func())
}

// Delivery limits: a PutRecords call takes at most 500 records and 5 MiB
// (Kinesis's limits); a failing destination retries after a backoff that
// doubles up to maxBackoff; an enabling that cannot reach the endpoint
// fails after enableTimeout.
const (
	maxBatch      = 500
	maxBatchBytes = 5 << 20
	tick          = 100 * time.Millisecond
	maxBackoff    = 5 * time.Second
	enableTimeout = 30 * time.Second
)

// Deliverer delivers one table's changes to its live destination on its
// own goroutine. Its methods are safe for concurrent use.
type Deliverer struct {
	opts   Options
	notify chan struct{}
	stop   context.CancelFunc
	done   chan struct{}
}

// Start starts the table's deliverer goroutine; Close stops it.
func Start(ctx context.Context, opts Options) *Deliverer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Deliverer{opts: opts, notify: make(chan struct{}, 1), done: make(chan struct{})}
	ctx, d.stop = context.WithCancel(ctx)
	go d.run(ctx)
	return d
}

// Notify tells the deliverer that the table was written or its
// destinations changed. It never blocks.
func (d *Deliverer) Notify() {
	select {
	case d.notify <- struct{}{}:
	default:
	}
}

// Close stops the goroutine and waits for it. It is idempotent.
func (d *Deliverer) Close() {
	d.stop()
	<-d.done
}

// run is the deliverer goroutine.
func (d *Deliverer) run(ctx context.Context) {
	defer close(d.done)
	if d.opts.Watch != nil {
		go d.opts.Watch(ctx, d.Notify)
	}
	backoff := time.Duration(0)
	var lastErr string
	for {
		more, err := d.step(ctx)
		switch {
		case errors.Is(err, store.ErrClosed), ctx.Err() != nil:
			return
		case err != nil:
			if err.Error() != lastErr {
				d.opts.Logger.Warn("kinesis: delivering to a streaming destination", "table", d.opts.TableID, "err", err)
			}
			lastErr = err.Error()
			backoff = min(max(2*backoff, tick), maxBackoff)
		default:
			lastErr, backoff = "", 0
		}
		if more && err == nil {
			continue
		}
		wait := time.NewTimer(max(backoff, tick))
		select {
		case <-ctx.Done():
			wait.Stop()
			return
		case <-d.notify:
			if backoff > 0 { // a failing destination waits out its backoff
				select {
				case <-ctx.Done():
				case <-wait.C:
				}
			}
		case <-wait.C:
		}
		wait.Stop()
	}
}

// step does the next piece of the live destination's work: finish its
// enabling or updating, or deliver one batch. more says there is more to
// deliver at once.
func (d *Deliverer) step(ctx context.Context) (more bool, err error) {
	if d.opts.Owner != nil && !d.opts.Owner.Held() {
		return false, nil
	}
	var dest *Destination
	var last uint64
	err = d.opts.DB.View(func(tx *store.Tx) error {
		sp := tx.Space(d.opts.TableID)
		if sp == nil {
			return nil
		}
		st, err := Load(sp)
		if err != nil {
			return err
		}
		if l := st.Live(); l != nil {
			c := *l
			dest, last = &c, sp.LastLogSeq()
		}
		return nil
	})
	if err != nil || dest == nil {
		return false, err
	}
	switch dest.Status {
	case Enabling:
		return false, d.finishEnabling(ctx, dest)
	case Updating:
		return true, d.commit(ctx, dest, sameStatus(dest), func(cur *Destination) { cur.Status = Active })
	}
	end := last
	if dest.Status == Disabling {
		end = min(last, dest.Until)
		if dest.After >= end {
			return false, d.commit(ctx, dest, sameStatus(dest), func(cur *Destination) { cur.Status = Disabled })
		}
	}
	if dest.After >= end {
		return false, nil
	}
	return d.deliver(ctx, dest, end)
}

// finishEnabling checks the destination's stream: ACTIVE in the table's
// Region makes the destination ACTIVE; anything else ENABLE_FAILED, with
// DynamoDB's description. An endpoint that does not answer is tried again
// until enableTimeout has passed since the Enable.
func (d *Deliverer) finishEnabling(ctx context.Context, dest *Destination) error {
	t, ok := d.opts.Table()
	if !ok {
		return nil
	}
	status, desc := Active, ""
	s, ok := ParseStreamARN(dest.StreamArn)
	switch {
	case !ok || d.opts.Sink == nil:
		status, desc = EnableFailed, DescNoPermission
	case s.Region != t.Region:
		status, desc = EnableFailed, DescOtherRegion
	default:
		st, err := d.opts.Sink.StreamStatus(ctx, s)
		var api *APIError
		switch {
		case err != nil && !errors.As(err, &api) && d.opts.Now().UnixNano()-dest.Enabled < int64(enableTimeout):
			return err // not answered: try again
		case err != nil || st != Active:
			status, desc = EnableFailed, DescNoPermission
		}
	}
	return d.commit(ctx, dest, sameStatus(dest), func(cur *Destination) { cur.Status, cur.Description = status, desc })
}

// sameStatus says that the stored destination is still in dest's status.
func sameStatus(dest *Destination) func(cur *Destination) bool {
	return func(cur *Destination) bool { return cur.Status == dest.Status }
}

// commit applies change to the stored destination dest was read from,
// unless it was enabled again since or ok says it has moved on.
func (d *Deliverer) commit(ctx context.Context, dest *Destination, ok func(cur *Destination) bool, change func(cur *Destination)) error {
	return d.opts.DB.UpdateAlone(ctx, func(tx *store.Tx) error {
		if d.opts.Owner != nil {
			if err := d.opts.Owner.Fence(tx); err != nil {
				return err
			}
		}
		sp := tx.Space(d.opts.TableID)
		if sp == nil {
			return nil
		}
		st, err := Load(sp)
		if err != nil {
			return err
		}
		cur := st.Find(dest.StreamArn)
		if cur == nil || cur.Enabled != dest.Enabled || !ok(cur) {
			return nil
		}
		change(cur)
		return st.save(sp)
	})
}
