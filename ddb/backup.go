package ddb

// The request and response shapes of backups, point-in-time recovery,
// resource policies and Kinesis streaming destinations, as on the wire.
// Timestamps are epoch seconds (JSON numbers), as DynamoDB sends them.

// PointInTimeRecoverySpecification turns point-in-time recovery on or off.
type PointInTimeRecoverySpecification struct {
	PointInTimeRecoveryEnabled *bool  `ddb:"required"`
	RecoveryPeriodInDays       *int32 `json:",omitempty" ddb:"min=1;max=35"`
}

// UpdateContinuousBackupsInput is UpdateContinuousBackups' request.
type UpdateContinuousBackupsInput struct {
	TableName                        string                            `ddb:"required;len=1..1024"`
	PointInTimeRecoverySpecification *PointInTimeRecoverySpecification `ddb:"required"`
}

// PointInTimeRecoveryDescription reports point-in-time recovery and its window.
type PointInTimeRecoveryDescription struct {
	PointInTimeRecoveryStatus  string
	EarliestRestorableDateTime *float64 `json:",omitempty"`
	LatestRestorableDateTime   *float64 `json:",omitempty"`
	RecoveryPeriodInDays       *int32   `json:",omitempty"`
}

// ContinuousBackupsDescription reports backups and point-in-time recovery.
type ContinuousBackupsDescription struct {
	ContinuousBackupsStatus        string
	PointInTimeRecoveryDescription PointInTimeRecoveryDescription
}

// DescribeContinuousBackupsOutput is the response of DescribeContinuousBackups
// and UpdateContinuousBackups.
type DescribeContinuousBackupsOutput struct {
	ContinuousBackupsDescription ContinuousBackupsDescription
}

// CreateBackupInput is CreateBackup's request.
type CreateBackupInput struct {
	TableName string `ddb:"required;len=1..1024"`
	// The pattern before the length (ack-api-quirks DDB-TABLE-457).
	BackupName string `ddb:"required;namepattern;len=3..255"`
}

// BackupDetails describes one backup.
type BackupDetails struct {
	BackupArn              string
	BackupName             string
	BackupSizeBytes        *int64 `json:",omitempty"`
	BackupStatus           string
	BackupType             string
	BackupCreationDateTime float64
	BackupExpiryDateTime   *float64 `json:",omitempty"`
}

// CreateBackupOutput is CreateBackup's response.
type CreateBackupOutput struct {
	BackupDetails BackupDetails
}

// BackupArnInput is the request of DescribeBackup and DeleteBackup.
type BackupArnInput struct {
	BackupArn string `ddb:"required;len=37..1024;emptysays=Invalid Backup ARN"`
}

// SourceTableDetails describes the table a backup was taken of.
type SourceTableDetails struct {
	TableName             string
	TableId               string
	TableArn              string
	TableSizeBytes        int64
	KeySchema             []KeySchemaElement
	TableCreationDateTime float64
	ProvisionedThroughput ProvisionedThroughputInfo
	OnDemandThroughput    *OnDemandThroughput `json:",omitempty"`
	ItemCount             int64
	BillingMode           string `json:",omitempty"`
}

// ProvisionedThroughputInfo is a provisioned throughput as a backup records it.
type ProvisionedThroughputInfo struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

// GlobalSecondaryIndexInfo is a global index as a backup records it.
type GlobalSecondaryIndexInfo struct {
	IndexName             string
	KeySchema             []KeySchemaElement
	Projection            Projection
	ProvisionedThroughput *ProvisionedThroughputInfo `json:",omitempty"`
	OnDemandThroughput    *OnDemandThroughput        `json:",omitempty"`
}

// LocalSecondaryIndexInfo is a local index as a backup records it.
type LocalSecondaryIndexInfo struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Projection Projection
}

// SourceTableFeatureDetails lists the features the source table had.
type SourceTableFeatureDetails struct {
	LocalSecondaryIndexes  []LocalSecondaryIndexInfo  `json:",omitempty"`
	GlobalSecondaryIndexes []GlobalSecondaryIndexInfo `json:",omitempty"`
	StreamDescription      *StreamSpecification       `json:",omitempty"`
	TimeToLiveDescription  *TimeToLiveDescription     `json:",omitempty"`
	SSEDescription         *SSEDescription            `json:",omitempty"`
	VectorIndexes          []VectorIndex              `json:",omitempty"` // VectorIndexInfo's members
}

// BackupDescription is a backup with its source table's details.
type BackupDescription struct {
	BackupDetails             BackupDetails
	SourceTableDetails        SourceTableDetails
	SourceTableFeatureDetails SourceTableFeatureDetails
}

// BackupDescriptionOutput is the response of DescribeBackup and DeleteBackup.
type BackupDescriptionOutput struct {
	BackupDescription BackupDescription
}

