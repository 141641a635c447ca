package table

import (
	"context"
	"slices"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/replication"
)

// deleteReplica removes the replica of m's global table in region: it
// leaves the group, then its table is deleted like any other.
func (s *Service) deleteReplica(ctx context.Context, m *tableMeta, region string, now int64) (*tableMeta, error) {
	scope := memberScope(m, region)
	t, err := s.catalog.get(s.db, scope, m.Name)
	if err != nil {
		return nil, err
	}
	if t != nil {
		if t.DeletionProtection {
			return nil, ddb.Errorf(ddb.ValidationException, "Cannot delete table %s in region %s because it has deletion protection enabled. Disable deletion protection first.", m.Name, region)
		}
		if err := s.leaveGroup(ctx, t, now); err != nil {
			return nil, err
		}
		if _, err := s.DeleteTable(access.Unpoliced(ctx), scope, &ddb.TableNameInput{TableName: m.Name}); err != nil {
			return nil, err
		}
	}
	next, err := s.catalog.get(s.db, m.Region, m.Name)
	if err == nil && next == nil {
		err = ddb.NotFound("Table: %s not found", m.Name)
	}
	return next, err
}

// leaveGroup takes table t out of its global table in one transaction:
// every link to and from it ends, the other members list it as DELETING
// (for Options.TransientDelay) or no longer, and a member left alone, like
// t, is a regional table again. DeleteTable calls it for a replica.
func (s *Service) leaveGroup(ctx context.Context, t *tableMeta, now int64) error {
	if _, err := s.changeGroup(ctx, t, func(g *group) error { return s.leave(g, now) }); err != nil {
		return err
	}
	s.stopLinks(t.ID)
	return nil
}

// leave is leaveGroup's transaction: g.members[0] leaves.
func (s *Service) leave(g *group, now int64) error {
	t, region := g.members[0], regionOf(g.members[0])
	for _, o := range g.members[1:] {
		if err := replication.Unlink(g.tx, o.ID, t.ID); err != nil {
			return err
		}
		if err := replication.Unlink(g.tx, t.ID, o.ID); err != nil {
			return err
		}
		o.Replicas = slices.DeleteFunc(o.Replicas, func(r replicaMeta) bool { return r.Region == region })
		alone := len(o.Replicas) == 0
		if s.opts.TransientDelay > 0 {
			o.Replicas = append(o.Replicas, replicaMeta{Region: region, Status: replicaDeleting, Since: now})
		}
		if alone {
			o.Strong, o.Witness = false, ""
			if err := replication.Disable(g.tx, o.ID); err != nil {
				return err
			}
		}
		o.Updated = max(o.Updated, now)
		if err := s.put(g, o); err != nil {
			return err
		}
	}
	t.Replicas, t.Strong, t.Witness = nil, false, ""
	if t.Global != nil { // a regional table is no replica the replication service could be denied
		gs := *t.Global
		gs.NotAuthorizedSince, gs.LegacyCreated = 0, 0
		t.Global = &gs
	}
	if err := replication.Disable(g.tx, t.ID); err != nil {
		return err
	}
	return s.put(g, t)
}

// updateReplicaSettings records the overrides of a's replicas in one
// transaction: every other member lists them, UPDATING for
// Options.TransientDelay, and each replica takes them as its own settings
// (its class, read capacity and maximum reads).
func (s *Service) updateReplicaSettings(ctx context.Context, m *tableMeta, a *replicaAction, now int64) (*tableMeta, error) {
	g, err := s.changeGroup(ctx, m, func(g *group) error {
		for i, region := range a.regions {
			set := a.update[i].ReplicaSettings
			for _, mem := range g.members {
				if regionOf(mem) == region {
					mem.takeOverrides(set)
					mem.Updated = max(mem.Updated, now)
				} else if e := mem.replica(region); e != nil {
					e.override(set)
					e.Status, e.Since = replicaUpdating, now
				}
			}
		}
		return s.putAll(g)
	})
	if err != nil {
		return nil, err
	}
	return g.members[0], nil
}

// override records set's overrides in e.
func (e *replicaMeta) override(set ddb.ReplicaSettings) {
	if set.TableClassOverride != "" {
		e.TableClass = set.TableClassOverride
	}
	if set.KMSMasterKeyId != "" {
		e.KMSKey = set.KMSMasterKeyId
	}
	if o := set.ProvisionedThroughputOverride; o != nil && o.ReadCapacityUnits != nil {
		e.ReadCapacity = *o.ReadCapacityUnits
	}
	if o := set.OnDemandThroughputOverride; o != nil && o.MaxReadRequestUnits != nil {
		e.MaxRead = *o.MaxReadRequestUnits
	}
	for _, g := range set.GlobalSecondaryIndexes {
		o := e.index(g.IndexName)
		o.Name = g.IndexName
		if p := g.ProvisionedThroughputOverride; p != nil && p.ReadCapacityUnits != nil {
			o.ReadCapacity = *p.ReadCapacityUnits
		}
		if d := g.OnDemandThroughputOverride; d != nil && d.MaxReadRequestUnits != nil {
			o.MaxRead = *d.MaxReadRequestUnits
		}
		e.Indexes = slices.DeleteFunc(e.Indexes, func(x replicaIndexOverride) bool { return x.Name == o.Name })
		e.Indexes = append(e.Indexes, o)
	}
}
