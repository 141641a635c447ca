package table

import (
	"context"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// DescribeTimeToLive reports whether Time to Live is enabled on a table and on
// which attribute. Infrastructure tools call it after creating a table.
func (s *Service) DescribeTimeToLive(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DescribeTimeToLiveOutput, error) {
	if s.deleted.has(region, tableName(in.TableName), s.now()) {
		return nil, ddb.Errorf(ddb.ValidationException, "Cannot describe time to live while table is in DELETING state: Current table state is DELETING")
	}
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	if s.creating(m) {
		return nil, ddb.Errorf(ddb.ValidationException, "Cannot describe time to live while table is in CREATING state: Current table state is CREATING")
	}
	ch, err := s.ttlChange(m)
	if err != nil {
		return nil, err
	}
	settling := ch.Time+s.opts.TransientDelay.Nanoseconds() > s.now().UnixNano()
	d := ddb.TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}
	switch {
	case m.TTLAttribute != "" && settling:
		d = ddb.TimeToLiveDescription{TimeToLiveStatus: "ENABLING", AttributeName: m.TTLAttribute}
	case m.TTLAttribute != "":
		d = ddb.TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: m.TTLAttribute}
	case settling && ch.Attribute != "":
		d = ddb.TimeToLiveDescription{TimeToLiveStatus: "DISABLING", AttributeName: ch.Attribute}
	}
	return &ddb.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}

// ttlModifyInterval is how long after one UpdateTimeToLive DynamoDB refuses
// the next for the same table.
const ttlModifyInterval = time.Hour

// ttlChangeMeta names the table space meta recording the last
// UpdateTimeToLive: when, and on which attribute (ttlChange).
const ttlChangeMeta = "ttl-change"

// ttlChange is the last UpdateTimeToLive of a table.
type ttlChange struct {
	Time      int64 // Unix nanoseconds; 0 if none
	Attribute string
}

// ttlChange reads m's last UpdateTimeToLive.
func (s *Service) ttlChange(m *tableMeta) (ttlChange, error) {
	var ch ttlChange
	err := s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(m.ID); sp != nil {
			return sp.GetMetaJSON(ttlChangeMeta, &ch)
		}
		return nil
	})
	return ch, err
}

// UpdateTimeToLive enables or disables Time to Live; the sweeper
// (ttl_sweep.go) deletes expired items of tables that have it. As in
// DynamoDB, a table's setting changes at most once an hour (by the server's
// clock), and ENABLING / DISABLING last Options.TransientDelay.
func (s *Service) UpdateTimeToLive(ctx context.Context, region string, in *ddb.UpdateTimeToLiveInput) (*ddb.UpdateTimeToLiveOutput, error) {
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	// A CREATING table, whether an import or --transient-delay keeps it so,
	// is refused with ResourceInUseException, the error the API reference
	// lists for an operation that "conflicts with the resource's
	// availability", in UpdateTable's recorded words (inUse); the service's
	// own message here is not recorded. DescribeTimeToLive refuses such a
	// table too (above), so a client cannot see Time to Live settle before
	// the table is ACTIVE.
	if s.creating(m) {
		return nil, s.inUse(m, s.now().UnixNano())
	}
	spec := in.TimeToLiveSpecification
	if err := refuseStrongTTL(m, spec); err != nil { // replica_strong_rules.go
		return nil, err
	}
	notFound := ddb.NotFound("Table: %s not found", m.Name)
	// The other replicas of a global table take their share in the same
	// transaction (replica_sync.go).
	_, _, err = s.changeSynced(ctx, m, func(tx *store.Tx, cur, next *tableMeta) error {
		sp := tx.Space(cur.ID)
		if sp == nil {
			return notFound
		}
		return s.applyTTL(sp, cur, next, spec)
	}, s.ttlShare(spec))
	if err != nil {
		return nil, err
	}
	return &ddb.UpdateTimeToLiveOutput{TimeToLiveSpecification: spec}, nil
}

// applyTTL validates spec against cur's Time to Live and its last change
// (read from sp), sets next's, and records the change in sp.
func (s *Service) applyTTL(sp *store.Space, cur, next *tableMeta, spec *ddb.TimeToLiveSpecification) error {
	// The already-enabled/disabled messages follow DynamoDB's pattern; the
	// docs say only that such a call is a ValidationException.
	switch {
	case *spec.Enabled && cur.TTLAttribute == spec.AttributeName:
		return ddb.Errorf(ddb.ValidationException, "TimeToLive is already enabled")
	case *spec.Enabled && cur.TTLAttribute != "":
		return ddb.Errorf(ddb.ValidationException, "TimeToLive is active on a different AttributeName: current AttributeName is %s", cur.TTLAttribute)
	case !*spec.Enabled && cur.TTLAttribute == "":
		return ddb.Errorf(ddb.ValidationException, "TimeToLive is already disabled")
	case *spec.Enabled:
		next.TTLAttribute = spec.AttributeName
	default:
		next.TTLAttribute = ""
	}
	now := s.now().UnixNano()
	var last ttlChange
	if err := sp.GetMetaJSON(ttlChangeMeta, &last); err != nil {
		return err
	}
	if last.Time != 0 && now-last.Time < ttlModifyInterval.Nanoseconds() {
		return ddb.Errorf(ddb.ValidationException, "Time to live has been modified multiple times within a fixed interval")
	}
	return sp.PutMetaJSON(ttlChangeMeta, ttlChange{Time: now, Attribute: spec.AttributeName})
}
