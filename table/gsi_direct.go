package table

import (
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/store"
)

// A write to a table with global indexes changes them itself, in its own
// transaction, when nothing waits for the table's applier (gsi.Direct):
// the index entry is then one more insert beside the item's, where the
// applier would read the write's change-log record back, apply it in a
// transaction of its own, advance the watermark and trim the record, all
// per write. The record is appended only when another reader needs it (a
// stream, lagging reads, an index being built). A write whose table's
// indexes lag on purpose (the consistency policy), a cluster's front-end
// (the table's owner applies the log) and a table with a vector index take
// the applier's path, the plain twin (TestDirectMatchesApplier).

// directIndexes reports whether beginWrite lets mutations of m change m's
// global indexes themselves: m has some, they do not lag on purpose, the
// store is not shared by a cluster, m has no vector index (whose
// follower reads the same log), and the fast paths are on.
func (s *Service) directIndexes(m *tableMeta) bool {
	if len(m.gsis) == 0 || len(m.vectors) > 0 || s.db.Shared() || s.plain {
		return false
	}
	_, lag := s.lags(m)
	return lag.IsZero()
}

// logWrite keeps mu's global indexes and change log after its write in
// tx, whose table space is sp (sw's, which reads the log mark): it applies w's index changes directly when
// it may (mutation.direct and gsi.Direct), and appends the change-log
// record when the table logs its writes and a reader still needs it. raw
// and newBytes are the item before and after. It reports whether it
// appended a record.
func (mu *mutation) logWrite(tx *store.Tx, sp *store.Space, sw *spaceWrites, now int64, raw, newBytes []byte, w *written) (bool, error) {
	applied, err := mu.applyDirect(tx, sp, newBytes, w)
	if err != nil {
		return false, err
	}
	w.direct = applied
	if applied && !mu.keepLog && !sw.logOn(sp, mu.meta.ID) {
		return false, nil // no reader left for the record
	}
	if !applied && !mu.loggedIn(sp, sw) {
		return false, nil
	}
	rec := changelog.Append(make([]byte, 0, 48+len(mu.key)+len(raw)+len(newBytes)),
		changelog.Record{Time: now, Key: mu.key, Old: raw, New: newBytes, Expired: mu.expired, Origin: mu.origin, OriginTime: mu.originTime})
	seq, err := sp.AppendLogOwned(rec)
	if err != nil || !applied {
		return err == nil, err
	}
	return true, gsi.Advance(sp, mu.meta.gsis, seq)
}

// applyDirect applies w's changes to mu's global indexes (gsiUnits computed
// them) when mu may and nothing waits for the applier; it reports whether
// it did. An index projecting every attribute stores newBytes, the item's
// stored encoding, rather than encoding the item again.
func (mu *mutation) applyDirect(tx *store.Tx, sp *store.Space, newBytes []byte, w *written) (bool, error) {
	if !mu.direct || len(w.gsiChanges) != len(mu.meta.gsis) {
		return false, nil
	}
	m := mu.meta
	sps, ok := gsi.Direct(tx, sp, m.gsis, m.gsiSpace)
	if !ok {
		return false, nil
	}
	for i, d := range m.gsis {
		c := w.gsiChanges[i]
		var err error
		if c.NewKey != nil && d.ProjectionType == "ALL" && newBytes != nil {
			err = gsi.ApplyEncoded(sps[i], c, newBytes)
		} else {
			err = c.Apply(sps[i])
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// gsiSpace returns the space of m's global index name: derive's (which
// fills gsiSpaces beside gsis), or indexSpaceID's for a name not among them.
func (m *tableMeta) gsiSpace(name string) string {
	for i, d := range m.gsis {
		if d.Name == name {
			return m.gsiSpaces[i]
		}
	}
	return indexSpaceID(m, name)
}
