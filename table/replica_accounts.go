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
		return nil, ddb.NotFound("Requested resource not found: Table: %s not found", name)
	}
	if src.global().SettingsMode != "ENABLED" || src.Strong {
		return nil, ddb.Errorf(ddb.ValidationException, "Settings replication is not enabled on the source table %s. Set its GlobalTableSettingsReplicationMode to ENABLED first.", name)
	}
	region := access.RegionOf(scope)
	if region == regionOf(src) || src.replica(region) != nil {
		return nil, ddb.Errorf(ddb.ValidationException, "The global table %s already has a replica in region %s.", name, region)
	}
	if !slices.Equal(src.KeySchema, in.KeySchema) {
		return nil, ddb.Errorf(ddb.ValidationException, "The key schema must be the source table's.")
	}
	return src, nil
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
