package ddb

// GlobalTableVersion is the version of global tables UpdateTable's
// ReplicaUpdates make.
const GlobalTableVersion = "2019.11.21"

// ReplicationGroupUpdate is one entry of UpdateTable.ReplicaUpdates: exactly
// one of its actions is expected (the service checks).
type ReplicationGroupUpdate struct {
	Create *CreateReplicationGroupMemberAction `json:",omitempty"`
	Update *UpdateReplicationGroupMemberAction `json:",omitempty"`
	Delete *DeleteReplicationGroupMemberAction `json:",omitempty"`
	// Disassociate takes the local replica out of its global table and
	// keeps it as a regional table (2026).
	Disassociate *DisassociateReplicationGroupMemberAction `json:",omitempty"`
}

// DisassociateReplicationGroupMemberAction disassociates the replica in
// RegionName, the Region the request is sent to.
type DisassociateReplicationGroupMemberAction struct {
	RegionName         string `ddb:"required"`
	DisassociationMode string `ddb:"required;enum=WAIT_FOR_REPLICATION"`
}

// CreateReplicationGroupMemberAction adds a replica in RegionName.
type CreateReplicationGroupMemberAction struct {
	RegionName string `ddb:"required"`
	ReplicaSettings
}

// UpdateReplicationGroupMemberAction changes a replica's own settings.
type UpdateReplicationGroupMemberAction struct {
	RegionName string `ddb:"required"`
	ReplicaSettings
}

// ReplicaSettings are the settings a replica may hold apart from its
// global table's.
type ReplicaSettings struct {
	KMSMasterKeyId                string                         `json:",omitempty"`
	ProvisionedThroughputOverride *ProvisionedThroughputOverride `json:",omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride    `json:",omitempty"`
	GlobalSecondaryIndexes        []ReplicaGlobalSecondaryIndex  `json:",omitempty" ddb:"len=1.."`
	TableClassOverride            string                         `json:",omitempty" ddb:"enum=STANDARD|STANDARD_INFREQUENT_ACCESS"`
}

// DeleteReplicationGroupMemberAction removes the replica in RegionName.
type DeleteReplicationGroupMemberAction struct {
	RegionName string `ddb:"required"`
}

// ProvisionedThroughputOverride is a replica's own read capacity.
type ProvisionedThroughputOverride struct {
	ReadCapacityUnits *int64 `json:",omitempty" ddb:"min=1"`
}

// OnDemandThroughputOverride is a replica's own on-demand read maximum.
type OnDemandThroughputOverride struct {
	MaxReadRequestUnits *int64 `json:",omitempty"`
}

// ReplicaGlobalSecondaryIndex is a replica's own settings for one global
// secondary index.
type ReplicaGlobalSecondaryIndex struct {
	IndexName                     string                         `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ProvisionedThroughputOverride *ProvisionedThroughputOverride `json:",omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride    `json:",omitempty"`
}

// ReplicaDescription is one other replica of a global table, as
// DescribeTable lists it.
type ReplicaDescription struct {
	RegionName                         string
	ReplicaArn                         string `json:",omitempty"` // a multi-account replica's
	ReplicaStatus                      string
	ReplicaInaccessibleDateTime        *float64                                 `json:",omitempty"`
	GlobalTableSettingsReplicationMode string                                   `json:",omitempty"`
	KMSMasterKeyId                     string                                   `json:",omitempty"`
	ProvisionedThroughputOverride      *ProvisionedThroughputOverride           `json:",omitempty"`
	OnDemandThroughputOverride         *OnDemandThroughputOverride              `json:",omitempty"`
	GlobalSecondaryIndexes             []ReplicaGlobalSecondaryIndexDescription `json:",omitempty"`
	ReplicaTableClassSummary           *TableClassSummary                       `json:",omitempty"`
}

// ReplicaGlobalSecondaryIndexDescription is a replica's own settings for
// one global secondary index.
type ReplicaGlobalSecondaryIndexDescription struct {
	IndexName                     string
	ProvisionedThroughputOverride *ProvisionedThroughputOverride `json:",omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughputOverride    `json:",omitempty"`
}

// GlobalTableWitnessGroupUpdate is one entry of UpdateTable's
// GlobalTableWitnessUpdates (multi-Region strong consistency).
type GlobalTableWitnessGroupUpdate struct {
	Create *WitnessRegion `json:",omitempty"`
	Delete *WitnessRegion `json:",omitempty"`
}

// WitnessRegion names the Region of a witness to create or delete.
type WitnessRegion struct {
	RegionName string `ddb:"required"`
}

// GlobalTableWitnessDescription is a global table's witness, as
// DescribeTable lists it.
type GlobalTableWitnessDescription struct {
	RegionName    string
	WitnessStatus string
}
