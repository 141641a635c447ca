package table

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// RestoreTableToPointInTime creates a new table holding a table's items as
// they were at the end of a past second (DynamoDB restores to the second),
// or now with UseLatestRestorableTime, with the source's current definition.
func (s *Service) RestoreTableToPointInTime(ctx context.Context, region string, in *ddb.RestoreTableToPointInTimeInput) (*ddb.TableOutput, error) {
	latest := in.UseLatestRestorableTime != nil && *in.UseLatestRestorableTime
	switch {
	case in.RestoreDateTime != nil && latest:
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. Please specify either RestoreDateTime time or UseLatestRestorableTime")
	case in.RestoreDateTime == nil && !latest:
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both")
	case (in.SourceTableArn == "") == (in.SourceTableName == ""):
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: Must provide exactly one of: sourceTableArn, sourceTableName")
	}
	name := in.SourceTableName
	if in.SourceTableArn != "" {
		arnRegion, arnName, ok := parseTableARN(in.SourceTableArn)
		if !ok {
			return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: sourceTableArn is not a valid ARN")
		}
		name = arnName
		if arnRegion != region {
			if _, foreign := access.ForeignARN(region, in.SourceTableArn); !foreign || s.opts.Policies == nil {
				return nil, ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", arnName)
			}
			name = in.SourceTableArn // another account's: backupTable refuses it
		}
	}
	src, err := s.backupTable(ctx, region, name)
	if err != nil {
		return nil, err
	}
	if src.PITR == nil {
		return nil, ddb.Errorf(ddb.PointInTimeRecoveryUnavailableException, "Point in time recovery is not enabled for table '%s'", src.Name)
	}
	now := s.now()
	at := now
	if !latest {
		at, err = restoreInstant(src.PITR, *in.RestoreDateTime, now)
		if err != nil {
			return nil, err
		}
	}
	return s.restore(ctx, func(tx *store.Tx) (*tableMeta, error) {
		cur, err := currentTable(tx, src)
		if err != nil {
			return nil, err
		}
		if cur.PITR == nil || cur.PITR.Since != src.PITR.Since {
			return nil, ddb.Errorf(ddb.PointInTimeRecoveryUnavailableException, "Point in time recovery is not enabled for table '%s'", src.Name)
		}
		m, err := s.restoredMeta(region, in.TargetTableName, cur, &in.RestoreOverrides,
			&restoreMeta{SourceTableArn: cur.arn(), Time: at.UnixNano()})
		if err != nil {
			return nil, err
		}
		items, err := itemsAt(tx.Space(cur.ID), restoreCut(at, latest))
		if err != nil {
			return nil, err
		}
		return m, s.createRestored(tx, m, items)
	})
}

// restoreInstant validates RestoreDateTime (epoch seconds) against p's
// window at now, compared in whole seconds, and returns it.
func restoreInstant(p *pitrMeta, secs float64, now time.Time) (time.Time, error) {
	at := time.UnixMilli(int64(math.Round(secs * 1000))) // DynamoDB's timestamps have milliseconds
	earliest, latest := p.window(now)
	if at.Truncate(time.Second).Before(earliest) || at.Truncate(time.Second).After(latest.Truncate(time.Second)) {
		return time.Time{}, ddb.Errorf(ddb.InvalidRestoreTimeException, "RestoreDateTime '%s' must be within EarliestRestorableDateTime '%s' and LatestRestorableDateTime '%s'",
			isoSeconds(at), isoSeconds(earliest), isoSeconds(latest))
	}
	return at, nil
}

// restoreCut is the first commit instant (Unix nanoseconds) a restore to at
// leaves out: the next whole second, or nothing for the latest time.
func restoreCut(at time.Time, latest bool) int64 {
	if latest {
		return math.MaxInt64
	}
	return at.Truncate(time.Second).Add(time.Second).UnixNano()
}

// itemsAt returns the items of table space sp as they were before the
// commit instant cut: the current items, with every item changed at or
// after cut replaced by the old image of its first such change (or left
// out, when that change created it). It reads sp's change log, which
// point-in-time recovery keeps from its enabling on.
func itemsAt(sp *store.Space, cut int64) (func(fn func(k, v []byte) error) error, error) {
	if sp == nil {
		return nil, fmt.Errorf("table: source space missing")
	}
	past := map[string][]byte{} // key → item before cut, nil when absent
	var err error
	sp.AscendLog(0, func(seq uint64, raw []byte) bool {
		var rec changelog.Record
		if rec, err = changelog.Decode(raw); err != nil {
			err = fmt.Errorf("table: log record %d: %w", seq, err)
			return false
		}
		if rec.Time < cut {
			return true
		}
		if _, seen := past[string(rec.Key)]; !seen {
			past[string(rec.Key)] = bytes.Clone(rec.Old)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return func(fn func(k, v []byte) error) error {
		var err error
		sp.Ascend(nil, nil, func(k, v []byte) bool {
			if old, changed := past[string(k)]; changed {
				v = old
			}
			if v != nil {
				err = fn(k, v)
			}
			return err == nil
		})
		if err != nil {
			return err
		}
		for k, old := range past {
			if old != nil && sp.Get([]byte(k)) == nil {
				if err := fn([]byte(k), old); err != nil {
					return err
				}
			}
		}
		return nil
	}, nil
}
