package table

import (
	"context"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
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
//
// A synchronized change is one store transaction over every replica's
// definition (changeSynced): a crash never leaves the replicas
// half-changed, and a replica that refuses its share refuses the whole
// change.

// share is one replica's part of a synchronized change: it applies the
// change to next, a copy of cur (the replica's stored definition, which
// replica r of the changed table describes), in tx, and reports false when
// the replica takes no part (it has the change already).
type share func(tx *store.Tx, r replicaMeta, cur, next *tableMeta) (bool, error)

// changeSynced is changeTable for a change the other replicas of m's
// global table share: change is applied to m's stored definition and sh to
// each other replica's, in one store transaction. It returns m's definition
// as committed and those of the replicas that took part. Like any
// store.Update function, change and sh may run more than once.
func (s *Service) changeSynced(ctx context.Context, m *tableMeta, change func(tx *store.Tx, cur, next *tableMeta) error, sh share) (*tableMeta, []*tableMeta, error) {
	var shared []*tableMeta
	g, err := s.changeGroup(ctx, m, func(g *group) error {
		shared = nil
		first := g.members[0]
		for i, next := range g.members {
			cur, err := copyMeta(next)
			if err != nil {
				return err
			}
			if i == 0 {
				err = change(g.tx, cur, next)
			} else {
				var ok bool
				if ok, err = s.shareIn(g.tx, first, cur, next, sh); err == nil && !ok {
					continue
				}
				shared = append(shared, next)
			}
			if err != nil {
				return err
			}
			if err := s.put(g, next); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return g.members[0], shared, nil
}

// shareIn applies sh to next, a copy of cur, the replica of first's
// global table in next's Region. Service.shareSeam, set only by tests, runs
// first.
func (s *Service) shareIn(tx *store.Tx, first, cur, next *tableMeta, sh share) (bool, error) {
	r := first.replica(regionOf(next))
	if r == nil || first.legacy() { // a legacy global table's settings are each replica's (replica_legacy.go)
		return false, nil
	}
	if s.shareSeam != nil {
		if err := s.shareSeam(regionOf(next)); err != nil {
			return false, err
		}
	}
	return sh(tx, *r, cur, next)
}

// copyMeta is a copy of m that shares nothing with it.
func copyMeta(m *tableMeta) (*tableMeta, error) {
	b, err := encodeMeta(m)
	if err != nil {
		return nil, err
	}
	return decodeMeta(b)
}

// updateShare is a replica's share of UpdateTable in, applied at now; the
// global indexes it creates are recorded in created by table space id.
func (s *Service) updateShare(in *ddb.UpdateTableInput, now int64, created map[string][]string) share {
	return func(tx *store.Tx, r replicaMeta, cur, next *tableMeta) (bool, error) {
		rin := replicaUpdate(in, r, cur)
		if rin == nil {
			return false, nil
		}
		if err := s.updateIn(tx, cur, next, rin, now, created); err != nil {
			return false, err
		}
		next.keepOverrides(r)
		return true, nil
	}
}

// ttlShare is a replica's share of UpdateTimeToLive spec.
func (s *Service) ttlShare(spec *ddb.TimeToLiveSpecification) share {
	return func(tx *store.Tx, _ replicaMeta, cur, next *tableMeta) (bool, error) {
		if *spec.Enabled && cur.TTLAttribute == spec.AttributeName || !*spec.Enabled && cur.TTLAttribute == "" {
			return false, nil
		}
		sp := tx.Space(cur.ID)
		if sp == nil {
			return false, ddb.NotFound("Table: %s not found", cur.Name)
		}
		return true, s.applyTTL(sp, cur, next, spec)
	}
}

// replicaUpdate is the share of UpdateTable in that replica r, whose
// stored definition is cur, takes; nil when there is none. A provisioned
// throughput its read override leaves as it is is no change.
func replicaUpdate(in *ddb.UpdateTableInput, r replicaMeta, cur *tableMeta) *ddb.UpdateTableInput {
	out := &ddb.UpdateTableInput{TableName: in.TableName, AttributeDefinitions: in.AttributeDefinitions,
		BillingMode: in.BillingMode, WarmThroughput: in.WarmThroughput, StreamSpecification: in.StreamSpecification,
		SSESpecification: withKey(in.SSESpecification, r.KMSKey)}
	if r.TableClass == "" {
		out.TableClass = in.TableClass
	}
	if p := in.ProvisionedThroughput; p != nil {
		out.ProvisionedThroughput = overrideRead(p, r.ReadCapacity)
	}
	if p := out.ProvisionedThroughput; p != nil && cur.BillingMode == "PROVISIONED" && (out.BillingMode == "" || out.BillingMode == cur.BillingMode) &&
		deref(p.ReadCapacityUnits) == cur.ReadCapacity && deref(p.WriteCapacityUnits) == cur.WriteCapacity {
		out.ProvisionedThroughput, out.BillingMode = nil, ""
	}
	if o := in.OnDemandThroughput; o != nil {
		out.OnDemandThroughput = overrideMaxRead(o, r.MaxRead)
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if ru := replicaIndexUpdate(u, r); !cur.unchangedIndex(ru) {
			out.GlobalSecondaryIndexUpdates = append(out.GlobalSecondaryIndexUpdates, ru)
		}
	}
	if out.BillingMode == "" && out.ProvisionedThroughput == nil && out.OnDemandThroughput == nil && out.WarmThroughput == nil &&
		len(out.GlobalSecondaryIndexUpdates) == 0 && out.StreamSpecification == nil && out.SSESpecification == nil && out.TableClass == "" {
		return nil
	}
	return out
}

// keepOverrides gives m, replica r after a synchronized change, r's read
// capacity overrides again: switching the table to provisioned gives its
// global indexes the throughput the request names for them.
func (m *tableMeta) keepOverrides(r replicaMeta) {
	if m.BillingMode == "PAY_PER_REQUEST" {
		return
	}
	if r.ReadCapacity > 0 {
		m.ReadCapacity = r.ReadCapacity
	}
	for i := range m.GlobalSecondaryIndexes {
		if o := r.index(m.GlobalSecondaryIndexes[i].Name); o.ReadCapacity > 0 {
			m.GlobalSecondaryIndexes[i].ReadCapacity = o.ReadCapacity
		}
	}
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

// unchangedIndex reports whether u only sets an index of m to the
// provisioned throughput it has: a replica whose read override leaves the
// index as it is takes no share of it (as replicaUpdate does for the
// table's), where the request's own table refuses it (updateIndex).
func (m *tableMeta) unchangedIndex(u ddb.GlobalSecondaryIndexUpdate) bool {
	up := u.Update
	if up == nil || up.ProvisionedThroughput == nil || up.OnDemandThroughput != nil || up.WarmThroughput != nil {
		return false
	}
	i := m.gsiPosition(up.IndexName)
	return i >= 0 && m.BillingMode == "PROVISIONED" &&
		deref(up.ProvisionedThroughput.ReadCapacityUnits) == m.GlobalSecondaryIndexes[i].ReadCapacity &&
		deref(up.ProvisionedThroughput.WriteCapacityUnits) == m.GlobalSecondaryIndexes[i].WriteCapacity
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

// withKey is sse with the KMS key key, when key is a replica's own (not "")
// and sse asks for KMS encryption.
func withKey(sse *ddb.SSESpecification, key string) *ddb.SSESpecification {
	if sse == nil || key == "" || sse.Enabled == nil || !*sse.Enabled {
		return sse
	}
	c := *sse
	c.KMSMasterKeyId, c.SSEType = key, "KMS" // a key goes with the KMS type (checkSSE)
	return &c
}

// takeOverrides makes set's overrides t's own settings, t being the
// replica they are for: its class, its KMS key, and its read capacity (provisioned) or
// maximum reads (on demand, when it has a maximum), table and global
// indexes.
func (t *tableMeta) takeOverrides(set ddb.ReplicaSettings) {
	if set.TableClassOverride != "" {
		t.TableClass = set.TableClassOverride
	}
	t.SSE = withKey(t.SSE, set.KMSMasterKeyId)
	var e replicaMeta
	e.override(set)
	provisioned := t.BillingMode != "PAY_PER_REQUEST"
	switch {
	case provisioned && e.ReadCapacity > 0:
		t.ReadCapacity = e.ReadCapacity
	case !provisioned && t.OnDemandThroughput != nil:
		t.OnDemandThroughput = overrideMaxRead(t.OnDemandThroughput, e.MaxRead)
	}
	for i := range t.GlobalSecondaryIndexes {
		ix := &t.GlobalSecondaryIndexes[i]
		o := e.index(ix.Name)
		switch {
		case provisioned && o.ReadCapacity > 0:
			ix.ReadCapacity = o.ReadCapacity
		case !provisioned && ix.OnDemand != nil:
			ix.OnDemand = overrideMaxRead(ix.OnDemand, o.MaxRead)
		}
	}
}
