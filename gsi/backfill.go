package gsi

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// defaultChunk is Backfill's chunk size when it is given none.
const defaultChunk = 1000

// Backfill builds index def (whose empty space spaceID exists) from the
// current items of table tableID, in chunks of at most chunk items per store
// transaction (chunk <= 0 means 1000), so that writers are never held up
// behind one long transaction.
//
// It starts by recording S, the table's LastLogSeq, as a backfill in progress
// (which keeps the log after S from being trimmed), and ends, in the last
// chunk's transaction, by giving the index its watermark S. The chunks see
// states of the table later than S, but every such state was produced by a
// record after S, and Change.Apply is idempotent, so the Applier replaying the
// log from S converges to the exact content. Call Notify after Backfill
// returns.
//
// A Backfill interrupted (ctx ended, crash) may be called again: it resumes
// with the first run's S, so what the first run wrote is cleaned up by the
// same replay. It returns nil when done, ctx.Err(), ErrTableNotFound,
// ErrIndexNotFound (also when DropWatermark ran meanwhile), or a store or
// decoding error.
func Backfill(ctx context.Context, db *store.DB, tableID string, def *index.Def, spaceID string, chunk int) error {
	if chunk <= 0 {
		chunk = defaultChunk
	}
	start, err := beginBackfill(ctx, db, tableID, def.Name, spaceID)
	if err != nil {
		return err
	}
	return backfillFrom(ctx, db, tableID, def, spaceID, chunk, start, nil)
}

// beginBackfill returns S for index name: the one recorded by an earlier,
// interrupted Backfill, or else the table's LastLogSeq, which it records.
func beginBackfill(ctx context.Context, db *store.DB, tableID, name, spaceID string) (uint64, error) {
	var start uint64
	err := db.UpdateAlone(ctx, func(tx *store.Tx) error {
		tsp, _, err := backfillSpaces(tx, tableID, spaceID)
		if err != nil {
			return err
		}
		bs := readBackfills(tsp)
		for _, bf := range bs {
			if bf.name == name {
				start = bf.start
				return nil
			}
		}
		start = tsp.LastLogSeq()
		return writeBackfills(tsp, append(bs, backfill{name: name, start: start}))
	})
	return start, err
}

// backfillFrom runs the chunks from table key from (nil = the first) on.
func backfillFrom(ctx context.Context, db *store.DB, tableID string, def *index.Def, spaceID string, chunk int, start uint64, from []byte) error {
	for {
		var next []byte
		err := db.UpdateAlone(ctx, func(tx *store.Tx) error {
			var err error
			next, err = backfillChunk(tx, tableID, def, spaceID, from, chunk, start)
			return err
		})
		if err != nil || next == nil {
			return err
		}
		from = next
	}
}

// backfillSpaces returns the table's and the index's spaces, or why not.
func backfillSpaces(tx *store.Tx, tableID, spaceID string) (tsp, isp *store.Space, err error) {
	if tsp = tx.Space(tableID); tsp == nil {
		return nil, nil, ErrTableNotFound
	}
	if isp = tx.Space(spaceID); isp == nil {
		return nil, nil, ErrIndexNotFound
	}
	return tsp, isp, nil
}

// backfillChunk indexes up to chunk table items from key from on, and
// returns the key to start the next chunk at. After the last item it
// finishes the backfill (watermark = start, backfill record removed) and
// returns nil.
func backfillChunk(tx *store.Tx, tableID string, def *index.Def, spaceID string, from []byte, chunk int, start uint64) ([]byte, error) {
	tsp, isp, err := backfillSpaces(tx, tableID, spaceID)
	if err != nil {
		return nil, err
	}
	var next []byte
	n := 0
	ascErr := tsp.Ascend(from, nil, func(k, v []byte) bool {
		if n == chunk {
			next = bytes.Clone(k)
			return false
		}
		var item attr.Item
		if item, err = attr.DecodeBinary(v); err != nil {
			err = fmt.Errorf("gsi: backfill %s: item %x: %w", def.Name, k, err)
			return false
		}
		if err = def.Diff(k, nil, item).Apply(isp); err != nil {
			return false
		}
		n++
		return true
	})
	if err == nil {
		err = ascErr
	}
	if err != nil || next != nil {
		return next, err
	}
	bs, ok := removeBackfill(readBackfills(tsp), def.Name)
	if !ok {
		return nil, ErrIndexNotFound // dropped while being built
	}
	if err := writeBackfills(tsp, bs); err != nil {
		return nil, err
	}
	return nil, writeWatermark(tsp, def.Name, start)
}
