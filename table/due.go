package table

import (
	"context"
	"time"
)

// Mover registers work to run whenever the clock is moved (clock.Clock).
type Mover interface {
	OnMove(fn func(ctx context.Context, now time.Time) error)
}

// RunOnMove makes every move of the clock run the work it made due before
// the move returns: expired items are deleted (with their stream records),
// every table's stream shards are rolled over as the policy says, and global
// indexes without a lag apply those deletions.
func (s *Service) RunOnMove(m Mover) {
	m.OnMove(func(ctx context.Context, _ time.Time) error { return s.runDue(ctx) })
}

// runDue runs the time-driven work that is due now.
func (s *Service) runDue(ctx context.Context) error {
	if err := s.sweepTTL(ctx); err != nil {
		return err
	}
	if err := s.dropDeletedStreams(ctx, s.now().UnixNano()); err != nil {
		return err
	}
	metas, err := s.allTables()
	if err != nil {
		return err
	}
	for _, m := range metas {
		if m.StreamLabel != "" {
			if err := s.rollStreams(ctx, m); err != nil {
				return err
			}
		}
		// Without a lag, global indexes show the TTL deletions just made
		// before the move returns. (A lagging index catches up on its own.)
		if _, l := s.lags(m); len(m.gsis) > 0 && l.IsZero() {
			if err := s.settleIndexes(ctx, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// allTables returns every table of every region, as cached.
func (s *Service) allTables() ([]*tableMeta, error) {
	return s.regionTables("", "")
}
