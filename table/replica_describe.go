package table

import (
	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
)

// replicaStatus is the ReplicaStatus of m's replica r at now: CREATING
// until its initial copy is done and Options.TransientDelay has passed,
// UPDATING and DELETING for TransientDelay, then ACTIVE, or "" once a
// deleted replica is no longer listed.
func (s *Service) replicaStatus(m *tableMeta, r replicaMeta, now int64) string {
	transient := now < r.Since+s.opts.TransientDelay.Nanoseconds()
	switch r.Status {
	case replicaCreating:
		if transient || !s.copied(m, r) {
			return replicaCreating
		}
	case replicaUpdating:
		if transient {
			return replicaUpdating
		}
	case replicaDeleting:
		if transient {
			return replicaDeleting
		}
		return ""
	}
	return replicaActive
}

// copied reports whether replica r of m's global table has received its
// initial copy (or its source or itself no longer exists).
func (s *Service) copied(m *tableMeta, r replicaMeta) bool {
	src, err1 := s.catalog.get(s.db, memberScope(m, r.CopyFrom), m.Name)
	dst, err2 := s.catalog.get(s.db, memberScope(m, r.Region), m.Name)
	if err1 != nil || err2 != nil || src == nil || dst == nil {
		return true
	}
	done := true
	err := s.db.View(func(tx *store.Tx) error {
		_, copied, ok := replication.Watermark(tx, src.ID, dst.ID)
		done = copied || !ok
		return nil
	})
	if err != nil {
		return true // as when the catalog cannot be read: a description never fails on it
	}
	return done
}

// describeReplicas fills in d the global table members of m: its version,
// settings mode and the other replicas (never itself), with their
// overrides; a regional table has none of these members.
func (s *Service) describeReplicas(d *ddb.TableDescription, m *tableMeta, now int64) {
	if m.legacy() { // a version 2017.11.29 global table's member lists none (replica_legacy.go)
		return
	}
	var out []ddb.ReplicaDescription
	if m.multiAccount() {
		s.reauthorize(m) // replica_authorize.go: policies may have changed on another front-end
	}
	for _, r := range m.Replicas {
		st := s.replicaStatus(m, r, now)
		if st == "" {
			continue
		}
		rd := ddb.ReplicaDescription{RegionName: r.Region, ReplicaStatus: st, GlobalTableSettingsReplicationMode: settingsMode(m)}
		if r.Account != "" && st == replicaActive {
			s.describeDenied(&rd, m, r)
		}
		if r.Account != "" {
			rd.ReplicaArn = (&tableMeta{Region: access.Scope(r.Account, r.Region), Name: m.Name}).arn()
		}
		rd.KMSMasterKeyId = r.KMSKey
		if r.TableClass != "" {
			rd.ReplicaTableClassSummary = &ddb.TableClassSummary{TableClass: r.TableClass}
		}
		if r.ReadCapacity > 0 {
			rd.ProvisionedThroughputOverride = &ddb.ProvisionedThroughputOverride{ReadCapacityUnits: pointer(r.ReadCapacity)}
		}
		if r.MaxRead > 0 {
			rd.OnDemandThroughputOverride = &ddb.OnDemandThroughputOverride{MaxReadRequestUnits: pointer(r.MaxRead)}
		}
		rd.GlobalSecondaryIndexes = describeIndexOverrides(m, r)
		out = append(out, rd)
	}
	if len(out) == 0 {
		describeGlobalSettings(d, m)
		return
	}
	d.GlobalTableVersion = ddb.GlobalTableVersion
	d.Replicas = out
	d.GlobalTableSettingsReplicationMode = settingsMode(m)
	s.describeStrong(d, m, now)
	describeGlobalSettings(d, m)
}

// settingsMode is the GlobalTableSettingsReplicationMode of m's global
// table: ENABLED for a multi-account one, ENABLED_WITH_OVERRIDES otherwise.
func settingsMode(m *tableMeta) string {
	if m.multiAccount() {
		return "ENABLED"
	}
	return "ENABLED_WITH_OVERRIDES"
}

// describeIndexOverrides lists replica r's overrides of m's global indexes
// that still exist, in m's index order.
func describeIndexOverrides(m *tableMeta, r replicaMeta) []ddb.ReplicaGlobalSecondaryIndexDescription {
	var out []ddb.ReplicaGlobalSecondaryIndexDescription
	for _, ix := range m.GlobalSecondaryIndexes {
		o := r.index(ix.Name)
		if o.ReadCapacity == 0 && o.MaxRead == 0 {
			continue
		}
		d := ddb.ReplicaGlobalSecondaryIndexDescription{IndexName: ix.Name}
		if o.ReadCapacity > 0 {
			d.ProvisionedThroughputOverride = &ddb.ProvisionedThroughputOverride{ReadCapacityUnits: pointer(o.ReadCapacity)}
		}
		if o.MaxRead > 0 {
			d.OnDemandThroughputOverride = &ddb.OnDemandThroughputOverride{MaxReadRequestUnits: pointer(o.MaxRead)}
		}
		out = append(out, d)
	}
	return out
}
