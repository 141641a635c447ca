package ddb

// Replica auto scaling (UpdateTableReplicaAutoScaling and
// DescribeTableReplicaAutoScaling): settings of Application Auto Scaling
// that DynamoDB keeps with a global table's replicas.

// UpdateTableReplicaAutoScalingInput is UpdateTableReplicaAutoScaling's
// request.
type UpdateTableReplicaAutoScalingInput struct {
	TableName                                 string                                  `ddb:"required;tablename"`
	GlobalSecondaryIndexUpdates               []GlobalSecondaryIndexAutoScalingUpdate `json:",omitempty" ddb:"len=1.."`
	ProvisionedWriteCapacityAutoScalingUpdate *AutoScalingSettingsUpdate              `json:",omitempty"`
	ReplicaUpdates                            []ReplicaAutoScalingUpdate              `json:",omitempty" ddb:"len=1.."`
}

// UpdateTableReplicaAutoScalingOutput is its response.
type UpdateTableReplicaAutoScalingOutput struct {
	TableAutoScalingDescription *TableAutoScalingDescription
}

// GlobalSecondaryIndexAutoScalingUpdate changes a global index's write
// auto scaling on every replica.
type GlobalSecondaryIndexAutoScalingUpdate struct {
	IndexName                                 string                     `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ProvisionedWriteCapacityAutoScalingUpdate *AutoScalingSettingsUpdate `json:",omitempty"`
}

// ReplicaAutoScalingUpdate changes one replica's read auto scaling.
type ReplicaAutoScalingUpdate struct {
	RegionName                                      string                                         `ddb:"required"`
	ReplicaGlobalSecondaryIndexUpdates              []ReplicaGlobalSecondaryIndexAutoScalingUpdate `json:",omitempty"`
	ReplicaProvisionedReadCapacityAutoScalingUpdate *AutoScalingSettingsUpdate                     `json:",omitempty"`
}

// ReplicaGlobalSecondaryIndexAutoScalingUpdate changes a replica's read
// auto scaling of one global index.
type ReplicaGlobalSecondaryIndexAutoScalingUpdate struct {
	IndexName                                string                     `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ProvisionedReadCapacityAutoScalingUpdate *AutoScalingSettingsUpdate `json:",omitempty"`
}

// AutoScalingSettingsUpdate sets the auto scaling of one capacity.
type AutoScalingSettingsUpdate struct {
	AutoScalingDisabled *bool                    `json:",omitempty"`
	AutoScalingRoleArn  *string                  `json:",omitempty" ddb:"len=1..1600"`
	MaximumUnits        *int64                   `json:",omitempty" ddb:"min=1"`
	MinimumUnits        *int64                   `json:",omitempty" ddb:"min=1"`
	ScalingPolicyUpdate *AutoScalingPolicyUpdate `json:",omitempty"`
}

// AutoScalingPolicyUpdate is a target tracking scaling policy.
type AutoScalingPolicyUpdate struct {
	PolicyName                               *string                                              `json:",omitempty" ddb:"len=1..256"`
	TargetTrackingScalingPolicyConfiguration *AutoScalingTargetTrackingScalingPolicyConfiguration `ddb:"required"`
}

// AutoScalingTargetTrackingScalingPolicyConfiguration is a policy's target
// (a utilization percentage) and cooldowns (seconds).
type AutoScalingTargetTrackingScalingPolicyConfiguration struct {
	DisableScaleIn   *bool    `json:",omitempty"`
	ScaleInCooldown  *int32   `json:",omitempty"`
	ScaleOutCooldown *int32   `json:",omitempty"`
	TargetValue      *float64 `ddb:"required"`
}

// AutoScalingSettingsDescription is the auto scaling of one capacity.
type AutoScalingSettingsDescription struct {
	AutoScalingDisabled *bool                          `json:",omitempty"`
	AutoScalingRoleArn  *string                        `json:",omitempty"`
	MaximumUnits        *int64                         `json:",omitempty"`
	MinimumUnits        *int64                         `json:",omitempty"`
	ScalingPolicies     []AutoScalingPolicyDescription `json:",omitempty"`
}

// AutoScalingPolicyDescription is a scaling policy.
type AutoScalingPolicyDescription struct {
	PolicyName                               *string                                              `json:",omitempty"`
	TargetTrackingScalingPolicyConfiguration *AutoScalingTargetTrackingScalingPolicyConfiguration `json:",omitempty"`
}

// ReplicaGlobalSecondaryIndexAutoScalingDescription is a replica's auto
// scaling of one global index.
type ReplicaGlobalSecondaryIndexAutoScalingDescription struct {
	IndexName                                   string
	IndexStatus                                 string                          `json:",omitempty"`
	ProvisionedReadCapacityAutoScalingSettings  *AutoScalingSettingsDescription `json:",omitempty"`
	ProvisionedWriteCapacityAutoScalingSettings *AutoScalingSettingsDescription `json:",omitempty"`
}
