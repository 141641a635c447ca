package table

import (
	"context"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Point-in-time recovery keeps the change log of a table for its recovery
// period: a restore to second S starts from the table as it is now and undoes,
// item by item, every change committed from S+1s on (the old image of each
// item's first such change is its state at the end of S). Nothing else is
// kept: no periodic snapshots. Enabling it marks the table's space so that
// every write from that transaction on appends to the change log (logMeta),
// and the log's trimming (the table's gsi applier) keeps records for the
// recovery period. The setting, the log and the mark live in the store, so a
// durable server restores the same past after a restart.

// pitrMeta is a table's point-in-time recovery setting.
type pitrMeta struct {
	Since int64 // Unix nanoseconds of the enabling transaction
	Days  int32 // recovery period
	// Floor bounds the window after a change of the recovery period: the
	// log before it may have been trimmed under the old one (Unix
	// nanoseconds; 0 when the period never changed).
	Floor int64
}

// defaultRecoveryDays is DynamoDB's recovery period when none is given.
const defaultRecoveryDays = 35

// period is the recovery period as a duration.
func (p *pitrMeta) period() time.Duration { return time.Duration(p.Days) * 24 * time.Hour }

// window returns the restorable seconds at now: EarliestRestorableDateTime,
// the enabling second or the start of the recovery period, whichever is
// later, and LatestRestorableDateTime, now itself (DynamoDB's trails by about
// five minutes; a local server has no reason to make tests wait).
func (p *pitrMeta) window(now time.Time) (earliest, latest time.Time) {
	e := time.Unix(0, max(p.Since, p.Floor))
	if start := now.Add(-p.period()); start.After(e) {
		e = start
	}
	return e.Truncate(time.Second), now
}

// logRetention is how long m's change log must keep records: for its
// lagging readers (retain) and for point-in-time recovery.
func (s *Service) logRetention(m *tableMeta) time.Duration {
	r := s.retain(m)
	if m.PITR != nil {
		r = max(r, m.PITR.period())
	}
	return r
}

// creating reports whether m is still CREATING (TransientDelay, or an
// import creates it): the backup operations answer TableNotFoundException
// for it, as DynamoDB does.
func (s *Service) creating(m *tableMeta) bool {
	d := s.opts.TransientDelay
	return m.Importing != "" || d > 0 && s.now().UnixNano() < m.Created+d.Nanoseconds()
}

// enablingBackups refuses CreateBackup and UpdateContinuousBackups on a
// table that turned ACTIVE less than TransientDelay ago: DynamoDB answers
// ContinuousBackupsUnavailableException for a few seconds after a table
// turns ACTIVE, while it enables the table's backups. Off (nil) when
// transient statuses are off.
func (s *Service) enablingBackups(m *tableMeta) error {
	if !s.backupsEnabling(m) {
		return nil
	}
	return ddb.Errorf(ddb.ContinuousBackupsUnavailableException, "Backups are being enabled for the table: %s. Please retry later", m.Name)
}

// backupsEnabling reports whether m is in that window.
func (s *Service) backupsEnabling(m *tableMeta) bool {
	d := s.opts.TransientDelay.Nanoseconds()
	now := s.now().UnixNano()
	return d > 0 && now >= m.Created+d && now < m.Created+2*d
}

// backupTable returns the table a backup operation names, or
// TableNotFoundException when it is missing or still being created. The
// caller (ctx) must be allowed to use it (see authorize); none of these
// operations reaches another account's table.
func (s *Service) backupTable(ctx context.Context, region, name string) (*tableMeta, error) {
	notFound := ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", tableName(name))
	m, err := s.lookup(ctx, region, name, "", notFound)
	if err != nil {
		return nil, err
	}
	if s.creating(m) {
		return nil, notFound
	}
	return m, nil
}

// continuousBackups describes m's backups and point-in-time recovery at now.
func continuousBackups(m *tableMeta, now time.Time) *ddb.DescribeContinuousBackupsOutput {
	out := &ddb.DescribeContinuousBackupsOutput{}
	d := &out.ContinuousBackupsDescription
	d.ContinuousBackupsStatus = "ENABLED"
	d.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus = "DISABLED"
	if p := m.PITR; p != nil {
		e, l := p.window(now)
		es, ls, days := epochSeconds(e.UnixNano()), epochSeconds(l.UnixNano()), p.Days
		d.PointInTimeRecoveryDescription = ddb.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "ENABLED",
			EarliestRestorableDateTime: &es, LatestRestorableDateTime: &ls, RecoveryPeriodInDays: &days}
	}
	return out
}

// DescribeContinuousBackups reports backups (always enabled) and
// point-in-time recovery with its restorable window.
func (s *Service) DescribeContinuousBackups(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DescribeContinuousBackupsOutput, error) {
	m, err := s.backupTable(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	out := continuousBackups(m, s.now())
	if s.backupsEnabling(m) {
		out.ContinuousBackupsDescription.ContinuousBackupsStatus = "DISABLED"
	}
	return out, nil
}

// UpdateContinuousBackups turns point-in-time recovery on or off, or changes
// its recovery period. Turning it off forgets the window: turning it on again
// starts a new one.
func (s *Service) UpdateContinuousBackups(ctx context.Context, region string, in *ddb.UpdateContinuousBackupsInput) (*ddb.DescribeContinuousBackupsOutput, error) {
	spec := in.PointInTimeRecoverySpecification
	if !*spec.PointInTimeRecoveryEnabled && spec.RecoveryPeriodInDays != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	}
	m, err := s.backupTable(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	if err := s.enablingBackups(m); err != nil {
		return nil, err
	}
	notFound := ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", m.Name)
	next, err := s.changeTable(ctx, m, notFound, func(tx *store.Tx, cur, next *tableMeta) error {
		return s.applyPITR(tx, cur, next, spec, notFound)
	})
	if err != nil {
		return nil, err
	}
	return continuousBackups(next, s.now()), nil
}

// applyPITR sets next's point-in-time recovery from spec and cur's, inside
// the store transaction tx of the change.
func (s *Service) applyPITR(tx *store.Tx, cur, next *tableMeta, spec *ddb.PointInTimeRecoverySpecification, notFound *ddb.Error) error {
	switch {
	case !*spec.PointInTimeRecoveryEnabled:
		next.PITR = nil
	case cur.PITR != nil:
		p := *cur.PITR
		if spec.RecoveryPeriodInDays != nil && *spec.RecoveryPeriodInDays != p.Days {
			// A longer period starts from what the old one kept, as
			// DynamoDB's window grows only as time passes.
			old := p.period()
			p.Days = *spec.RecoveryPeriodInDays
			p.Floor = max(p.Floor, s.now().Add(-old).UnixNano())
		}
		next.PITR = &p
	default:
		p := &pitrMeta{Days: defaultRecoveryDays}
		if spec.RecoveryPeriodInDays != nil {
			p.Days = *spec.RecoveryPeriodInDays
		}
		sp := tx.Space(cur.ID)
		if sp == nil {
			return notFound
		}
		// Writers that still hold the definition without PITR see this
		// mark in their own transactions and log; the writes before it
		// committed before Since.
		p.Since = s.now().UnixNano()
		next.PITR = p
		return sp.PutMeta(logMeta, []byte{1})
	}
	return nil
}
