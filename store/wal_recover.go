package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// recovered is the state rebuilt at start-up.
type recovered struct {
	mem     *memEngine
	applied uint64   // the last segment bbolt holds in full
	segs    []uint64 // segments replayed on top, still to be checkpointed
}

// recoverDurable loads bbolt into a new memory engine and replays, in order,
// the log segments bbolt does not hold yet. Segments it does hold are left
// over from a checkpoint interrupted before it could delete them.
func recoverDurable(fs vfs, path string, b boltEngine) (*recovered, error) {
	r := &recovered{mem: newMemEngine()}
	bt, err := b.begin(false)
	if err != nil {
		return nil, err
	}
	defer bt.rollback()
	r.applied = appliedSegment(bt.(boltTxn))

	mt, _ := r.mem.begin(true)
	defer mt.rollback() // after commit, does nothing
	if err := copyState(mt, bt); err != nil {
		return nil, fmt.Errorf("store: load %s: %w", path, err)
	}
	segs, err := listSegments(fs, path)
	if err != nil {
		return nil, err
	}
	for _, n := range segs {
		name := segmentName(path, n)
		if n <= r.applied {
			if err := fs.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("store: remove %s: %w", name, err)
			}
			continue
		}
		if err := replaySegment(fs, name, mt); err != nil {
			return nil, err
		}
		r.segs = append(r.segs, n)
	}
	if err := mt.commit(); err != nil {
		return nil, err
	}
	// The load read every page of bbolt through its map; nothing reads them
	// again until a checkpoint, so they leave the process's RSS now.
	dropMapped(b.db)
	return r, nil
}

// copyState copies everything in src into dst, which is empty. dst keeps
// what src hands out, so src must stay open until dst commits (the memory
// engine, the one dst, copies it into its arena anyway).
func copyState(dst, src txn) error {
	var err error
	copyKeys := func(to, from bucket) {
		from.ascend(nil, nil, func(k, v []byte) bool {
			err = to.put(k, v)
			return err == nil
		})
	}
	copyKeys(dst.catalog(), src.catalog())
	src.spaceIDs(func(id string) bool {
		if err = dst.createSpace(id); err != nil {
			return false
		}
		from, to := src.space(id), dst.space(id)
		for which := range subCount {
			if copyKeys(to.sub(which), from.sub(which)); err != nil {
				return false
			}
		}
		if seq := from.sub(subLog).sequence(); seq != 0 {
			err = to.sub(subLog).setSequence(seq)
		}
		return err == nil
	})
	return err
}

// replaySegment applies the intact records of segment file name to t.
func replaySegment(fs vfs, name string, t txn) error {
	f, err := fs.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", name, err)
	}
	defer f.Close()
	if _, err := readRecords(f, func(body []byte) error { return applyRecord(t, body) }); err != nil {
		return fmt.Errorf("store: replay %s: %w", name, err)
	}
	return nil
}

// appliedSegment reads the number of the last segment bbolt holds in full.
func appliedSegment(t boltTxn) uint64 {
	if b := t.t.Bucket([]byte(walBucket)); b != nil {
		if v := b.Get([]byte(appliedKey)); len(v) == 8 {
			return binary.BigEndian.Uint64(v)
		}
	}
	return 0
}
