package replication

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// Batch bounds. One batch is one store transaction; keeping it bounded keeps
// the writers that share the group commit from waiting long behind it.
const (
	maxApply = 512  // source log records handled per batch
	maxStamp = 4096 // log records stamped per table per batch
	maxCopy  = 512  // items or tombstones copied per batch
)

// Change is one write to apply to a target replica. Apply must write it as
// the service writes an item (local index entries, counters) and append a
// change-log record whose Origin and OriginTime are Origin and Time. Key is
// valid only during Apply; Item belongs to Apply (it may be stored as is).
// A Copy change is never throttled: ErrThrottled is an error for it.
type Change struct {
	Key     []byte // the item's storage key
	Item    []byte // the item after the write (attr's binary encoding), nil to delete it
	Origin  string // the Region the write was made in
	Time    int64  // its commit time there, Unix nanoseconds
	Expired bool   // a Time to Live deletion
	Copy    bool   // written by a new replica's initial copy
}

// Conflict is a replicated write that last-writer-wins discarded because
// the target held a later write from another Region.
type Conflict struct {
	Region string  // the target's Region, where the write was discarded
	Key    []byte  // the item's storage key
	Item   []byte  // the discarded write's image: the new item, or the old one for a deletion
	Winner Version // the version the target kept
	Loser  Version // the discarded write's version
}

// batchResult is what one batch did.
type batchResult struct {
	applied   int     // records and copied entries applied to the target
	units     float64 // the replicated write units Apply reported
	throttled bool    // a record was held back by ErrThrottled
	conflicts []Conflict
	more      bool  // the batch stopped at a bound: run another at once
	stuck     error // a record that does not decode stopped the link before it
}

// spaces are the four spaces a batch of one link works on.
type spaces struct {
	src, dst   *store.Space
	srcV, dstV *store.Space
}

// open returns the link's spaces and the two replicas' states, or ok false
// when there is nothing to do: a table or its versions space is gone (being
// deleted or no longer a replica) or the link has been removed.
func (o *Options) open(tx *store.Tx) (sp spaces, src, dst state, ok bool, err error) {
	sp = spaces{
		src: tx.Space(o.Source.ID), dst: tx.Space(o.Target.ID),
		srcV: tx.Space(VersionsSpace(o.Source.ID)), dstV: tx.Space(VersionsSpace(o.Target.ID)),
	}
	if sp.src == nil || sp.dst == nil || sp.srcV == nil || sp.dstV == nil {
		return sp, src, dst, false, nil
	}
	var sok, dok bool
	if src, sok, err = readState(sp.src); err != nil {
		return sp, src, dst, false, err
	}
	if dst, dok, err = readState(sp.dst); err != nil {
		return sp, src, dst, false, err
	}
	return sp, src, dst, sok && dok && src.find(o.Target.ID) != nil, nil
}

// runBatch is one transaction's work for the link: stamp both replicas' own
// writes, then copy (a new link) or apply source records, advancing the
// watermark and stamps in the same transaction. It depends only on its
// arguments and what it reads through tx, so the store may re-run it.
func (o *Options) runBatch(tx *store.Tx) (batchResult, error) {
	var res batchResult
	sp, src, dst, ok, err := o.open(tx)
	if !ok || err != nil {
		return res, err
	}
	sdone, err := stamp(sp.src, sp.srcV, &src, o.Source.Region)
	if err != nil {
		return res, err
	}
	ddone, err := stamp(sp.dst, sp.dstV, &dst, o.Target.Region)
	if err != nil {
		return res, err
	}
	l := src.find(o.Target.ID)
	switch {
	case !sdone || !ddone:
		res.more = true // every own write must be stamped before anything is applied
	case l.copying != copyDone:
		err = o.copyChunk(tx, sp, l, &res)
	default:
		err = o.tail(tx, sp, l, &res)
	}
	if err != nil {
		return res, err
	}
	if ddone {
		// What this batch appended to the target's log is replicated, never
		// the target's own: nothing there needs a stamp.
		dst.stamp = sp.dst.LastLogSeq()
	}
	if err := writeState(sp.src, src); err != nil {
		return res, err
	}
	return res, writeState(sp.dst, dst)
}

