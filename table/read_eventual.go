package table

import (
	"context"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/vector"
)

// lags returns the lag of m's eventually consistent reads and of its global
// indexes, from the server's policy and m's tags.
func (s *Service) lags(m *tableMeta) (reads, gsi consistency.Lag) {
	if len(m.Tags) == 0 {
		return s.policy.Default, s.policy.Default
	}
	tags := make(map[string]string, len(m.Tags))
	for _, t := range m.Tags {
		tags[t.Key] = t.Value
	}
	return s.policy.TableLags(tags)
}

// retain is how long m's change log and history must keep records: the
// longest lag any of its readers may have.
func (s *Service) retain(m *tableMeta) time.Duration {
	r, g := s.lags(m)
	return max(r.Max, g.Max)
}

// keepsLog reports whether writes to m must be logged for its readers'
// sake, whatever its indexes: its reads may lag, and a lagging read rebuilds
// the past from the change log.
func (s *Service) keepsLog(m *tableMeta) bool { return s.retain(m) > 0 }

// readTime is the instant an eventually consistent read of m sees, or 0 when
// it sees the latest state (strong read, or no lag). Writes made before the
// last Settle are always visible.
func (s *Service) readTime(m *tableMeta, consistent bool) int64 {
	if consistent {
		return 0
	}
	l, _ := s.lags(m)
	if l.IsZero() {
		return 0
	}
	t := s.now().Add(-s.policy.Draw(l)).UnixNano()
	return max(t, s.settled.Load())
}

// syncHistory brings m's history up to the snapshot tx, so a read at readTime
// can undo the changes made after it.
func (s *Service) syncHistory(tx *store.Tx, m *tableMeta) error {
	sp := tx.Space(m.ID)
	if sp == nil {
		return ddb.NotFound("")
	}
	return s.history.Sync(m.ID, sp, s.now().Add(-s.retain(m)).UnixNano())
}

// itemAt returns the item at key as an eventually consistent read at time t
// sees it, given its current state cur.
func (s *Service) itemAt(m *tableMeta, key []byte, cur attr.Item, t int64) attr.Item {
	if t == 0 {
		return cur
	}
	if old, changed := s.history.At(m.ID, key, t); changed {
		return old
	}
	return cur
}

// gsiDue says whether change-log record seq of m, committed at t, may be
// applied to m's global indexes yet.
func (s *Service) gsiDue(m *tableMeta) func(seq uint64, t int64) bool {
	id, region, name := m.ID, m.Region, m.Name
	return func(seq uint64, t int64) bool {
		cur, err := s.catalog.get(s.db, region, name)
		if err != nil || cur == nil || cur.ID != id {
			return true
		}
		_, l := s.lags(cur)
		if l.IsZero() || t <= s.settled.Load() {
			return true
		}
		// Keyed by name, not the random table ID, so runs are reproducible.
		return t+int64(s.policy.RecordDelay(l, region+"/"+name, seq)) <= s.now().UnixNano()
	}
}

// applierDue is gsiDue for the applier of m's global indexes: in cluster
// mode the applier runs in one front-end (the table's owner) and a Settle
// may be another's, which records it in the table's space (settleIndexes;
// the record a vector index's owner reads too), so a record the owner's
// own lag holds back is due once a settle recorded there is later than it.
func (s *Service) applierDue(m *tableMeta) func(seq uint64, t int64) bool {
	due := s.gsiDue(m)
	if !s.db.Shared() {
		return due
	}
	id := m.ID
	return func(seq uint64, t int64) bool {
		if due(seq, t) {
			return true
		}
		var settled int64
		err := s.db.View(func(tx *store.Tx) error {
			if sp := tx.Space(id); sp != nil {
				settled = vector.ReadSettled(sp)
			}
			return nil
		})
		return err == nil && t <= settled
	}
}

// recordSettle records this front-end's last Settle in m's space, in
// cluster mode when m's global indexes lag and another front-end applies
// them (applierDue); alone, or as m's owner, its own Settle is enough.
func (s *Service) recordSettle(ctx context.Context, m *tableMeta) error {
	if _, l := s.lags(m); !s.db.Shared() || l.IsZero() || s.owns(m.ID) {
		return nil
	}
	settled := s.settled.Load()
	return s.db.Update(ctx, func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return nil
		}
		return vector.WriteSettled(sp, settled)
	})
}

// Settle makes every write acknowledged so far visible to every read: it
// ends the lag of earlier writes and waits until every global and vector
// index has applied them (an index's owner learns of it through the
// store when it is another front-end). Tests call it (POST
// /_ddblocal/settle) instead of sleeping.
func (s *Service) Settle(ctx context.Context) error {
	s.settled.Store(s.now().UnixNano())
	// In cluster mode, this front-end's local copy catches up (store.DB.ReadEventual).
	if err := s.db.SettleReads(); err != nil {
		return err
	}
	// Replicated writes first: the replicas' indexes then settle them too.
	if err := s.settleReplication(ctx); err != nil {
		return err
	}
	var metas []*tableMeta
	err := s.db.View(func(tx *store.Tx) error {
		return tx.CatalogAscend(nil, func(_, v []byte) bool {
			if m, err := decodeMeta(v); err == nil {
				metas = append(metas, m)
			}
			return true
		})
	})
	if err != nil {
		return err
	}
	if err := s.settleVectors(ctx, metas); err != nil {
		return err
	}
	for _, m := range metas {
		cur, err := s.catalog.get(s.db, m.Region, m.Name)
		if err != nil || cur == nil || len(cur.gsis) == 0 {
			continue
		}
		if err := s.settleIndexes(ctx, cur); err != nil {
			return err
		}
	}
	return nil
}
