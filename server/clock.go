package server

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/store"
)

// clockSpace keeps the clock's offset (clockOffsetMeta, big-endian
// nanoseconds) so that a moved clock stays moved across restarts: TTL and
// stream retention must never see time go back.
const (
	clockSpace      = "ddblocal-clock"
	clockOffsetMeta = "offset"
)

// restoreClock moves c forward to the offset stored in db, if it is behind,
// and makes every later move store its offset (before the work the move
// made due runs, as it registers first). Call it before other OnMove hooks
// are registered, so that the restoring move runs none of them.
func restoreClock(ctx context.Context, db *store.DB, c *clock.Clock) error {
	var saved time.Duration
	err := db.View(func(tx *store.Tx) error {
		saved = storedOffset(tx.Space(clockSpace))
		return nil
	})
	if err != nil {
		return err
	}
	if d := saved - c.Offset(); d > 0 {
		if _, err := c.Advance(ctx, d); err != nil {
			return err
		}
	}
	c.OnMove(func(ctx context.Context, _ time.Time) error {
		// A clock may outlive the server (a test's clock given to
		// several in turn): a closed store has nothing left to keep.
		if err := saveOffset(ctx, db, c.Offset()); !errors.Is(err, store.ErrClosed) {
			return err
		}
		return nil
	})
	return nil
}

// saveOffset stores off unless a larger offset is stored already (two
// moves' hooks may run in either order; the clock's offset only grows).
func saveOffset(ctx context.Context, db *store.DB, off time.Duration) error {
	return db.Update(ctx, func(tx *store.Tx) error {
		sp := tx.Space(clockSpace)
		if sp == nil {
			if err := tx.CreateSpace(clockSpace); err != nil {
				return err
			}
			sp = tx.Space(clockSpace)
		}
		if storedOffset(sp) >= off {
			return nil
		}
		return sp.PutMeta(clockOffsetMeta, binary.BigEndian.AppendUint64(nil, uint64(off)))
	})
}

// storedOffset is the offset kept in sp (nil: none), or 0.
func storedOffset(sp *store.Space) time.Duration {
	if sp == nil {
		return 0
	}
	v := sp.GetMeta(clockOffsetMeta)
	if len(v) != 8 {
		return 0
	}
	return time.Duration(binary.BigEndian.Uint64(v))
}
