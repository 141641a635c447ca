package replication

import (
	"bytes"

	"github.com/ddblocal/ddblocal/store"
)

// copyChunk copies up to maxCopy of the source's items (phase copyItems),
// then of its tombstones (copyTombstones), after the link's cursor, each
// unless the target holds a version that wins over it, and advances the
// cursor and phase. Items copy with their versions, or as written at their
// source Region at time 0 when they have none. Tombstones keep a deletion
// from being undone by an older write another link delivers later.
func (o *Options) copyChunk(tx *store.Tx, sp spaces, l *link, res *batchResult) error {
	from := sp.src
	if l.copying == copyTombstones {
		from = sp.srcV
	}
	var n int
	var err error
	var start []byte
	if l.cursor != nil {
		start = append(bytes.Clone(l.cursor), 0) // the first key after the cursor
	}
	ascErr := from.Ascend(start, nil, func(k, val []byte) bool {
		if l.copying == copyItems {
			err = o.copyItem(tx, sp, k, val, res)
		} else {
			err = o.copyTombstone(tx, sp, k, val, res)
		}
		l.cursor, n = bytes.Clone(k), n+1
		return err == nil && n < maxCopy
	})
	if err == nil {
		err = ascErr
	}
	if err != nil || n == maxCopy {
		res.more = err == nil
		return err
	}
	l.copying, l.cursor = l.copying+1, nil
	if l.copying > copyTombstones {
		l.copying = copyDone
	}
	res.more = true // the next phase, or the log
	return nil
}

// copyItem copies one source item (key, its stored bytes val).
func (o *Options) copyItem(tx *store.Tx, sp spaces, key, val []byte, res *batchResult) error {
	v, _, has, err := readVersion(sp.srcV, key)
	if err != nil {
		return err
	}
	if !has || v.Deleted { // written before the source was a replica
		v = Version{Region: o.Source.Region}
	}
	return o.copyVersion(tx, sp, key, bytes.Clone(val), v, res)
}

// copyTombstone copies one source version (key, its stored bytes val) when
// it is a deletion's.
func (o *Options) copyTombstone(tx *store.Tx, sp spaces, key, val []byte, res *batchResult) error {
	v, _, err := decodeVersion(val)
	if err != nil || !v.Deleted {
		return err
	}
	return o.copyVersion(tx, sp, key, nil, v, res)
}

// copyVersion applies item (nil: a deletion) of version v to the target
// unless the target's version wins over or equals it.
func (o *Options) copyVersion(tx *store.Tx, sp spaces, key, item []byte, v Version, res *batchResult) error {
	cur, _, has, err := readVersion(sp.dstV, key)
	if err != nil {
		return err
	}
	if has && !v.Wins(cur) {
		return nil
	}
	// A new replica's copy is no replicated write: it is neither throttled
	// nor counted (ErrThrottled would be an error like any other here).
	if _, err := o.Apply(tx, Change{Key: key, Item: item, Origin: v.Region, Time: v.Time, Copy: true}); err != nil {
		return err
	}
	res.applied++
	if v.IsZero() || (v == Version{Region: o.Source.Region}) {
		return nil // no version to keep: any write wins over it
	}
	return putVersion(sp.dstV, key, v, 0)
}
