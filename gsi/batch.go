package gsi

import (
	"bytes"
	"encoding/binary"
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
	// items and size are the batch's changes to the index's counters,
	// added to the store once at the end of the batch.
	items, size int64
	// names are the index's key attributes and scratch a map reused for
	// them, for storedDiff (nil names: not set up yet).
	names   []string
	scratch attr.Item
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
		if err := addCounts(targets); err != nil {
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
	cs := make([]index.Change, len(targets))
	ascErr := tsp.AscendLog(from, func(seq uint64, raw []byte) bool {
		if due != nil {
			if rec, derr := changelog.Decode(raw); derr == nil && !due(seq, rec.Time) {
				return false
			}
		}
		im, derr := decodeRecord(seq, raw)
		if derr == nil {
			derr = im.diffs(targets, cs)
		}
		if derr != nil {
			stuck = derr
			return false
		}
		if err = applyRecord(targets, cs, seq); err != nil {
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

// addCounts adds each target's counter changes to its index.
func addCounts(targets []target) error {
	for i := range targets {
		t := &targets[i]
		if t.items == 0 && t.size == 0 {
			continue
		}
		if err := t.sp.AddStats(t.items, t.size); err != nil {
			return err
		}
	}
	return nil
}

// images is one log record's key and item images, as stored (attr's binary
// encoding), decoded into items only when an index needs them (once,
// shared by every index).
type images struct {
	seq             uint64
	key, oldB, newB []byte
	old, new        attr.Item
	decoded         bool
}

// decodeRecord decodes one log record's envelope; its images stay encoded.
func decodeRecord(seq uint64, raw []byte) (images, error) {
	rec, err := changelog.Decode(raw)
	if err != nil {
		return images{}, fmt.Errorf("gsi: log record %d: %w", seq, err)
	}
	return images{seq: seq, key: rec.Key, oldB: rec.Old, newB: rec.New}, nil
}

// items decodes the record's images.
func (im *images) items() (old, new attr.Item, err error) {
	if im.decoded {
		return im.old, im.new, nil
	}
	if im.oldB != nil {
		if im.old, err = attr.DecodeBinary(im.oldB); err != nil {
			return nil, nil, fmt.Errorf("gsi: log record %d old image: %w", im.seq, err)
		}
	}
	if im.newB != nil {
		if im.new, err = attr.DecodeBinary(im.newB); err != nil {
			return nil, nil, fmt.Errorf("gsi: log record %d new image: %w", im.seq, err)
		}
	}
	im.decoded = true
	return im.old, im.new, nil
}

// diffs sets cs[i] to what the record does to targets[i] (Unchanged for a
// target that has seen it). An error is an image that does not decode,
// found before any index is changed.
func (im *images) diffs(targets []target, cs []index.Change) error {
	for i := range targets {
		t := &targets[i]
		if im.seq <= t.wm {
			cs[i] = index.Change{Unchanged: true}
			continue
		}
		c, ok := storedDiff(t, im)
		if !ok {
			old, new, err := im.items()
			if err != nil {
				return err
			}
			c = t.def.Diff(im.key, old, new)
		}
		cs[i] = c
	}
	return nil
}

// applyRecord applies one record's changes cs to targets, adding the
// counter changes to each target's tally.
func applyRecord(targets []target, cs []index.Change, seq uint64) error {
	for i := range targets {
		t := &targets[i]
		items, size, err := cs[i].ApplyUncounted(t.sp)
		if err != nil {
			return fmt.Errorf("gsi: index %s, log record %d: %w", t.def.Name, seq, err)
		}
		t.items, t.size = t.items+items, t.size+size
	}
	return nil
}

// storedDiff is index.Def.Diff for a record's images as stored, for an
// index that projects all attributes: only the key attributes are decoded,
// and the new image's bytes become the entry's item as they are, where
// Diff decodes both images whole and Apply encodes the new one again. ok
// is false for another projection or an image that does not read; the
// caller then decodes the images and uses Diff, the plain twin.
//
// Applied, the change leaves the index as Diff's would (the same keys,
// sizes and counters; TestStoredDiffMatchesDiff): an entry's bytes may list
// attributes in another order, which decodes to the same item. It is
// Unchanged only when the images are the same bytes, so an update that
// leaves the item equal but encoded in another order rewrites an equal
// entry where Diff writes nothing.
func storedDiff(t *target, im *images) (index.Change, bool) {
	var c index.Change
	if t.def.ProjectionType != "ALL" {
		return c, false
	}
	if t.names == nil {
		t.names, t.scratch = keyNames(t.def), attr.Item{}
	}
	if im.oldB != nil {
		size, err := attr.BinarySizeNames(im.oldB, t.names, t.scratch)
		if err != nil {
			return c, false
		}
		if k, ok := t.def.Key(t.scratch, im.key); ok {
			c.OldKey, c.OldSize = k, size
		}
	}
	if im.newB != nil {
		size, err := attr.BinarySizeNames(im.newB, t.names, t.scratch)
		if err != nil {
			return c, false
		}
		if k, ok := t.def.Key(t.scratch, im.key); ok {
			c.NewKey, c.NewSize = k, size
			entry := make([]byte, 0, binary.MaxVarintLen64+len(im.newB))
			c.Entry = append(binary.AppendUvarint(entry, uint64(size)), im.newB...)
		}
	}
	c.Unchanged = c.OldKey != nil && c.NewKey != nil && bytes.Equal(c.OldKey, c.NewKey) && bytes.Equal(im.oldB, im.newB)
	return c, true
}

// keyNames returns the names of def's own key attributes.
func keyNames(def *index.Def) []string {
	names := make([]string, 0, len(def.Partition)+len(def.Sort))
	for _, ka := range def.Partition {
		names = append(names, ka.Name)
	}
	for _, ka := range def.Sort {
		names = append(names, ka.Name)
	}
	return names
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
