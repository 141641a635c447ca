package gsi

import (
	"fmt"
	"math"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// Batch bounds. One batch is one store transaction; keeping it bounded keeps
// the writers that share the group commit from waiting long behind it.
const (
	maxApply = 512  // log records read per batch
	maxTrim  = 4096 // log records trimmed per batch
)

// batchResult is what one batch did.
type batchResult struct {
	applied int   // log records read and applied to at least one index
	trimmed int   // log records trimmed
	more    bool  // the batch stopped at a bound: run another at once
	stuck   error // a record that does not decode stopped the indexes before it
}

// target is one index the batch applies records to.
type target struct {
	def *index.Def
	sp  *store.Space
	wm  uint64 // watermark before the batch, then after it
}

// runBatch is one Update's work for table tableID: apply up to maxApply log
// records to every index of defs that has a watermark, advancing each
// watermark in the same transaction, then trim the log behind the slowest
// index and any backfill in progress, keeping records whose Time is after
// cutoff (Unix nanoseconds). It depends only on its arguments and what it
// reads through tx, so the store may re-run it.
//
// due, when not nil, holds back the first record it rejects and every record
// after it (an index that lags on purpose); the applier's tick retries them.
// hold, when not nil, keeps the log after the sequence it returns.
func runBatch(tx *store.Tx, tableID string, defs []*index.Def, spaceID func(string) string, cutoff int64, due func(seq uint64, t int64) bool, hold func(*store.Tx) (uint64, bool)) (batchResult, error) {
	var res batchResult
	tsp := tx.Space(tableID)
	if tsp == nil {
		return res, nil // the table is being deleted
	}
	targets := make([]target, 0, len(defs))
	from := uint64(math.MaxUint64)
	for _, def := range defs {
		wm, ok := readWatermark(tsp, def.Name)
		if !ok {
			continue // being backfilled
		}
		sp := tx.Space(spaceID(def.Name))
		if sp == nil {
			continue // being deleted
		}
		targets = append(targets, target{def: def, sp: sp, wm: wm})
		from = min(from, wm)
	}
	if len(targets) > 0 {
		n, last, stuck, err := applyLog(tsp, targets, from, due)
		if err != nil {
			return res, err
		}
		res.stuck = stuck
		res.applied, res.more = n, n == maxApply && last < tsp.LastLogSeq()
		for i := range targets {
			if last > targets[i].wm {
				targets[i].wm = last
				if err := writeWatermark(tsp, targets[i].def.Name, last); err != nil {
					return res, err
				}
			}
		}
	}
	floor := tsp.LastLogSeq()
	for _, t := range targets {
		floor = min(floor, t.wm)
	}
	for _, bf := range readBackfills(tsp) {
		floor = min(floor, bf.start)
	}
	floor = held(tx, floor, hold)
	n, err := trimLog(tsp, floor, cutoff)
	if err != nil {
		return res, err
	}
	res.trimmed = n
	res.more = res.more || n == maxTrim
	return res, nil
}

// applyLog applies the log records after from (at most maxApply) to each
// target whose watermark is below the record's sequence. It returns how many
// records it applied and the last one's sequence (from if none). A record
// that does not decode ends the batch cleanly before it, reported as stuck,
// so the records before it still commit; err is a failure that may have left
// an index half-changed, so the transaction must roll back.
func applyLog(tsp *store.Space, targets []target, from uint64, due func(uint64, int64) bool) (n int, last uint64, stuck, err error) {
	last = from
	ascErr := tsp.AscendLog(from, func(seq uint64, raw []byte) bool {
		if due != nil {
			if rec, derr := changelog.Decode(raw); derr == nil && !due(seq, rec.Time) {
				return false
			}
		}
		key, old, new, derr := decodeRecord(seq, raw)
		if derr != nil {
			stuck = derr
			return false
		}
		if err = applyRecord(targets, seq, key, old, new); err != nil {
			return false
		}
		n, last = n+1, seq
		return n < maxApply
	})
	if err == nil {
		err = ascErr
	}
	return n, last, stuck, err
}

// decodeRecord decodes one log record and its images (once, shared by every
// index).
func decodeRecord(seq uint64, raw []byte) (key []byte, old, new attr.Item, err error) {
	rec, err := changelog.Decode(raw)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gsi: log record %d: %w", seq, err)
	}
	if rec.Old != nil {
		if old, err = attr.DecodeBinary(rec.Old); err != nil {
			return nil, nil, nil, fmt.Errorf("gsi: log record %d old image: %w", seq, err)
		}
	}
	if rec.New != nil {
		if new, err = attr.DecodeBinary(rec.New); err != nil {
			return nil, nil, nil, fmt.Errorf("gsi: log record %d new image: %w", seq, err)
		}
	}
	return rec.Key, old, new, nil
}