// ListBackupsInput is ListBackups' request.
type ListBackupsInput struct {
	TableName               string   `json:",omitempty" ddb:"len=1..1024"`
	Limit                   *int32   `json:",omitempty" ddb:"min=1;max=100"`
	TimeRangeLowerBound     *float64 `json:",omitempty"`
	TimeRangeUpperBound     *float64 `json:",omitempty"`
	ExclusiveStartBackupArn string   `json:",omitempty" ddb:"len=37..1024"`
	BackupType              string   `json:",omitempty" ddb:"enum=USER|SYSTEM|AWS_BACKUP|ALL"`
}

// BackupSummary is one entry of ListBackups.
type BackupSummary struct {
	TableName              string
	TableId                string
	TableArn               string
	BackupArn              string
	BackupName             string
	BackupCreationDateTime float64
	BackupExpiryDateTime   *float64 `json:",omitempty"`
	BackupStatus           string
	BackupType             string
	BackupSizeBytes        int64
}

// ListBackupsOutput is ListBackups' response.
type ListBackupsOutput struct {
	BackupSummaries        []BackupSummary
	LastEvaluatedBackupArn string `json:",omitempty"`
}

// RestoreOverrides are the members both restore operations accept to change
// what they restore. A nil index list restores every index; an empty one none.
type RestoreOverrides struct {
	BillingModeOverride           string                 `json:",omitempty" ddb:"enum=PROVISIONED|PAY_PER_REQUEST"`
	GlobalSecondaryIndexOverride  []GlobalSecondaryIndex `json:",omitempty"`
	LocalSecondaryIndexOverride   []LocalSecondaryIndex  `json:",omitempty"`
	ProvisionedThroughputOverride *ProvisionedThroughput `json:",omitempty"`
	OnDemandThroughputOverride    *OnDemandThroughput    `json:",omitempty"`
	SSESpecificationOverride      *SSESpecification      `json:",omitempty"`
	VectorIndexOverride           []VectorIndex          `json:",omitempty"`
}

// RestoreTableFromBackupInput is RestoreTableFromBackup's request.
type RestoreTableFromBackupInput struct {
	TargetTableName string `ddb:"required;len=3..255;namepattern;emptysays=TableName must be at least 3 characters long and at most 255 characters long"`
	BackupArn       string `ddb:"required;len=37..1024"`
	RestoreOverrides
}

// RestoreTableToPointInTimeInput is RestoreTableToPointInTime's request.
type RestoreTableToPointInTimeInput struct {
	SourceTableArn          string   `json:",omitempty" ddb:"len=1..1024"`
	SourceTableName         string   `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	TargetTableName         string   `ddb:"required;len=3..255;namepattern;emptysays=TableName must be at least 3 characters long and at most 255 characters long"`
	UseLatestRestorableTime *bool    `json:",omitempty"`
	RestoreDateTime         *float64 `json:",omitempty"`
	RestoreOverrides
}

// RestoreSummary says where a table being restored comes from.
type RestoreSummary struct {
	SourceBackupArn   string `json:",omitempty"`
	SourceTableArn    string `json:",omitempty"`
	RestoreDateTime   float64
	RestoreInProgress bool
}

// KinesisDataStreamDestination is one Kinesis streaming destination.
type KinesisDataStreamDestination struct {
	StreamArn                            string
	DestinationStatus                    string
	DestinationStatusDescription         string `json:",omitempty"`
	ApproximateCreationDateTimePrecision string `json:",omitempty"`
}

// DescribeKinesisStreamingDestinationOutput is DescribeKinesisStreamingDestination's response.
type DescribeKinesisStreamingDestinationOutput struct {
	TableName                     string
	KinesisDataStreamDestinations []KinesisDataStreamDestination
}

// PutResourcePolicyInput is PutResourcePolicy's request.
type PutResourcePolicyInput struct {
	ResourceArn                     string `ddb:"required;len=1..1283"`
	Policy                          string `ddb:"required;emptysays=One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json"`
	ExpectedRevisionId              string `json:",omitempty" ddb:"len=1..255"`
	ConfirmRemoveSelfResourceAccess bool   `json:",omitempty"`
}

// ResourceArnInput is GetResourcePolicy's request.
type ResourceArnInput struct {
	ResourceArn string `ddb:"required;len=1..1283"`
}

// DeleteResourcePolicyInput is DeleteResourcePolicy's request.
type DeleteResourcePolicyInput struct {
	ResourceArn        string `ddb:"required;len=1..1283"`
	ExpectedRevisionId string `json:",omitempty" ddb:"len=1..255"`
}

// ResourcePolicyOutput is the response of the resource policy operations.
type ResourcePolicyOutput struct {
	Policy     string `json:",omitempty"`
	RevisionId string `json:",omitempty"`
}
