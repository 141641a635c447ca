package table

import (
	"context"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Replica disassociation (2026): UpdateTable's ReplicaUpdates Disassociate
// takes the local replica of a multi-Region eventually consistent global
// table out of it and keeps it, with its items and settings, as a regional
// table; a global table left with one replica is regional too. It is
// refused while the replica's disassociation protection, on by default, is
// on: UpdateTable DisassociationProtectionEnabled, alone in its request,
// turns it off. GlobalTableSettingsReplicationMode, alone in its request on
// a regional table, is ENABLED or DISABLED (the source of a multi-account
// global table enables it).
//
// The service documents the rules but not the texts of these refusals,
// except the one quoted for ENABLED_WITH_OVERRIDES; the others are
// ddblocal's, worded like the service's replica messages.

// globalSettings are a table's own global-table settings of 2026, stored
// as is in its catalog record.
type globalSettings struct {
	// Unprotected says disassociation protection was turned off.
	Unprotected bool `json:"Unprotected,omitempty"`
	// SettingsMode is GlobalTableSettingsReplicationMode as set on a
	// regional table: ENABLED or DISABLED, "" when never set.
	SettingsMode string `json:"SettingsMode,omitempty"`
	// NotAuthorizedSince is when the replication service was first found
	// not authorized to replicate this replica of a multi-account global
	// table (Unix nanoseconds on the server's clock), 0 when it is
	// (replica_authorize.go): kept with the table so that its 20 hours
	// survive a restart and every front-end counts them alike.
	NotAuthorizedSince int64 `json:"NotAuthorizedSince,omitempty"`
	// LegacyCreated is when the version 2017.11.29 global table the table
	// is a member of was created (Unix nanoseconds), 0 for none
	// (replica_legacy.go).
	LegacyCreated int64 `json:"LegacyCreated,omitempty"`
}

// global returns m's settings (the zero settings when none were set).
func (m *tableMeta) global() globalSettings {
	if m.Global == nil {
		return globalSettings{}
	}
	return *m.Global
}

// onlyGlobalSettings reports whether in changes nothing but
// DisassociationProtectionEnabled and GlobalTableSettingsReplicationMode.
func onlyGlobalSettings(in *ddb.UpdateTableInput) bool {
	return in.BillingMode == "" && in.ProvisionedThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0 &&
		in.StreamSpecification == nil && in.SSESpecification == nil && in.TableClass == "" && in.DeletionProtectionEnabled == nil &&
		in.OnDemandThroughput == nil && in.WarmThroughput == nil && len(in.VectorIndexUpdates) == 0 && len(in.ReplicaUpdates) == 0 &&
		in.MultiRegionConsistency == "" && len(in.GlobalTableWitnessUpdates) == 0 && len(in.AttributeDefinitions) == 0
}

// checkGlobalSettings checks an UpdateTable of DisassociationProtectionEnabled
// or GlobalTableSettingsReplicationMode on m, each alone in its request.
func checkGlobalSettings(m *tableMeta, in *ddb.UpdateTableInput) error {
	switch {
	case in.DisassociationProtectionEnabled != nil && (in.GlobalTableSettingsReplicationMode != "" || !onlyGlobalSettings(in)):
		return invalid("Disassociation protection modification must be the only operation in the request")
	case in.DisassociationProtectionEnabled != nil && (len(m.Replicas) == 0 || m.Strong):
		return ddb.Errorf(ddb.ValidationException, "Disassociation protection is only supported for a replica of a global table with MultiRegionConsistency set to EVENTUAL.")
	case in.DisassociationProtectionEnabled != nil:
		return nil
	case in.GlobalTableSettingsReplicationMode == "ENABLED_WITH_OVERRIDES": // as the service answers it
		return ddb.Errorf(ddb.ValidationException, "Value 'ENABLED_WITH_OVERRIDES' at 'GlobalTableSettingsReplicationMode' failed to satisfy constraint: Only ENABLED and DISABLED settings replication are supported for a Regional Table.")
	case !onlyGlobalSettings(in):
		return invalid("Settings replication mode modification must be the only operation in the request")
	case len(m.Replicas) > 0:
		return ddb.Errorf(ddb.ValidationException, "GlobalTableSettingsReplicationMode can only be set on a regional table.")
	}
	return nil
}

// updateGlobalSettings is UpdateTable of DisassociationProtectionEnabled or
// GlobalTableSettingsReplicationMode: a regional setting of m, changed at
// once (no UPDATING) in one store transaction.
func (s *Service) updateGlobalSettings(ctx context.Context, m *tableMeta, in *ddb.UpdateTableInput) (*ddb.TableOutput, error) {
	if err := checkGlobalSettings(m, in); err != nil {
		return nil, err
	}
	if m.legacy() { // replica_legacy_rules.go
		return nil, errLegacyMember(m)
	}
	now := s.now().UnixNano()
	if err := s.inUse(m, now); err != nil {
		return nil, err
	}
	next, err := s.changeTable(ctx, m, ddb.NotFound("Table: %s not found", m.Name), func(_ *store.Tx, cur, next *tableMeta) error {
		if err := checkGlobalSettings(cur, in); err != nil { // the table may have joined or left since
			return err
		}
		g := cur.global()
		if p := in.DisassociationProtectionEnabled; p != nil {
			g.Unprotected = !*p
		}
		if in.GlobalTableSettingsReplicationMode != "" {
			g.SettingsMode = in.GlobalTableSettingsReplicationMode
		}
		next.Global = &g
		return nil
	})
	if err != nil {
		return nil, err
	}
	stats, err := s.stats(next)
	if err != nil {
		return nil, err
	}
	return &ddb.TableOutput{TableDescription: s.describe(next, stats)}, nil
}

// describeGlobalSettings fills d's 2026 members: a same-account MREC
// replica's disassociation protection, and a regional table's settings
// replication mode once set.
func describeGlobalSettings(d *ddb.TableDescription, m *tableMeta) {
	g := m.global()
	switch {
	case len(d.Replicas) > 0 && !m.Strong:
		d.DisassociationProtectionEnabled = pointer(!g.Unprotected)
	case len(d.Replicas) == 0 && g.SettingsMode != "":
		d.GlobalTableSettingsReplicationMode = g.SettingsMode
	}
}

// disassociate is UpdateTable ReplicaUpdates Disassociate of m, the
// replica in the request's Region: every write made before it reaches
// every other replica and every write they made reaches it
// (WAIT_FOR_REPLICATION), then it leaves its global table in one store
// transaction, keeping its items, indexes, stream and settings.
func (s *Service) disassociate(ctx context.Context, m *tableMeta, region string, now int64) (*tableMeta, error) {
	if own := regionOf(m); region != own {
		return nil, ddb.Errorf(ddb.ValidationException, "Cannot disassociate the replica in region %s through a request to region %s. Send the request to the Region of the replica to disassociate.", region, own)
	}
	if err := s.checkDisassociate(m, now); err != nil {
		return nil, err
	}
	if err := s.drainLinks(ctx, m.ID); err != nil {
		return nil, err
	}
	g, err := s.changeGroup(ctx, m, func(g *group) error {
		if err := s.checkDisassociate(g.members[0], now); err != nil {
			return err
		}
		t := g.members[0]
		t.Updated = now
		if t.Global != nil {
			gs := *t.Global
			gs.Unprotected = false // a later global table protects it again
			t.Global = &gs
		}
		return s.leave(g, now)
	})
	if err != nil {
		return nil, err
	}
	s.stopLinks(m.ID)
	return g.members[0], nil
}

// checkDisassociate refuses to disassociate m when it is no MREC replica,
// when its protection is on, or while a replica change is in progress.
func (s *Service) checkDisassociate(m *tableMeta, now int64) error {
	switch {
	case len(m.Replicas) == 0:
		return ddb.Errorf(ddb.ValidationException, "Cannot disassociate table %s because it is not a replica of a global table.", m.Name)
	case m.Strong:
		return ddb.Errorf(ddb.ValidationException, "Disassociation is not supported for global tables with MultiRegionConsistency set to STRONG.")
	case !m.global().Unprotected:
		return ddb.Errorf(ddb.ValidationException, "Cannot disassociate table %s in region %s because it has disassociation protection enabled. Disable disassociation protection first.", m.Name, regionOf(m))
	}
	if err := s.replicaBusy(m, now); err != nil {
		return err
	}
	return s.inUse(m, now)
}
