package table

import (
	"context"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// Global tables, version 2019.11.21: UpdateTable's ReplicaUpdates add,
// change and remove replicas of a table in other Regions of the same
// account. Each replica is a full table in its Region; every member's
// definition lists the others (Replicas), and package replication keeps
// their items in step (replica_links.go).
//
// DynamoDB's refusals below are quoted as the service returns them (the
// service's own texts, as recorded against DynamoDB; "a the" is its typo).

// replicaMeta is one other replica of a global table, as every member's
// definition lists it.
type replicaMeta struct {
	Region string // the replica's Region
	// Account is the replica's account in a multi-account global table
	// (replica_accounts.go), "" when it is the listing table's.
	Account string
	Status  string // CREATING, UPDATING, ACTIVE or DELETING, as last set
	Since   int64  // when Status was set, Unix nanoseconds
	// CopyFrom is, while the replica is CREATING, the Region whose replica
	// copies its items to it.
	CopyFrom   string
	TableClass string // TableClassOverride, "" when it inherits the table's
	// KMSKey is the replica's own KMS key (KMSMasterKeyId), "" when it
	// uses the table's.
	KMSKey       string
	ReadCapacity int64 // ProvisionedThroughputOverride, 0 when it inherits
	MaxRead      int64 // OnDemandThroughputOverride, 0 when it inherits
	// Indexes are the replica's overrides of its global indexes' reads.
	Indexes []replicaIndexOverride
}

// replicaIndexOverride is a replica's own read settings for one global
// index; it is stored in the catalog as is (catalog_record.go).
type replicaIndexOverride struct {
	Name         string `json:"Name"`
	ReadCapacity int64  `json:"ReadCapacity,omitempty"` // 0 when it inherits
	MaxRead      int64  `json:"MaxRead,omitempty"`      // 0 when it inherits
}

// Replica statuses this package sets.
const (
	replicaCreating = "CREATING"
	replicaUpdating = "UPDATING"
	replicaActive   = "ACTIVE"
	replicaDeleting = "DELETING"
)

// replicaAction is ReplicaUpdates reduced to what the call does.
type replicaAction struct {
	kind    string // "Create", "Update" or "Delete"
	regions []string
	create  []*ddb.CreateReplicationGroupMemberAction // by regions' order (Create)
	update  []*ddb.UpdateReplicationGroupMemberAction // (Update)
}

// parseReplicaUpdates checks in's ReplicaUpdates as DynamoDB does before it
// looks at any table: alone in the request, one kind of action, at most one
// replica created or deleted (identical actions count once) unless many
// says a STRONG global table is made or dissolved.
func parseReplicaUpdates(in *ddb.UpdateTableInput, many bool) (*replicaAction, error) {
	if in.BillingMode != "" || in.ProvisionedThroughput != nil || len(in.GlobalSecondaryIndexUpdates) > 0 || in.StreamSpecification != nil ||
		in.SSESpecification != nil || in.TableClass != "" || in.DeletionProtectionEnabled != nil || in.OnDemandThroughput != nil ||
		in.WarmThroughput != nil || len(in.AttributeDefinitions) > 0 {
		if strongRequest(in) {
			return nil, ddb.Errorf(ddb.ValidationException, "Requests that modify replicas or witnesses must not also modify other fields")
		}
		return nil, invalid("Replica modification must be the only operation in the request")
	}
	a := &replicaAction{}
	for _, u := range in.ReplicaUpdates {
		kind, region, err := replicaUpdateKind(u)
		if err != nil {
			return nil, err
		}
		if a.kind != "" && a.kind != kind {
			return nil, ddb.Errorf(ddb.ValidationException, "Update table operation with more than one type of replica actions not allowed")
		}
		a.kind = kind
		if slices.Contains(a.regions, region) {
			continue
		}
		a.regions = append(a.regions, region)
		a.create = append(a.create, u.Create)
		a.update = append(a.update, u.Update)
	}
	if a.kind != "Update" && len(a.regions) > 1 && !many {
		return nil, ddb.Errorf(ddb.ValidationException, "Update table operation with more than one create or delete replica actions not allowed")
	}
	return a, nil
}

// replicaUpdateKind returns the one action u holds and its Region.
func replicaUpdateKind(u ddb.ReplicationGroupUpdate) (kind, region string, err error) {
	n := 0
	if u.Create != nil {
		n, kind, region = n+1, "Create", u.Create.RegionName
	}
	if u.Update != nil && !noSettings(u.Update.ReplicaSettings) { // a Region alone asks for nothing
		n, kind, region = n+1, "Update", u.Update.RegionName
	}
	if u.Delete != nil {
		n, kind, region = n+1, "Delete", u.Delete.RegionName
	}
	if u.Disassociate != nil {
		n, kind, region = n+1, "Disassociate", u.Disassociate.RegionName
	}
	switch {
	case n == 0:
		return "", "", ddb.Errorf(ddb.ValidationException, "There are no actions specified in the Replica Update Action of the request.")
	case n > 1:
		return "", "", ddb.Errorf(ddb.ValidationException, "Update table operation with more than one type of replica actions not allowed")
	}
	return kind, region, nil
}

// noSettings reports whether s sets nothing but index overrides that set
// nothing.
func noSettings(s ddb.ReplicaSettings) bool {
	for _, g := range s.GlobalSecondaryIndexes {
		if g.ProvisionedThroughputOverride != nil || g.OnDemandThroughputOverride != nil {
			return false
		}
	}
	return s.KMSMasterKeyId == "" && s.ProvisionedThroughputOverride == nil && s.OnDemandThroughputOverride == nil && s.TableClassOverride == ""
}

// checkReplicaRegions checks the action's Regions against table m (in
// scope) and its replicas.
func checkReplicaRegions(m *tableMeta, a *replicaAction) error {
	_, own := access.SplitScope(m.Region)
	for _, r := range a.regions {
		if r == own && a.kind != "Update" {
			return ddb.Errorf(ddb.ValidationException, "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
		}
		if !slices.Contains(globalTableRegions(), r) {
			return ddb.Errorf(ddb.ValidationException, "Region %s is not supported. The latest version of global tables are only supported in the following regions: [%s]", r, strings.Join(globalTableRegions(), ", "))
		}
		if a.kind == "Create" && m.replica(r) != nil { // a member, or one still being deleted
			return replicaExists(m.Name)
		}
	}
	return nil
}

// checkReplicaMembers refuses an Update or Delete of a Region that holds no
// replica of m's global table (or one being deleted).
func checkReplicaMembers(m *tableMeta, a *replicaAction) error {
	var missing []string
	for _, r := range a.regions {
		if e := m.replica(r); a.kind != "Create" && (e == nil || e.Status == replicaDeleting) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return ddb.Errorf(ddb.ValidationException, "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [%s].", strings.Join(missing, ", "))
	}
	return nil
}

// replicaExists is the refusal of a replica whose Region already has the table.
func replicaExists(name string) error {
	return ddb.Errorf(ddb.ValidationException, "Failed to create a the new replica of table with name: ‘%s’ because one or more replicas already existed as tables.", name)
}

// replica returns m's entry for the replica in region, or nil.
func (m *tableMeta) replica(region string) *replicaMeta {
	for i := range m.Replicas {
		if m.Replicas[i].Region == region {
			return &m.Replicas[i]
		}
	}
	return nil
}

// memberScope is the scope of the replica of m's global table in region:
// in m's account, or in the one m's entry for it names.
func memberScope(m *tableMeta, region string) string {
	account, _ := access.SplitScope(m.Region)
	if e := m.replica(region); e != nil && e.Account != "" {
		account = e.Account
	}
	return access.Scope(account, region)
}

// replicaBusy refuses a replica change while another is in progress: a
// replica still CREATING, UPDATING or DELETING.
func (s *Service) replicaBusy(m *tableMeta, now int64) error {
	for _, r := range m.Replicas {
		if st := s.replicaStatus(m, r, now); st != replicaActive && st != "" {
			return ddb.Errorf(ddb.ResourceInUseException, "The resource which you are attempting to change is in use.")
		}
	}
	return nil
}

// updateReplicas is UpdateTable with ReplicaUpdates.
func (s *Service) updateReplicas(ctx context.Context, m *tableMeta, in *ddb.UpdateTableInput) (*ddb.TableOutput, error) {
	a, err := parseReplicaUpdates(in, in.MultiRegionConsistency == "STRONG" || m.Strong)
	if err != nil {
		return nil, err
	}
	if m.legacy() { // replica_legacy_rules.go
		return nil, errLegacyMember(m)
	}
	now := s.now().UnixNano()
	if err := checkMultiAccountUpdates(m, a); err != nil {
		return nil, err
	}
	if a.kind == "Disassociate" {
		return s.replicaOutput(s.disassociate(ctx, m, a.regions[0], now))
	}
	if err := checkReplicaRegions(m, a); err != nil {
		return nil, err
	}
	if err := s.replicaBusy(m, now); err != nil {
		return nil, err
	}
	if err := s.inUse(m, now); err != nil {
		return nil, err
	}
	if err := checkReplicaMembers(m, a); err != nil {
		return nil, err
	}
	if err := checkStrong(m, in, a); err != nil {
		return nil, err
	}
	if a.kind == "Create" {
		if err := s.checkNoBulkLoad(m); err != nil { // transfer_bulk_global.go
			return nil, err
		}
	}
	if in.MultiRegionConsistency == "STRONG" {
		if err := s.checkStrongTable(m); err != nil { // replica_strong_rules.go
			return nil, err
		}
	}
	var next *tableMeta
	switch {
	case a.kind != "Update" && (in.MultiRegionConsistency == "STRONG" || m.Strong):
		next, err = s.applyStrong(ctx, m, in, a, now)
	case a.kind == "Create":
		next, err = s.createReplica(ctx, m, a.regions[0], a.create[0], now)
	case a.kind == "Delete":
		next, err = s.deleteReplica(ctx, m, a.regions[0], now)
	default:
		next, err = s.updateReplicaSettings(ctx, m, a, now)
	}
	return s.replicaOutput(next, err)
}

// replicaOutput is UpdateTable's answer to a replica change that left the
// table next (or failed with err): UPDATING for Options.TransientDelay.
func (s *Service) replicaOutput(next *tableMeta, err error) (*ddb.TableOutput, error) {
	if err != nil {
		return nil, err
	}
	stats, err := s.stats(next)
	if err != nil {
		return nil, err
	}
	d := s.describe(next, stats)
	if s.opts.TransientDelay > 0 {
		d.TableStatus = "UPDATING"
	}
	return &ddb.TableOutput{TableDescription: d}, nil
}

// globalTableRegions are the Regions a replica may be created in: AWS's
// commercial Regions. DynamoDB's refusal lists its own set, which begins
// "ap-south-2, ap-south-1, eu-south-1, eu-south-2, me-ce"; the rest of its
// order is not known here.
func globalTableRegions() []string {
	return []string{"ap-south-2", "ap-south-1", "eu-south-1", "eu-south-2", "me-central-1", "il-central-1",
		"ca-central-1", "ca-west-1", "eu-central-1", "eu-central-2", "us-west-1", "us-west-2", "af-south-1",
		"eu-north-1", "eu-west-3", "eu-west-2", "eu-west-1", "ap-northeast-3", "ap-northeast-2", "ap-northeast-1",
		"me-south-1", "sa-east-1", "ap-east-1", "ap-southeast-1", "ap-southeast-2", "ap-southeast-3",
		"ap-southeast-4", "ap-southeast-5", "ap-southeast-7", "mx-central-1", "us-east-1", "us-east-2"}
}

// checkReplicaStream refuses to disable the stream of a global table's
// replica: replication reads it.
func checkReplicaStream(m *tableMeta, in *ddb.UpdateTableInput) error {
	if len(m.Replicas) > 0 && in.StreamSpecification != nil && in.StreamSpecification.StreamEnabled != nil && !*in.StreamSpecification.StreamEnabled {
		return ddb.Errorf(ddb.ValidationException, "Disabling Stream is not allowed for a Global Table replica.")
	}
	return nil
}
