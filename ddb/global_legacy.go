package ddb

// The operations of global tables version 2017.11.29 (legacy), and the
// replica auto scaling operations of version 2019.11.21.

// GlobalTableNameInput is the request of DescribeGlobalTable and
// DescribeGlobalTableSettings; UpdateGlobalTableSettings' members other
// than the name are accepted and not read (see table/replica_legacy.go).
type GlobalTableNameInput struct {
	GlobalTableName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
}

// CreateGlobalTableInput is CreateGlobalTable's request.
type CreateGlobalTableInput struct {
	GlobalTableName  string          `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ReplicationGroup []LegacyReplica `ddb:"required"`
}

// LegacyReplica is a Region of a version 2017.11.29 global table.
type LegacyReplica struct {
	RegionName string `json:",omitempty"`
}

// UpdateGlobalTableInput is UpdateGlobalTable's request.
type UpdateGlobalTableInput struct {
	GlobalTableName string                `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ReplicaUpdates  []LegacyReplicaUpdate `ddb:"required"`
}

// LegacyReplicaUpdate is one entry of UpdateGlobalTable's ReplicaUpdates.
type LegacyReplicaUpdate struct {
	Create *LegacyReplica `json:",omitempty"`
	Delete *LegacyReplica `json:",omitempty"`
}

// ListGlobalTablesInput is ListGlobalTables' request.
type ListGlobalTablesInput struct {
	ExclusiveStartGlobalTableName string `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	Limit                         *int32 `json:",omitempty" ddb:"min=1"`
	RegionName                    string `json:",omitempty"`
}

// ListGlobalTablesOutput is ListGlobalTables' response.
type ListGlobalTablesOutput struct {
	GlobalTables []LegacyGlobalTable
}

// LegacyGlobalTable is one version 2017.11.29 global table.
type LegacyGlobalTable struct {
	GlobalTableName  string
	ReplicationGroup []LegacyReplica
}

// TableAutoScalingDescription is DescribeTableReplicaAutoScaling's answer:
// the global table's replicas, its own Region's included.
type TableAutoScalingDescription struct {
	TableName   string
	TableStatus string
	Replicas    []ReplicaAutoScalingDescription
}

// ReplicaAutoScalingDescription is one replica's auto scaling settings.
type ReplicaAutoScalingDescription struct {
	RegionName                                         string
	ReplicaStatus                                      string
	GlobalSecondaryIndexes                             []ReplicaGlobalSecondaryIndexAutoScalingDescription `json:",omitempty"`
	ReplicaProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription                     `json:",omitempty"`
	ReplicaProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription                     `json:",omitempty"`
}

// DescribeTableReplicaAutoScalingOutput is DescribeTableReplicaAutoScaling's response.
type DescribeTableReplicaAutoScalingOutput struct {
	TableAutoScalingDescription *TableAutoScalingDescription
}
