package table

import (
	"context"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// Settings synchronization. DynamoDB keeps some settings of a global table
// the same on every replica: a change made through one replica is applied
// to the others. Synchronized: the billing mode, write capacity, on-demand
// maximum write throughput, warm throughput, global secondary indexes
// (their definitions and write capacity), the stream, server-side
// encryption and Time to Live. Synchronized unless the replica overrides
// them: read capacity, on-demand maximum read throughput (table and each
// global index) and the table class. Never synchronized: deletion
// protection, tags, point-in-time recovery, Contributor Insights, resource
// policies and Kinesis destinations.

// syncKey marks a context whose table change is a replica's share of a
// synchronized change: it is not synchronized again.
type syncKey struct{}

// synced reports whether ctx carries a synchronized change.
func synced(ctx context.Context) bool { return ctx.Value(syncKey{}) != nil }

// replicaContext is the context of a change applied to a replica on the
// caller's behalf: unpoliced, and not synchronized further.
func replicaContext(ctx context.Context) context.Context {
	return context.WithValue(access.Unpoliced(ctx), syncKey{}, true)
}

// syncUpdate applies to every other replica of m's global table the
// synchronized settings of in, an UpdateTable m has committed, adjusted to
// each replica's overrides. The change is already valid on m, whose
// definition the replicas share; a replica that refuses it is logged.
func (s *Service) syncUpdate(ctx context.Context, m *tableMeta, in *ddb.UpdateTableInput) {
	if synced(ctx) || len(m.Replicas) == 0 {
		return
	}
	for _, r := range m.Replicas {
		if r.Status == replicaDeleting {
			continue
		}
		rin := replicaUpdate(in, r)
		if rin == nil {
			continue
		}
		if _, err := s.UpdateTable(replicaContext(ctx), memberScope(m, r.Region), rin); err != nil {
			s.opts.Logger.Error("global tables: synchronizing UpdateTable", "table", m.Name, "replica", r.Region, "err", err)
		}
	}
}

// replicaUpdate is the share of UpdateTable in that replica r takes, nil
// when there is none.
func replicaUpdate(in *ddb.UpdateTableInput, r replicaMeta) *ddb.UpdateTableInput {
	out := &ddb.UpdateTableInput{TableName: in.TableName, AttributeDefinitions: in.AttributeDefinitions,
		BillingMode: in.BillingMode, WarmThroughput: in.WarmThroughput, StreamSpecification: in.StreamSpecification,
		SSESpecification: in.SSESpecification}
	if r.TableClass == "" {
		out.TableClass = in.TableClass
	}
	if p := in.ProvisionedThroughput; p != nil {
		out.ProvisionedThroughput = overrideRead(p, r.ReadCapacity)
	}
	if o := in.OnDemandThroughput; o != nil {
		out.OnDemandThroughput = overrideMaxRead(o, r.MaxRead)
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		out.GlobalSecondaryIndexUpdates = append(out.GlobalSecondaryIndexUpdates, replicaIndexUpdate(u, r))
	}
	if out.BillingMode == "" && out.ProvisionedThroughput == nil && out.OnDemandThroughput == nil && out.WarmThroughput == nil &&
		len(out.GlobalSecondaryIndexUpdates) == 0 && out.StreamSpecification == nil && out.SSESpecification == nil && out.TableClass == "" {
		return nil
	}
	return out
}

// replicaIndexUpdate is u for replica r: its read capacity overrides kept.
func replicaIndexUpdate(u ddb.GlobalSecondaryIndexUpdate, r replicaMeta) ddb.GlobalSecondaryIndexUpdate {
	switch {
	case u.Create != nil:
		c := *u.Create
		o := r.index(c.IndexName)
		if c.ProvisionedThroughput != nil {
			c.ProvisionedThroughput = overrideRead(c.ProvisionedThroughput, o.ReadCapacity)
		}
		if c.OnDemandThroughput != nil {
			c.OnDemandThroughput = overrideMaxRead(c.OnDemandThroughput, o.MaxRead)
		}
		return ddb.GlobalSecondaryIndexUpdate{Create: &c}
	case u.Update != nil:
		up := *u.Update
		o := r.index(up.IndexName)
		if up.ProvisionedThroughput != nil {
			up.ProvisionedThroughput = overrideRead(up.ProvisionedThroughput, o.ReadCapacity)
		}
		if up.OnDemandThroughput != nil {
			up.OnDemandThroughput = overrideMaxRead(up.OnDemandThroughput, o.MaxRead)
		}
		out := ddb.GlobalSecondaryIndexUpdate{}
		out.Update = &up
		return out
	}
	return u
}

// overrideRead is p with its read capacity replaced by read, when read is
// an override (not 0).
func overrideRead(p *ddb.ProvisionedThroughput, read int64) *ddb.ProvisionedThroughput {
	if read == 0 {
		return p
	}
	c := *p
	c.ReadCapacityUnits = pointer(read)
	return &c
}

// overrideMaxRead is o with its maximum read units replaced by read, when
// read is an override (not 0).
func overrideMaxRead(o *ddb.OnDemandThroughput, read int64) *ddb.OnDemandThroughput {
	if read == 0 {
		return o
	}
	c := *o
	c.MaxReadRequestUnits = pointer(read)
	return &c
}

// syncTTL applies a Time to Live change m has committed to every other
// replica of its global table.
func (s *Service) syncTTL(ctx context.Context, m *tableMeta, in *ddb.UpdateTimeToLiveInput) {
	if synced(ctx) || len(m.Replicas) == 0 {
		return
	}
	for _, r := range m.Replicas {
		if r.Status == replicaDeleting {
			continue
		}
		if _, err := s.UpdateTimeToLive(replicaContext(ctx), memberScope(m, r.Region), in); err != nil {
			s.opts.Logger.Error("global tables: synchronizing UpdateTimeToLive", "table", m.Name, "replica", r.Region, "err", err)
		}
	}
}

// index returns r's overrides for global index name (zero when none).
func (r replicaMeta) index(name string) replicaIndexOverride {
	for _, o := range r.Indexes {
		if o.Name == name {
			return o
		}
	}
	return replicaIndexOverride{}
}

// withOverrides applies set's read overrides to in, a new replica's
// CreateTable.
func withOverrides(in *ddb.CreateTableInput, set ddb.ReplicaSettings) {
	var e replicaMeta
	e.override(set)
	if in.ProvisionedThroughput != nil {
		in.ProvisionedThroughput = overrideRead(in.ProvisionedThroughput, e.ReadCapacity)
	}
	if in.OnDemandThroughput != nil {
		in.OnDemandThroughput = overrideMaxRead(in.OnDemandThroughput, e.MaxRead)
	}
	for i, g := range in.GlobalSecondaryIndexes {
		o := e.index(g.IndexName)
		if g.ProvisionedThroughput != nil {
			in.GlobalSecondaryIndexes[i].ProvisionedThroughput = overrideRead(g.ProvisionedThroughput, o.ReadCapacity)
		}
		if g.OnDemandThroughput != nil {
			in.GlobalSecondaryIndexes[i].OnDemandThroughput = overrideMaxRead(g.OnDemandThroughput, o.MaxRead)
		}
	}
}

// applyOverrides gives the replica of m's global table in region the read
// capacity set overrides (a replica Update action); a table class override
// was set with the group.
func (s *Service) applyOverrides(ctx context.Context, m *tableMeta, region string, set ddb.ReplicaSettings) {
	t, err := s.catalog.get(s.db, memberScope(m, region), m.Name)
	if err != nil || t == nil {
		return
	}
	in := &ddb.UpdateTableInput{TableName: t.Name}
	if o := set.ProvisionedThroughputOverride; o != nil && o.ReadCapacityUnits != nil && t.BillingMode != "PAY_PER_REQUEST" {
		in.ProvisionedThroughput = &ddb.ProvisionedThroughput{ReadCapacityUnits: o.ReadCapacityUnits, WriteCapacityUnits: pointer(t.WriteCapacity)}
	}
	for _, g := range set.GlobalSecondaryIndexes {
		i := t.gsiPosition(g.IndexName)
		if p := g.ProvisionedThroughputOverride; i >= 0 && p != nil && p.ReadCapacityUnits != nil && t.BillingMode != "PAY_PER_REQUEST" {
			u := ddb.GlobalSecondaryIndexUpdate{}
			u.Update = &struct {
				IndexName             string                     `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
				ProvisionedThroughput *ddb.ProvisionedThroughput `json:",omitempty"`
				OnDemandThroughput    *ddb.OnDemandThroughput    `json:",omitempty"`
			}{IndexName: g.IndexName, ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: p.ReadCapacityUnits,
				WriteCapacityUnits: pointer(t.GlobalSecondaryIndexes[i].WriteCapacity)}}
			in.GlobalSecondaryIndexUpdates = append(in.GlobalSecondaryIndexUpdates, u)
		}
	}
	if in.ProvisionedThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0 {
		return
	}
	if _, err := s.UpdateTable(replicaContext(ctx), t.Region, in); err != nil {
		s.opts.Logger.Error("global tables: applying a replica's overrides", "table", m.Name, "replica", region, "err", err)
	}
}
