package table

import (
	"context"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
)

// group is the definitions of a global table's members, read and changed in
// one store transaction, then cached.
type group struct {
	tx      *store.Tx
	members []*tableMeta // the table the change is made through first
	changed map[*tableMeta]uint64
}

// loadGroup reads, through tx, m's stored definition and those of the
// replicas it lists that still exist. notFound is returned when m was
// deleted (or re-created) since it was read.
func (s *Service) loadGroup(tx *store.Tx, m *tableMeta, notFound error) (*group, error) {
	g := &group{tx: tx, changed: map[*tableMeta]uint64{}}
	first, err := loadMeta(tx, m.Region, m.Name)
	if err != nil || first == nil || first.ID != m.ID {
		return nil, orErr(err, notFound)
	}
	g.members = append(g.members, first)
	for _, r := range first.Replicas {
		if r.Status == replicaDeleting {
			continue
		}
		o, err := loadMeta(tx, memberScope(first, r.Region), first.Name)
		if err != nil {
			return nil, err
		}
		if o != nil {
			g.members = append(g.members, o)
		}
	}
	return g, nil
}

func orErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// loadMeta reads table name's definition in scope through tx; nil when
// there is none.
func loadMeta(tx *store.Tx, scope, name string) (*tableMeta, error) {
	b := tx.CatalogGet(catalogKey(scope, name))
	if b == nil {
		return nil, nil
	}
	return decodeMeta(b)
}

// put stores m's definition in the group's transaction.
func (s *Service) put(g *group, m *tableMeta) error {
	m.derive()
	val, err := encodeMeta(m)
	if err != nil {
		return err
	}
	g.changed[m] = s.catalog.stamp()
	return g.tx.CatalogPut(catalogKey(m.Region, m.Name), val)
}

// changeGroup runs change over m's global table (loadGroup) in one store
// transaction, caches what it stored and returns the group as committed.
// Like any store.Update function, change may run more than once.
func (s *Service) changeGroup(ctx context.Context, m *tableMeta, change func(g *group) error) (*group, error) {
	var g *group
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		if g, err = s.loadGroup(tx, m, ddb.NotFound("Table: %s not found", m.Name)); err != nil {
			return err
		}
		return change(g)
	})
	if err != nil {
		return nil, err
	}
	s.cache(g)
	return g, nil
}

// putAll stores every member of g.
func (s *Service) putAll(g *group) error {
	for _, mem := range g.members {
		if err := s.put(g, mem); err != nil {
			return err
		}
	}
	return nil
}

// cache caches every definition the committed change stored.
func (s *Service) cache(g *group) {
	for m, stamp := range g.changed {
		s.catalog.set(m.Region, m.Name, m, stamp)
	}
}

// otherAccount is o's account when it is not m's (a multi-account global
// table), else "".
func otherAccount(m, o *tableMeta) string {
	a, _ := access.SplitScope(m.Region)
	if b, _ := access.SplitScope(o.Region); b != a {
		return b
	}
	return ""
}

// regionOf is the Region of m's scope.
func regionOf(m *tableMeta) string { return access.RegionOf(m.Region) }

// createReplica adds a replica of m in region: the table is created there
// as m's copy, then joins m's global table in one transaction (its links
// copy m's items to it and replicate every member's writes both ways).
func (s *Service) createReplica(ctx context.Context, m *tableMeta, region string, act *ddb.CreateReplicationGroupMemberAction, now int64) (*tableMeta, error) {
	scope := memberScope(m, region)
	if t, err := s.catalog.get(s.db, scope, m.Name); err != nil || t != nil || s.deleted.has(scope, m.Name, s.now()) {
		return nil, orErr(err, replicaExists(m.Name))
	}
	in := replicaTableInput(m, act)
	withOverrides(in, act.ReplicaSettings)
	if _, err := s.CreateTable(access.Unpoliced(ctx), scope, in); err != nil {
		return nil, err
	}
	entry := replicaMeta{Region: region, Status: replicaCreating, Since: now, CopyFrom: regionOf(m)}
	entry.override(act.ReplicaSettings)
	g, err := s.changeGroup(ctx, m, func(g *group) error { return s.join(g, scope, entry, now) })
	if err != nil {
		// The new table is no replica: remove it again.
		_, _ = s.DeleteTable(access.Unpoliced(ctx), scope, &ddb.TableNameInput{TableName: m.Name})
		return nil, err
	}
	s.startLinks(g.members[0])
	return g.members[0], nil
}

