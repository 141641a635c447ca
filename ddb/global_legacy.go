package ddb

// The operations of global tables version 2017.11.29 (legacy), and the
// replica auto scaling operations of version 2019.11.21.

// GlobalTableNameInput is the request of DescribeGlobalTable and
// DescribeGlobalTableSettings.
type GlobalTableNameInput struct {
	GlobalTableName string `ddb:"required;len=3..255;namepattern;emptysays=TableName must be at least 3 characters long and at most 255 characters long"`
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
	GlobalTables                 []LegacyGlobalTable
	LastEvaluatedGlobalTableName string `json:",omitempty"`
}

// GlobalTableOutput is the response of CreateGlobalTable,
// UpdateGlobalTable and DescribeGlobalTable.
type GlobalTableOutput struct {
	GlobalTableDescription *GlobalTableDescription
}

// GlobalTableDescription is a version 2017.11.29 global table.
type GlobalTableDescription struct {
	GlobalTableName   string
	GlobalTableArn    string
	GlobalTableStatus string
	CreationDateTime  float64
	ReplicationGroup  []LegacyReplica
}

// UpdateGlobalTableSettingsInput is UpdateGlobalTableSettings' request.
type UpdateGlobalTableSettingsInput struct {
	GlobalTableName                                              string                                          `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	GlobalTableBillingMode                                       string                                          `json:",omitempty" ddb:"enum=PROVISIONED|PAY_PER_REQUEST"`
	GlobalTableProvisionedWriteCapacityUnits                     *int64                                          `json:",omitempty" ddb:"min=1"`
	GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate                      `json:",omitempty"`
	GlobalTableGlobalSecondaryIndexSettingsUpdate                []GlobalTableGlobalSecondaryIndexSettingsUpdate `json:",omitempty" ddb:"len=1..20"`
	ReplicaSettingsUpdate                                        []ReplicaSettingsUpdate                         `json:",omitempty" ddb:"len=1..50"`
}

// GlobalTableGlobalSecondaryIndexSettingsUpdate sets a global index's write
// capacity on every replica.
type GlobalTableGlobalSecondaryIndexSettingsUpdate struct {
	IndexName                                         string                     `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ProvisionedWriteCapacityUnits                     *int64                     `json:",omitempty" ddb:"min=1"`
	ProvisionedWriteCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate `json:",omitempty"`
}

// ReplicaSettingsUpdate is one replica's own settings.
type ReplicaSettingsUpdate struct {
	RegionName                                              string                                      `ddb:"required"`
	ReplicaProvisionedReadCapacityUnits                     *int64                                      `json:",omitempty" ddb:"min=1"`
	ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate                  `json:",omitempty"`
	ReplicaGlobalSecondaryIndexSettingsUpdate               []ReplicaGlobalSecondaryIndexSettingsUpdate `json:",omitempty" ddb:"len=1..20"`
	ReplicaTableClass                                       string                                      `json:",omitempty" ddb:"enum=STANDARD|STANDARD_INFREQUENT_ACCESS"`
}

// ReplicaGlobalSecondaryIndexSettingsUpdate is a replica's own read
// capacity of one global index.
type ReplicaGlobalSecondaryIndexSettingsUpdate struct {
	IndexName                                        string                     `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ProvisionedReadCapacityUnits                     *int64                     `json:",omitempty" ddb:"min=1"`
	ProvisionedReadCapacityAutoScalingSettingsUpdate *AutoScalingSettingsUpdate `json:",omitempty"`
}

// GlobalTableSettingsOutput is the response of DescribeGlobalTableSettings
// and UpdateGlobalTableSettings.
type GlobalTableSettingsOutput struct {
	GlobalTableName string
	ReplicaSettings []ReplicaSettingsDescription
}

// ReplicaSettingsDescription is one replica's settings.
type ReplicaSettingsDescription struct {
	RegionName                                         string
	ReplicaStatus                                      string
	ReplicaBillingModeSummary                          *BillingModeSummary                              `json:",omitempty"`
	ReplicaProvisionedReadCapacityUnits                *int64                                           `json:",omitempty"`
	ReplicaProvisionedWriteCapacityUnits               *int64                                           `json:",omitempty"`
	ReplicaProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription                  `json:",omitempty"`
	ReplicaProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription                  `json:",omitempty"`
	ReplicaGlobalSecondaryIndexSettings                []ReplicaGlobalSecondaryIndexSettingsDescription `json:",omitempty"`
	ReplicaTableClassSummary                           *TableClassSummary                               `json:",omitempty"`
}

// ReplicaGlobalSecondaryIndexSettingsDescription is one global index of a
// replica, with its capacity.
type ReplicaGlobalSecondaryIndexSettingsDescription struct {
	IndexName                                   string
	IndexStatus                                 string
	ProvisionedReadCapacityUnits                *int64                          `json:",omitempty"`
	ProvisionedWriteCapacityUnits               *int64                          `json:",omitempty"`
	ProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription `json:",omitempty"`
	ProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription `json:",omitempty"`
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