// stamp records the versions of the writes made in tsp's own replica (in
// Region region) after st.stamp, at most maxStamp records, advancing
// st.stamp; it reports whether it reached the end of the log.
func stamp(tsp, vsp *store.Space, st *state, region string) (bool, error) {
	last := tsp.LastLogSeq()
	if st.stamp >= last {
		return true, nil
	}
	var n int
	var err error
	ascErr := tsp.AscendLog(st.stamp, func(seq uint64, raw []byte) bool {
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("replication: log record %d: %w", seq, err)
			return false
		}
		if rec.Origin == "" {
			err = stampRecord(vsp, seq, rec, region)
			if err != nil {
				return false
			}
		}
		st.stamp, n = seq, n+1
		return n < maxStamp
	})
	if err == nil {
		err = ascErr
	}
	if err != nil {
		return false, err
	}
	if n < maxStamp {
		st.stamp = last // the records up to last that remain were trimmed
	}
	return st.stamp >= last, nil
}

// stampRecord records the version of own write rec (log sequence seq): its
// commit time, or just after the version it overwrote when that is not
// earlier (a clock that stood still or stepped back): a write always wins
// over what its own replica held, so every replica ends with it as this one
// does.
func stampRecord(vsp *store.Space, seq uint64, rec changelog.Record, region string) error {
	v := Version{Time: rec.Time, Region: region, Deleted: rec.New == nil}
	cur, _, has, err := readVersion(vsp, rec.Key)
	if err != nil {
		return err
	}
	if has && !v.Wins(cur) {
		v.Time = cur.Time + 1
	}
	return putVersion(vsp, rec.Key, v, seq)
}

// sourceVersion returns the version source record rec (sequence seq) is
// replicated with: the one stamped for it, or its commit time when a later
// write has replaced that stamp (that later write wins over both anyway).
func sourceVersion(vsp *store.Space, seq uint64, rec changelog.Record, region string) (Version, error) {
	v, vseq, has, err := readVersion(vsp, rec.Key)
	if err != nil || (has && vseq == seq && v.Region == region) {
		return v, err
	}
	return Version{Time: rec.Time, Region: region, Deleted: rec.New == nil}, nil
}

// tail applies the source's own writes after the link's watermark, at most
// maxApply, stopping at the first that is not due or that the target has no
// capacity for (ErrThrottled); records that came from another Region are
// passed over (their origin sends them).
func (o *Options) tail(tx *store.Tx, sp spaces, l *link, res *batchResult) error {
	var err error
	var n int
	ascErr := sp.src.AscendLog(l.wm, func(seq uint64, raw []byte) bool {
		rec, derr := changelog.Decode(raw)
		if derr != nil {
			res.stuck = fmt.Errorf("replication: log record %d: %w", seq, derr)
			return false
		}
		if rec.Origin == "" {
			if o.Due != nil && !o.Due(seq, rec.Time) {
				return false
			}
			if err = o.applyRecord(tx, sp, seq, rec, res); err != nil {
				if errors.Is(err, ErrThrottled) {
					err, res.throttled = nil, true
				}
				return false
			}
		}
		l.wm, n = seq, n+1
		return n < maxApply
	})
	if err == nil {
		err = ascErr
	}
	res.more = n == maxApply && l.wm < sp.src.LastLogSeq()
	return err
}

// applyRecord applies one source write to the target unless the target holds
// a write that wins over it.
func (o *Options) applyRecord(tx *store.Tx, sp spaces, seq uint64, rec changelog.Record, res *batchResult) error {
	v, err := sourceVersion(sp.srcV, seq, rec, o.Source.Region)
	if err != nil {
		return err
	}
	cur, _, has, err := readVersion(sp.dstV, rec.Key)
	if err != nil {
		return err
	}
	// Records of one Region arrive in its commit order, so one whose version
	// equals the item's (two writes there in one nanosecond) is the later.
	if has && !v.Wins(cur) && (v.Time != cur.Time || v.Region != cur.Region) {
		if cur.Region != v.Region { // the same Region's older write is a replay, not a conflict
			img := rec.New
			if img == nil {
				img = rec.Old
			}
			res.conflicts = append(res.conflicts, Conflict{Region: o.Target.Region,
				Key: bytes.Clone(rec.Key), Item: bytes.Clone(img), Winner: cur, Loser: v})
		}
		return nil
	}
	c := Change{Key: rec.Key, Item: bytes.Clone(rec.New), Origin: v.Region, Time: v.Time, Expired: rec.Expired}
	units, err := o.Apply(tx, c)
	if err != nil {
		return err
	}
	res.applied++
	res.units += units
	return putVersion(sp.dstV, rec.Key, v, 0)
}