// applyRecord applies one decoded record to the targets that have not yet
// seen it.
func applyRecord(targets []target, seq uint64, key []byte, old, new attr.Item) error {
	for _, t := range targets {
		if seq <= t.wm {
			continue
		}
		if err := t.def.Diff(key, old, new).Apply(t.sp); err != nil {
			return fmt.Errorf("gsi: index %s, log record %d: %w", t.def.Name, seq, err)
		}
	}
	return nil
}

// trimLog deletes up to maxTrim of the oldest log records that have sequence
// <= floor and Time <= cutoff, stopping at the first that does not qualify:
// records are in commit order, so a younger record is never followed by an
// older one that would be worth deleting past it. It returns how many it
// deleted.
func trimLog(tsp *store.Space, floor uint64, cutoff int64) (int, error) {
	var n int
	var upTo uint64
	var err error
	ascErr := tsp.AscendLog(0, func(seq uint64, raw []byte) bool {
		if seq > floor {
			return false
		}
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("gsi: log record %d: %w", seq, err)
			return false
		}
		if rec.Time > cutoff {
			return false
		}
		n, upTo = n+1, seq
		return n < maxTrim
	})
	if err == nil {
		err = ascErr
	}
	if err != nil || n == 0 {
		return 0, err
	}
	return n, tsp.TrimLog(upTo)
}

// hasWork reports whether runBatch would change anything: an index with a
// watermark whose next record is due, or log records it could trim. It only
// reads.
func hasWork(tx *store.Tx, tableID string, defs []*index.Def, spaceID func(string) string, cutoff int64, due func(uint64, int64) bool, hold func(*store.Tx) (uint64, bool)) bool {
	tsp := tx.Space(tableID)
	if tsp == nil {
		return false
	}
	last := tsp.LastLogSeq()
	floor := last
	for _, def := range defs {
		wm, ok := readWatermark(tsp, def.Name)
		if !ok || tx.Space(spaceID(def.Name)) == nil {
			continue
		}
		floor = min(floor, wm)
		if wm < last && firstDue(tsp, wm, due) {
			return true
		}
	}
	for _, bf := range readBackfills(tsp) {
		floor = min(floor, bf.start)
	}
	floor = held(tx, floor, hold)
	trim := false
	tsp.AscendLog(0, func(seq uint64, raw []byte) bool {
		rec, err := changelog.Decode(raw)
		trim = seq <= floor && (err != nil || rec.Time <= cutoff)
		return false
	})
	return trim
}

// firstDue reports whether the first record after seq may be applied now.
func firstDue(tsp *store.Space, after uint64, due func(uint64, int64) bool) bool {
	if due == nil {
		return true
	}
	ok := true
	tsp.AscendLog(after, func(seq uint64, raw []byte) bool {
		if rec, err := changelog.Decode(raw); err == nil {
			ok = due(seq, rec.Time)
		}
		return false
	})
	return ok
}

// held lowers floor to what hold keeps, if anything.
func held(tx *store.Tx, floor uint64, hold func(*store.Tx) (uint64, bool)) uint64 {
	if hold == nil {
		return floor
	}
	if h, ok := hold(tx); ok {
		return min(floor, h)
	}
	return floor
}
