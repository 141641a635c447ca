package table

import (
	"context"
	"errors"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// RunOnMove makes every move of the clock m (clock.Clock, which registers
// work to run whenever it is moved) run the work it made due before the
// move returns: the whole maintenance list.
func (s *Service) RunOnMove(m interface {
	OnMove(fn func(ctx context.Context, now time.Time) error)
}) {
	m.OnMove(func(ctx context.Context, _ time.Time) error { return s.runDue(ctx) })
}

// maintenanceTick is how often the background ticker runs the maintenance
// list's ticked work.
const maintenanceTick = time.Second

// chore is one piece of time-driven work.
type chore struct {
	name   string // what failed, in the ticker's error log
	ticked bool   // run by the background ticker too, not only by clock moves
	run    func(ctx context.Context) error
}

// maintenance is the one list of time-driven work, in the order it runs:
// Time to Live deletions, dropping deleted tables' expired streams, stream
// shard rollover, settling global indexes without a lag so that they
// show the deletions just made, resuming Kinesis deliveries, and converting
// multi-account replicas replication was not authorized for during 20
// hours to regional tables (replica_authorize.go). Every clock move runs all of it (runDue);
// the background ticker runs the ticked part every maintenanceTick.
// (Compaction is the store's own loop, started in New; PITR windows and
// stream retention are computed from the clock when read.) A new kind of
// time-driven work is one more entry here.
func (s *Service) maintenance() []chore {
	return []chore{
		{"ttl: sweeping expired items", true, s.sweepTTL},
		{"streams: dropping deleted tables' expired streams", true, func(ctx context.Context) error {
			return s.dropDeletedStreams(ctx, s.now().UnixNano())
		}},
		{"streams: rolling shards over", false, s.rollAllStreams},
		{"gsi: settling indexes without lag", false, s.settleUnlagged},
		{"kinesis: resuming streaming destinations' deliveries", true, s.resumeDeliveries},
		{"replication: converting replicas not authorized for 20 hours", true, s.convertUnauthorized},
	}
}

// runDue runs the time-driven work that is due now: the whole maintenance
// list, stopping at the first error.
func (s *Service) runDue(ctx context.Context) error {
	for _, c := range s.maintenance() {
		if err := c.run(ctx); err != nil {
			return err
		}
	}
	return nil
}

// startMaintenance starts the background ticker that runs the ticked part
// of the maintenance list every maintenanceTick, logging failures. It exits
// when Close is called.
func (s *Service) startMaintenance() {
	chores := s.maintenance()
	s.background.Go(func() {
		t := time.NewTicker(maintenanceTick)
		defer t.Stop()
		for {
			select {
			case <-s.bg.Done():
				return
			case <-t.C:
			}
			for _, c := range chores {
				if !c.ticked {
					continue
				}
				if err := c.run(s.bg); err != nil && s.bg.Err() == nil && !errors.Is(err, store.ErrClosed) && s.opts.Logger != nil {
					s.opts.Logger.Error(c.name, "err", err)
				}
				if s.bg.Err() != nil {
					return // closing: a slow store (etcd down) must not hold Close twice
				}
			}
		}
	})
}

// rollAllStreams rolls every table's stream shards over as the policy says.
func (s *Service) rollAllStreams(ctx context.Context) error {
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
	}
	return nil
}

// settleUnlagged makes the global indexes of every table without a lag
// apply every write so far (the TTL deletions just made, on a clock move).
// A lagging index catches up on its own.
func (s *Service) settleUnlagged(ctx context.Context) error {
	metas, err := s.allTables()
	if err != nil {
		return err
	}
	for _, m := range metas {
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
