package replication

import (
	"context"
	"errors"
	"time"

	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// hasWork reports whether runBatch would change anything: a stamp behind its
// table's log, a copy to run, or a source record after the watermark that
// is someone else's (passed over) or due. It only reads.
func (o *Options) hasWork(tx *store.Tx) bool {
	sp, src, dst, ok, err := o.open(tx)
	if !ok || err != nil {
		return err != nil // a corrupt state is reported by the batch
	}
	if src.stamp < sp.src.LastLogSeq() || dst.stamp < sp.dst.LastLogSeq() {
		return true
	}
	l := src.find(o.Target.ID)
	if l.copying != copyDone {
		return true
	}
	work := false
	sp.src.AscendLog(l.wm, func(seq uint64, raw []byte) bool {
		rec, err := changelog.Decode(raw)
		work = err != nil || rec.Origin != "" || o.Due == nil || o.Due(seq, rec.Time)
		return false
	})
	return work
}

// WaitFor blocks until the link has handled every source record with
// sequence <= seq (its copy, if any, finished first). It returns nil when
// done or when the link or either replica is gone, ErrPaused while the link
// is paused, ctx.Err() if ctx ends first, ErrClosed if the Replicator stops
// first, or the store's error from reading the watermark.
func (r *Replicator) WaitFor(ctx context.Context, seq uint64) error {
	r.Notify() // once: re-notifying on every wake-up would spin
	for {
		ch := r.progressChan() // before the check, so no batch slips between
		if r.paused.Load() {
			return ErrPaused
		}
		var wm uint64
		var copied, ok bool
		err := r.opts.DB.View(func(tx *store.Tx) error {
			wm, copied, ok = Watermark(tx, r.opts.Source.ID, r.opts.Target.ID)
			return nil
		})
		if errors.Is(err, store.ErrClosed) {
			return ErrClosed
		}
		if err != nil || !ok || (copied && wm >= seq) {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-r.done:
			return ErrClosed
		}
	}
}

// Status is what a link is doing, for /_ddblocal/replication.
type Status struct {
	Source, Target Endpoint
	Watermark      uint64 // the last source log record handled
	Copying        bool   // the new replica's initial copy is running
	Paused         bool
	// Backlog is how many of the source's own writes wait to be applied,
	// and Lag how long the oldest of them has waited (0 when none).
	Backlog   int
	Lag       time.Duration
	Conflicts int64 // writes discarded by last-writer-wins since Start
	// ReplicatedUnits is the write capacity the link's writes consumed on
	// the target since Start (replicated write units, rWCU or rWRU), and
	// Throttled how many of its batches the target's capacity held back.
	ReplicatedUnits float64
	Throttled       int64
}

// Status returns the link's status; ok is false when the link does not
// exist (any more). It returns the store's errors.
func (r *Replicator) Status() (st Status, ok bool, err error) {
	st = Status{Source: r.opts.Source, Target: r.opts.Target, Paused: r.paused.Load()}
	st.Conflicts, _ = r.Conflicts()
	r.mu.Lock()
	st.ReplicatedUnits, st.Throttled = r.units, r.throttled
	r.mu.Unlock()
	now := r.opts.Now().UnixNano()
	err = r.opts.DB.View(func(tx *store.Tx) error {
		var copied bool
		if st.Watermark, copied, ok = Watermark(tx, r.opts.Source.ID, r.opts.Target.ID); !ok {
			return nil
		}
		st.Copying = !copied
		return tx.Space(r.opts.Source.ID).AscendLog(st.Watermark, func(_ uint64, raw []byte) bool {
			rec, err := changelog.Decode(raw)
			if err == nil && rec.Origin == "" {
				if st.Backlog == 0 {
					st.Lag = max(0, time.Duration(now-rec.Time))
				}
				st.Backlog++
			}
			return true
		})
	})
	return st, ok, err
}
