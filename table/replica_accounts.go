package table

import (
	"context"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// Multi-account global tables (2026): a regional table whose
// GlobalTableSettingsReplicationMode is ENABLED is the source of a global
// table whose replicas are each in another account (the accounts of
// --credentials) and another Region: CreateTable with GlobalTableSourceArn
// naming the source, and GlobalTableSettingsReplicationMode ENABLED, makes
// the caller's table a replica of the source's global table, created from
// the source's definition and filled from its items. Settings are the
// same on every replica (no per-replica overrides); replicas are added
// only this way and leave it by DeleteTable or Disassociate in their own
// account. The resource-based policies the service asks for
// (AssociateTableReplica, and the replication service principal's
// permissions) are checked as replica_authorize.go says.
//
// The service documents these rules but not its refusals' texts: the
// messages are ddblocal's.

// multiAccount reports whether m is a replica of a multi-account global
// table.
func (m *tableMeta) multiAccount() bool {
	return len(m.Replicas) > 0 && m.global().SettingsMode == "ENABLED"
}

// checkCreateMode checks CreateTable's GlobalTableSettingsReplicationMode
// and GlobalTableSourceArn before anything is looked up.
func checkCreateMode(in *ddb.CreateTableInput) error {
	switch {
	case in.GlobalTableSourceArn != "" && in.GlobalTableSettingsReplicationMode != "ENABLED":
		return ddb.Errorf(ddb.ValidationException, "GlobalTableSettingsReplicationMode must be ENABLED when GlobalTableSourceArn is specified.")
	case in.GlobalTableSettingsReplicationMode == "ENABLED_WITH_OVERRIDES":
		return ddb.Errorf(ddb.ValidationException, "Value 'ENABLED_WITH_OVERRIDES' at 'GlobalTableSettingsReplicationMode' failed to satisfy constraint: Only ENABLED and DISABLED settings replication are supported for a Regional Table.")
	}
	return nil
}

// multiAccountSource returns the source table in's GlobalTableSourceArn
// names, for a replica in scope, checking that it may have one there.
func (s *Service) multiAccountSource(scope string, in *ddb.CreateTableInput) (*tableMeta, error) {
	srcScope, account, resource, ok := access.SplitARN(in.GlobalTableSourceArn)
	name, isTable := strings.CutPrefix(resource, "table/")
	if !ok || !isTable || name == "" || strings.Contains(name, "/") {
		return nil, ddb.Errorf(ddb.ValidationException, "Invalid GlobalTableSourceArn: %s", in.GlobalTableSourceArn)
	}
	if access.SameAccount(scope, account) {
		return nil, ddb.Errorf(ddb.ValidationException, "The source table of a multi-account global table must be in another account.")
	}
	if name != in.TableName {
		return nil, ddb.Errorf(ddb.ValidationException, "The table name must be the source table's: %s.", name)
	}
	src, err := s.catalog.get(s.db, srcScope, name)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, ddb.NotFound("Table: %s not found", name)
	}
	if src.global().SettingsMode != "ENABLED" || src.Strong {
		return nil, ddb.Errorf(ddb.ValidationException, "Settings replication is not enabled on the source table %s. Set its GlobalTableSettingsReplicationMode to ENABLED first.", name)
	}
	region := access.RegionOf(scope)
	if region == regionOf(src) || src.replica(region) != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "The global table %s already has a replica in region %s.", name, region)
	}
	if err := checkSourceDefinitions(src, in); err != nil {
		return nil, err
	}
	if err := s.checkNoBulkLoad(src); err != nil { // transfer_bulk_global.go
		return nil, err
	}
	return src, nil
}