// replicaTableInput is the CreateTable request of m's new replica: its key,
// indexes, capacity, encryption and class (or act's override), and its
// stream, or a NEW_AND_OLD_IMAGES one when m has none (as the service
// enables it). Tags, policies, TTL and backups stay regional.
func replicaTableInput(m *tableMeta, act *ddb.CreateReplicationGroupMemberAction) *ddb.CreateTableInput {
	in := &ddb.CreateTableInput{TableName: m.Name, AttributeDefinitions: m.AttributeDefinitions, KeySchema: m.KeySchema,
		BillingMode: m.BillingMode, OnDemandThroughput: m.OnDemandThroughput, SSESpecification: m.SSE,
		TableClass: m.TableClass, StreamSpecification: replicaStream(m)}
	if act.TableClassOverride != "" {
		in.TableClass = act.TableClassOverride
	}
	in.SSESpecification = withKey(in.SSESpecification, act.KMSMasterKeyId)
	provisioned := m.BillingMode != "PAY_PER_REQUEST"
	if provisioned {
		in.ProvisionedThroughput = &ddb.ProvisionedThroughput{ReadCapacityUnits: pointer(m.ReadCapacity), WriteCapacityUnits: pointer(m.WriteCapacity)}
	}
	for _, ix := range m.LocalSecondaryIndexes {
		p := ix.Projection
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, ddb.LocalSecondaryIndex{IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: &p})
	}
	for _, ix := range m.GlobalSecondaryIndexes {
		p := ix.Projection
		g := ddb.GlobalSecondaryIndex{IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: &p, OnDemandThroughput: ix.OnDemand}
		if provisioned {
			g.ProvisionedThroughput = &ddb.ProvisionedThroughput{ReadCapacityUnits: pointer(ix.ReadCapacity), WriteCapacityUnits: pointer(ix.WriteCapacity)}
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, g)
	}
	return in
}

func pointer[T any](v T) *T { return &v }

// replicaStream is the stream of m's replicas: m's, or NEW_AND_OLD_IMAGES.
func replicaStream(m *tableMeta) *ddb.StreamSpecification {
	if m.Stream != nil {
		return m.Stream
	}
	return &ddb.StreamSpecification{StreamEnabled: pointer(true), StreamViewType: "NEW_AND_OLD_IMAGES"}
}

// join makes the table in scope, just created, a member of g's global
// table, listed by every member as entry: g.members[0] gets a stream if it
// has none, every member becomes a replica (package replication), and links
// are made both ways between the new table and each member; the link from
// g.members[0] copies its items first.
func (s *Service) join(g *group, scope string, entry replicaMeta, now int64) error {
	t, err := loadMeta(g.tx, scope, g.members[0].Name)
	if err != nil || t == nil {
		return orErr(err, replicaExists(g.members[0].Name))
	}
	return s.joinMeta(g, t, entry, now)
}

// joinMeta is join of t, the table's definition as g's transaction read it.
func (s *Service) joinMeta(g *group, t *tableMeta, entry replicaMeta, now int64) error {
	src := g.members[0]
	if err := s.ensureStream(g, src, now); err != nil {
		return err
	}
	if otherAccount(t, src) != "" { // a multi-account replica (replica_accounts.go)
		t.Global = &globalSettings{SettingsMode: "ENABLED"}
	}
	for _, mem := range append([]*tableMeta{t}, g.members...) {
		if err := replication.Enable(g.tx, mem.ID); err != nil {
			return err
		}
	}
	if err := linkNew(g.tx, g.members, t); err != nil {
		return err
	}
	for _, mem := range g.members {
		e := entry
		e.Account = otherAccount(mem, t)
		mem.Replicas = append(mem.Replicas, e)
		t.Replicas = append(t.Replicas, replicaMeta{Region: regionOf(mem), Account: otherAccount(t, mem), Status: replicaActive, Since: now})
	}
	src.Updated = now
	for _, mem := range append(g.members, t) {
		if err := s.put(g, mem); err != nil {
			return err
		}
	}
	return nil
}

// ensureStream gives m a NEW_AND_OLD_IMAGES stream if it has none, as
// DynamoDB does when a replica is added.
func (s *Service) ensureStream(g *group, m *tableMeta, now int64) error {
	if m.Stream != nil {
		return nil
	}
	cur := *m
	m.Updated = now
	m.Stream = replicaStream(m)
	m.StreamLabel = streamLabel(now, m.Created)
	if err := freshStreamLabel(g.tx, &cur, m); err != nil {
		return err
	}
	return streamChange(g.tx, &cur, m, now)
}

// linkNew links new table t with each member: t's writes go to every
// member from its first; members[0] copies its items to t and then sends
// its writes; every other member sends t the writes members[0] has not yet
// received from it (what members[0] has is in the copy).
func linkNew(tx *store.Tx, members []*tableMeta, t *tableMeta) error {
	tsp := tx.Space(t.ID)
	if tsp == nil {
		return replication.ErrTableNotFound
	}
	for i, mem := range members {
		sp := tx.Space(mem.ID)
		if sp == nil {
			return replication.ErrTableNotFound
		}
		after := sp.LastLogSeq()
		if i > 0 {
			if wm, _, ok := replication.Watermark(tx, mem.ID, members[0].ID); ok {
				after = wm
			}
		}
		if err := replication.Link(tx, mem.ID, t.ID, after, i == 0); err != nil {
			return err
		}
		if err := replication.Link(tx, t.ID, mem.ID, tsp.LastLogSeq(), false); err != nil {
			return err
		}
	}
	return nil
}
