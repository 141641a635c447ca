package kinesis

import (
	"context"
	"fmt"
	"time"

	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// batch is the next records of a destination: entries to send, and the
// log sequence they take the destination through (records that changed
// nothing, or older than Retention, are passed over).
type batch struct {
	entries []Entry
	through uint64
	full    bool // stopped at a limit, not at end
}

// deliver sends the destination's next batch, up to log sequence end, and
// records how far it got.
func (d *Deliverer) deliver(ctx context.Context, dest *Destination, end uint64) (bool, error) {
	t, ok := d.opts.Table()
	if !ok {
		return false, nil
	}
	var b batch
	err := d.opts.DB.View(func(tx *store.Tx) error {
		sp := tx.Space(d.opts.TableID)
		if sp == nil {
			return nil
		}
		var err error
		b, err = d.collect(sp, t, dest, end)
		return err
	})
	if err != nil || b.through <= dest.After {
		return false, err
	}
	if len(b.entries) > 0 {
		s, ok := ParseStreamARN(dest.StreamArn)
		if !ok || d.opts.Sink == nil {
			return false, fmt.Errorf("kinesis: no endpoint for %s", dest.StreamArn)
		}
		if err := d.put(ctx, s, b.entries); err != nil {
			return false, err
		}
	}
	err = d.commit(ctx, dest, func(cur *Destination) bool { return cur.delivering() }, func(cur *Destination) {
		cur.After = max(cur.After, b.through)
	})
	return b.full, err
}

// collect reads the records after dest.After through end from table space
// sp, up to PutRecords' limits.
func (d *Deliverer) collect(sp *store.Space, t Table, dest *Destination, end uint64) (batch, error) {
	b := batch{through: dest.After}
	cutoff := d.opts.Now().Add(-Retention).UnixNano()
	precision := dest.EffectivePrecision()
	size := 0
	var err error
	ascErr := sp.AscendLog(dest.After, func(seq uint64, raw []byte) bool {
		if seq > end {
			return false
		}
		if len(b.entries) == maxBatch {
			b.full = true
			return false
		}
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			return false
		}
		if rec.Time < cutoff {
			b.through = seq
			return true
		}
		var e Entry
		var changed bool
		if e, changed, err = Render(t, d.opts.TableID, seq, raw, precision); err != nil {
			return false
		}
		if changed {
			if n := len(e.Data) + len(e.PartitionKey); size+n > maxBatchBytes && len(b.entries) > 0 {
				b.full = true
				return false
			} else {
				size += n
			}
			b.entries = append(b.entries, e)
		}
		b.through = seq
		return true
	})
	if err == nil {
		err = ascErr
	}
	return b, err
}

// put sends entries with PutRecords, sending again those Kinesis did not
// take (throttled), after a short backoff, until all are taken.
func (d *Deliverer) put(ctx context.Context, s StreamARN, entries []Entry) error {
	backoff := tick
	for {
		failed, err := d.opts.Sink.PutRecords(ctx, s, entries)
		if err != nil {
			return err
		}
		if len(failed) == 0 {
			return nil
		}
		again := make([]Entry, len(failed))
		for i, f := range failed {
			again[i] = entries[f]
		}
		entries = again
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
