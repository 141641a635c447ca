package table

import (
	"context"
	"math"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// backupFilter is what ListBackups selects: a table name ("" for all),
// backup types, and creation times in [from, to) milliseconds.
type backupFilter struct {
	table    string
	types    map[string]bool
	from, to int64
}

func (f *backupFilter) match(b *backupMeta, now int64) bool {
	ms := b.Created / int64(time.Millisecond)
	return (f.table == "" || b.Table.Name == f.table) && f.types[b.Type] &&
		ms >= f.from && ms < f.to && (b.Expiry == 0 || now < b.Expiry)
}

// newBackupFilter validates ListBackups' filters. BackupType defaults to
// USER, as DynamoDB's does; ALL is USER, SYSTEM and AWS_BACKUP.
func newBackupFilter(in *ddb.ListBackupsInput) (*backupFilter, error) {
	f := &backupFilter{table: tableName(in.TableName), types: map[string]bool{}, from: math.MinInt64, to: math.MaxInt64}
	switch in.BackupType {
	case "", "USER":
		f.types["USER"] = true
	case "ALL":
		f.types["USER"], f.types["SYSTEM"], f.types["AWS_BACKUP"] = true, true, true
	default:
		f.types[in.BackupType] = true
	}
	if in.TimeRangeLowerBound != nil {
		f.from = int64(math.Round(*in.TimeRangeLowerBound * 1000))
	}
	if in.TimeRangeUpperBound != nil {
		f.to = int64(math.Round(*in.TimeRangeUpperBound * 1000))
	}
	if f.from > f.to {
		return nil, invalid("Time range lower bound must be less than or equal to upper bound")
	}
	return f, nil
}

// ListBackups lists the region's backups in creation order, filtered, a page
// of Limit (all when absent) at a time. LastEvaluatedBackupArn is set only
// when more backups match.
func (s *Service) ListBackups(ctx context.Context, region string, in *ddb.ListBackupsInput) (*ddb.ListBackupsOutput, error) {
	f, err := newBackupFilter(in)
	if err != nil {
		return nil, err
	}
	from := backupKey(region, "")
	if in.ExclusiveStartBackupArn != "" {
		id, err := parseBackupARN(in.ExclusiveStartBackupArn)
		if err != nil {
			return nil, err
		}
		// DescribeBackup ignores an ARN's region; this cursor does not.
		arnScope, _, _, _ := access.SplitARN(in.ExclusiveStartBackupArn)
		if access.RegionOf(arnScope) != access.RegionOf(region) {
			return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: The supplied ExclusiveStartBackupArn does not match the region")
		}
		from = append(backupKey(region, id), 0)
	}
	limit := math.MaxInt
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	out := &ddb.ListBackupsOutput{BackupSummaries: []ddb.BackupSummary{}}
	now := s.now().UnixNano()
	err = s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(backupsSpace)
		if sp == nil {
			return nil
		}
		var err error
		sp.Ascend(from, append(backupKey(region, ""), 0xff), func(_, v []byte) bool {
			var b *backupMeta
			if b, err = decodeBackup(v); err != nil {
				return false
			}
			if !f.match(b, now) {
				return true
			}
			if len(out.BackupSummaries) == limit {
				out.LastEvaluatedBackupArn = out.BackupSummaries[limit-1].BackupArn
				return false
			}
			out.BackupSummaries = append(out.BackupSummaries, s.summary(b))
			return true
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// summary is b's entry in ListBackups.
func (s *Service) summary(b *backupMeta) ddb.BackupSummary {
	d := b.details(s.backupStatus(b))
	return ddb.BackupSummary{TableName: b.Table.Name, TableId: b.Table.ID, TableArn: b.Table.arn(),
		BackupArn: d.BackupArn, BackupName: d.BackupName, BackupCreationDateTime: d.BackupCreationDateTime,
		BackupExpiryDateTime: d.BackupExpiryDateTime, BackupStatus: d.BackupStatus, BackupType: d.BackupType,
		BackupSizeBytes: b.Bytes}
}