// checkSourceDefinitions refuses a replica's CreateTable that gives a
// definition other than the source's: the replica takes the source's key
// schema, attribute definitions, indexes, billing mode, capacity, class and
// stream, so a request may leave them out (as the service's tutorial does)
// or repeat them, but not change them.
func checkSourceDefinitions(src *tableMeta, in *ddb.CreateTableInput) error {
	want := replicaTableInput(src, &ddb.CreateReplicationGroupMemberAction{})
	differs := func(what string) error {
		return ddb.Errorf(ddb.ValidationException, "The %s must be the source table's.", what)
	}
	switch {
	case in.KeySchema != nil && !slices.Equal(in.KeySchema, want.KeySchema):
		return differs("key schema")
	case in.AttributeDefinitions != nil && !sameAttributes(in.AttributeDefinitions, want.AttributeDefinitions):
		return differs("attribute definitions")
	case in.LocalSecondaryIndexes != nil && !sameLSIs(in.LocalSecondaryIndexes, want.LocalSecondaryIndexes):
		return differs("local secondary indexes")
	case in.GlobalSecondaryIndexes != nil && !sameGSIs(in.GlobalSecondaryIndexes, want.GlobalSecondaryIndexes):
		return differs("global secondary indexes")
	case in.BillingMode != "" && in.BillingMode != orDefault(want.BillingMode, "PROVISIONED"):
		return differs("billing mode")
	case in.ProvisionedThroughput != nil && !sameThroughput(in.ProvisionedThroughput, want.ProvisionedThroughput):
		return differs("provisioned throughput")
	case in.TableClass != "" && in.TableClass != orDefault(want.TableClass, "STANDARD"):
		return differs("table class")
	case in.StreamSpecification != nil && !sameStream(in.StreamSpecification, want.StreamSpecification):
		return differs("stream specification")
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sameAttributes reports whether a and b define the same attributes, in
// any order.
func sameAttributes(a, b []ddb.AttributeDefinition) bool {
	key := func(d ddb.AttributeDefinition) string { return d.AttributeName + "\x00" + d.AttributeType }
	return sameSet(a, b, key)
}

// sameSet reports whether a and b hold the same elements by key, in any
// order.
func sameSet[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}

// definitionKey is an index's name, key schema and projection as one string.
func definitionKey(name string, ks []ddb.KeySchemaElement, p *ddb.Projection) string {
	var b strings.Builder
	b.WriteString(name)
	for _, k := range ks {
		b.WriteString("\x00" + k.AttributeName + "\x01" + k.KeyType)
	}
	if p != nil {
		nk := slices.Sorted(slices.Values(p.NonKeyAttributes))
		b.WriteString("\x02" + p.ProjectionType + "\x03" + strings.Join(nk, "\x04"))
	}
	return b.String()
}

func sameLSIs(a, b []ddb.LocalSecondaryIndex) bool {
	return sameSet(a, b, func(ix ddb.LocalSecondaryIndex) string {
		return definitionKey(ix.IndexName, ix.KeySchema, ix.Projection)
	})
}

// sameGSIs compares global indexes' names, keys and projections: their
// capacity is the table's billing mode's business.
func sameGSIs(a, b []ddb.GlobalSecondaryIndex) bool {
	return sameSet(a, b, func(ix ddb.GlobalSecondaryIndex) string {
		return definitionKey(ix.IndexName, ix.KeySchema, ix.Projection)
	})
}

func sameThroughput(a, b *ddb.ProvisionedThroughput) bool {
	return b != nil && *a.ReadCapacityUnits == *b.ReadCapacityUnits && *a.WriteCapacityUnits == *b.WriteCapacityUnits
}

// sameStream reports whether the stream a asks for is b.
func sameStream(a, b *ddb.StreamSpecification) bool {
	on := func(s *ddb.StreamSpecification) bool { return s != nil && s.StreamEnabled != nil && *s.StreamEnabled }
	return on(a) == on(b) && (!on(a) || a.StreamViewType == b.StreamViewType)
}

// createFromSource is CreateTable with GlobalTableSourceArn: the table is
// created in scope from the source's definition (with the request's tags,
// deletion protection and resource-based policy), then joins the source's global table in one
// transaction; the source's link copies its items to it.
func (s *Service) createFromSource(ctx context.Context, scope string, in *ddb.CreateTableInput) (*ddb.TableOutput, error) {
	src, err := s.multiAccountSource(scope, in)
	if err != nil {
		return nil, err
	}
	if err := s.checkJoin(ctx, scope, src, in.ResourcePolicy); err != nil {
		return nil, err
	}
	if err := s.replicaBusy(src, s.now().UnixNano()); err != nil {
		return nil, err
	}
	now := s.now().UnixNano()
	tin := replicaTableInput(src, &ddb.CreateReplicationGroupMemberAction{})
	tin.Tags, tin.DeletionProtectionEnabled, tin.ResourcePolicy = in.Tags, in.DeletionProtectionEnabled, in.ResourcePolicy
	if _, err := s.CreateTable(access.Unpoliced(ctx), scope, tin); err != nil {
		return nil, err
	}
	entry := replicaMeta{Region: access.RegionOf(scope), Status: replicaCreating, Since: now, CopyFrom: regionOf(src)}
	g, err := s.changeGroup(ctx, src, func(g *group) error { return s.join(g, scope, entry, now) })
	if err != nil {
		_, _ = s.DeleteTable(access.Unpoliced(ctx), scope, &ddb.TableNameInput{TableName: src.Name})
		return nil, err
	}
	s.startLinks(g.members[0])
	t, err := s.catalog.get(s.db, scope, src.Name)
	if err != nil || t == nil {
		return nil, orErr(err, ddb.NotFound("Table: %s not found", src.Name))
	}
	stats, err := s.stats(t)
	if err != nil {
		return nil, err
	}
	return &ddb.TableOutput{TableDescription: s.describe(t, stats)}, nil
}

// checkMultiAccountUpdates refuses ReplicaUpdates other than Disassociate
// on a multi-account global table: replicas join with CreateTable in
// their accounts, and settings are not overridden per replica.
func checkMultiAccountUpdates(m *tableMeta, a *replicaAction) error {
	if m.multiAccount() && a.kind != "Disassociate" {
		return ddb.Errorf(ddb.ValidationException, "%s replica actions are not supported for multi-account global tables.", a.kind)
	}
	return nil
}
