package ddb

import "encoding/json"

// The request and response shapes of DynamoDB's control-plane operations, with
// JSON names exactly as on the wire and `ddb` tags carrying the API's member
// constraints (checked by api before a call reaches the service).
//
// The validator reports failed constraints in field order, so where the
// service's order is recorded the fields follow it (ack-api-quirks
// DDB-TABLE-457, 2026: an AttributeDefinition's type before its name,
// WriteCapacityUnits before ReadCapacityUnits; paritysuite's conformance
// suite, 2026: CreateTable's global indexes before its local ones), and an
// enum lists its values in the service's order (Select's, AttributeType's
// and StreamViewType's as those record them).

// KeySchemaElement is one attribute of a key schema.
type KeySchemaElement struct {
	AttributeName string `ddb:"required;len=1..255"`
	KeyType       string `ddb:"required;enum=HASH|RANGE"`
}

// AttributeDefinition declares the type of a key attribute.
type AttributeDefinition struct {
	AttributeType string `ddb:"required;enum=B|N|S"`
	AttributeName string `ddb:"required;len=1..255"`
}

// ProvisionedThroughput is the read and write capacity of a provisioned table or index.
type ProvisionedThroughput struct {
	WriteCapacityUnits *int64 `ddb:"required;min=1"`
	ReadCapacityUnits  *int64 `ddb:"required;min=1"`
}

// OnDemandThroughput caps an on-demand table's request units (-1 = no cap).
type OnDemandThroughput struct {
	MaxReadRequestUnits  *int64 `json:",omitempty"`
	MaxWriteRequestUnits *int64 `json:",omitempty"`
}

// WarmThroughput asks a table or a global index to be ready for this many
// read and write units per second at once (pre-warming); it is never
// lowered. Its members carry no constraint for the validator: DynamoDB
// answers 0 or -1 with the table's (or index's) own refusal of a value
// below what it serves (ack-api-quirks DDB-TABLE-039 and DDB-TABLE-457,
// recorded from the service).
type WarmThroughput struct {
	ReadUnitsPerSecond  *int64 `json:",omitempty"`
	WriteUnitsPerSecond *int64 `json:",omitempty"`
}

// TableWarmThroughputDescription reports a table's or a global index's
// warm throughput.
type TableWarmThroughputDescription struct {
	ReadUnitsPerSecond  int64
	WriteUnitsPerSecond int64
	Status              string
}

// Projection says which attributes an index copies.
type Projection struct {
	ProjectionType   string   `json:",omitempty" ddb:"enum=ALL|KEYS_ONLY|INCLUDE"`
	NonKeyAttributes []string `json:",omitempty" ddb:"len=1..20"`
}

// LocalSecondaryIndex is an LSI definition in CreateTable.
type LocalSecondaryIndex struct {
	IndexName  string             `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	KeySchema  []KeySchemaElement `ddb:"required;len=1..2"`
	Projection *Projection        `ddb:"required"`
}

// GlobalSecondaryIndex is a GSI definition in CreateTable or an UpdateTable Create.
type GlobalSecondaryIndex struct {
	IndexName             string                 `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	KeySchema             []KeySchemaElement     `ddb:"required;len=1..8"`
	Projection            *Projection            `ddb:"required"`
	ProvisionedThroughput *ProvisionedThroughput `json:",omitempty"`
	OnDemandThroughput    *OnDemandThroughput    `json:",omitempty"`
	WarmThroughput        *WarmThroughput        `json:",omitempty"`
}

// Tag is a key/value label on a table.
//
// Its members carry no constraints for the validator: DynamoDB checks
// tags itself, in its own words (table.checkTags), and a Value of "" is a
// tag with an empty value. A request's Tag remembers which member it left
// out (or sent as null): DynamoDB refuses that naming it null ("Key: null").
type Tag struct {
	Key   string
	Value string

	noKey, noValue bool
}

// KeyMissing reports whether the request that sent t left its Key out.
func (t Tag) KeyMissing() bool { return t.noKey }

// ValueMissing reports whether the request that sent t left its Value out.
func (t Tag) ValueMissing() bool { return t.noValue }

// UnmarshalJSON decodes a Tag, noting a Key or Value absent or null.
func (t *Tag) UnmarshalJSON(b []byte) error {
	var w struct{ Key, Value *string }
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = Tag{noKey: w.Key == nil, noValue: w.Value == nil}
	if w.Key != nil {
		t.Key = *w.Key
	}
	if w.Value != nil {
		t.Value = *w.Value
	}
	return nil
}

// StreamSpecification turns DynamoDB Streams on or off for a table.
type StreamSpecification struct {
	StreamEnabled  *bool  `ddb:"required"`
	StreamViewType string `json:",omitempty" ddb:"enum=OLD_IMAGE|KEYS_ONLY|NEW_AND_OLD_IMAGES|NEW_IMAGE"`
}

// SSESpecification asks for server-side encryption settings (recorded, not enforced).
type SSESpecification struct {
	Enabled        *bool  `json:",omitempty"`
	SSEType        string `json:",omitempty" ddb:"enum=AES256|KMS"`
	KMSMasterKeyId string `json:",omitempty" ddb:"len=1.."`
}

// CreateTableInput is CreateTable's request. AttributeDefinitions and
// KeySchema may be left out of a multi-account replica's request
// (GlobalTableSourceArn): it takes the source's.
type CreateTableInput struct {
	TableName                 string                 `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	AttributeDefinitions      []AttributeDefinition  `ddb:"requiredunless=GlobalTableSourceArn"`
	KeySchema                 []KeySchemaElement     `ddb:"requiredunless=GlobalTableSourceArn;len=1..2"`
	GlobalSecondaryIndexes    []GlobalSecondaryIndex `json:",omitempty"`
	LocalSecondaryIndexes     []LocalSecondaryIndex  `json:",omitempty"`
	BillingMode               string                 `json:",omitempty" ddb:"enum=PROVISIONED|PAY_PER_REQUEST"`
	ProvisionedThroughput     *ProvisionedThroughput `json:",omitempty"`
	OnDemandThroughput        *OnDemandThroughput    `json:",omitempty"`
	WarmThroughput            *WarmThroughput        `json:",omitempty"`
	StreamSpecification       *StreamSpecification   `json:",omitempty"`
	SSESpecification          *SSESpecification      `json:",omitempty"`
	Tags                      []Tag                  `json:",omitempty"`
	TableClass                string                 `json:",omitempty"` // checked by table, in its own words
	DeletionProtectionEnabled *bool                  `json:",omitempty"`
	ResourcePolicy            string                 `json:",omitempty" ddb:"emptysays=One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json"`
	VectorIndexes             []VectorIndex          `json:",omitempty"`
	// GlobalTableSourceArn makes the table a replica of a multi-account
	// global table (2026), with GlobalTableSettingsReplicationMode ENABLED.
	GlobalTableSourceArn               string `json:",omitempty"`
	GlobalTableSettingsReplicationMode string `json:",omitempty" ddb:"enum=ENABLED|DISABLED|ENABLED_WITH_OVERRIDES"`
}

// TableOutput is the response of CreateTable, UpdateTable and DeleteTable.
type TableOutput struct {
	TableDescription *TableDescription
}

// DeleteTableOutput is DeleteTable's response.
type DeleteTableOutput struct {
	TableDescription *DeletedTableDescription
}

// DeletedTableDescription is the TableDescription DeleteTable returns: fewer
// members than DescribeTable's. DynamoDB leaves out KeySchema,
// AttributeDefinitions, CreationDateTime and both index lists (checked
// against DynamoDB by other projects' suites). Stream members are kept as the
// API reference's response syntax lists them; that is not verified.
type DeletedTableDescription struct {
	TableName             string
	TableStatus           string
	ProvisionedThroughput *ProvisionedThroughputDescription
	TableSizeBytes        int64
	ItemCount             int64
	TableArn              string
	TableId               string
	BillingModeSummary    *BillingModeSummary  `json:",omitempty"`
	StreamSpecification   *StreamSpecification `json:",omitempty"`
	LatestStreamLabel     string               `json:",omitempty"`
	LatestStreamArn       string               `json:",omitempty"`
}

// DescribeTableOutput is DescribeTable's response.
type DescribeTableOutput struct {
	Table *TableDescription
}

// TableNameInput is the request of DescribeTable and DeleteTable (the name may be an ARN).
// A name sent as "" breaks the name's rules (ack-api-quirks DDB-TABLE-457:
// DescribeTable "length >= 3; pattern", recorded 2026-10-09).
type TableNameInput struct {
	TableName string `ddb:"required;tablename;checkempty"`
}

// ProvisionedThroughputDescription reports a table's or index's throughput.
type ProvisionedThroughputDescription struct {
	NumberOfDecreasesToday int64
	ReadCapacityUnits      int64
	WriteCapacityUnits     int64
	LastIncreaseDateTime   *float64 `json:",omitempty"`
	LastDecreaseDateTime   *float64 `json:",omitempty"`
}

// BillingModeSummary reports a table's billing mode.
type BillingModeSummary struct {
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime *float64 `json:",omitempty"`
}

// IndexDescription describes a local or global secondary index.
type IndexDescription struct {
	IndexName             string
	KeySchema             []KeySchemaElement
	Projection            Projection
	IndexStatus           string                            `json:",omitempty"`
	Backfilling           *bool                             `json:",omitempty"`
	ProvisionedThroughput *ProvisionedThroughputDescription `json:",omitempty"`
	OnDemandThroughput    *OnDemandThroughput               `json:",omitempty"`
	// WarmThroughput is a global index's (nil for a local index).
	WarmThroughput *TableWarmThroughputDescription `json:",omitempty"`
	IndexSizeBytes int64
	ItemCount      int64
	IndexArn       string
}

// SSEDescription reports encryption at rest.
type SSEDescription struct {
	Status          string
	SSEType         string `json:",omitempty"`
	KMSMasterKeyArn string `json:",omitempty"`
}

// TableClassSummary reports a table's class.
type TableClassSummary struct {
	TableClass string
}

// TableDescription is DynamoDB's description of a table.
type TableDescription struct {
	AttributeDefinitions      []AttributeDefinition
	TableName                 string
	KeySchema                 []KeySchemaElement
	TableStatus               string
	CreationDateTime          float64
	ProvisionedThroughput     *ProvisionedThroughputDescription
	TableSizeBytes            int64
	ItemCount                 int64
	TableArn                  string
	TableId                   string
	BillingModeSummary        *BillingModeSummary             `json:",omitempty"`
	LocalSecondaryIndexes     []IndexDescription              `json:",omitempty"`
	GlobalSecondaryIndexes    []IndexDescription              `json:",omitempty"`
	StreamSpecification       *StreamSpecification            `json:",omitempty"`
	LatestStreamLabel         string                          `json:",omitempty"`
	LatestStreamArn           string                          `json:",omitempty"`
	SSEDescription            *SSEDescription                 `json:",omitempty"`
	TableClassSummary         *TableClassSummary              `json:",omitempty"`
	OnDemandThroughput        *OnDemandThroughput             `json:",omitempty"`
	WarmThroughput            *TableWarmThroughputDescription `json:",omitempty"`
	RestoreSummary            *RestoreSummary                 `json:",omitempty"`
	DeletionProtectionEnabled bool
	// DisassociationProtectionEnabled is a same-account MREC replica's.
	DisassociationProtectionEnabled *bool `json:",omitempty"`
	// A global table's replica (ddb/replicas.go) describes the others.
	GlobalTableVersion                 string                          `json:",omitempty"`
	Replicas                           []ReplicaDescription            `json:",omitempty"`
	GlobalTableSettingsReplicationMode string                          `json:",omitempty"`
	MultiRegionConsistency             string                          `json:",omitempty"`
	GlobalTableWitnesses               []GlobalTableWitnessDescription `json:",omitempty"`
	VectorIndexes                      []VectorIndexDescription        `json:",omitempty"`
}

// ListTablesInput is ListTables' request.
type ListTablesInput struct {
	ExclusiveStartTableName string `json:",omitempty" ddb:"namepattern;len=3..255"` // the pattern first (DDB-TABLE-457)
	Limit                   *int32 `json:",omitempty" ddb:"min=1;max=100"`
}

// ListTablesOutput is ListTables' response.
type ListTablesOutput struct {
	TableNames             []string
	LastEvaluatedTableName string `json:",omitempty"`
}

// GlobalSecondaryIndexUpdate is one entry of UpdateTable.GlobalSecondaryIndexUpdates.
type GlobalSecondaryIndexUpdate struct {
	Create *GlobalSecondaryIndex             `json:",omitempty"`
	Update *UpdateGlobalSecondaryIndexAction `json:",omitempty"`
	Delete *struct {
		IndexName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	} `json:",omitempty"`
}

// UpdateGlobalSecondaryIndexAction changes one global index's throughput
// settings.
type UpdateGlobalSecondaryIndexAction struct {
	IndexName             string                 `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	ProvisionedThroughput *ProvisionedThroughput `json:",omitempty"`
	OnDemandThroughput    *OnDemandThroughput    `json:",omitempty"`
	WarmThroughput        *WarmThroughput        `json:",omitempty"`
}

// UpdateTableInput is UpdateTable's request.
type UpdateTableInput struct {
	TableName                   string                          `ddb:"required;tablename"`
	AttributeDefinitions        []AttributeDefinition           `json:",omitempty"`
	BillingMode                 string                          `json:",omitempty" ddb:"enum=PROVISIONED|PAY_PER_REQUEST"`
	ProvisionedThroughput       *ProvisionedThroughput          `json:",omitempty"`
	OnDemandThroughput          *OnDemandThroughput             `json:",omitempty"`
	WarmThroughput              *WarmThroughput                 `json:",omitempty"`
	GlobalSecondaryIndexUpdates []GlobalSecondaryIndexUpdate    `json:",omitempty"`
	StreamSpecification         *StreamSpecification            `json:",omitempty"`
	SSESpecification            *SSESpecification               `json:",omitempty"`
	TableClass                  string                          `json:",omitempty"` // checked by table, in its own words
	DeletionProtectionEnabled   *bool                           `json:",omitempty"`
	ReplicaUpdates              []ReplicationGroupUpdate        `json:",omitempty" ddb:"len=1.."`
	MultiRegionConsistency      string                          `json:",omitempty" ddb:"enum=EVENTUAL|STRONG"`
	GlobalTableWitnessUpdates   []GlobalTableWitnessGroupUpdate `json:",omitempty" ddb:"len=1..1"`
	VectorIndexUpdates          []VectorIndexUpdate             `json:",omitempty"`
	// DisassociationProtectionEnabled and GlobalTableSettingsReplicationMode
	// (2026) are each the only change of their request.
	DisassociationProtectionEnabled    *bool  `json:",omitempty"`
	GlobalTableSettingsReplicationMode string `json:",omitempty" ddb:"enum=ENABLED|DISABLED|ENABLED_WITH_OVERRIDES"`
}

// TagResourceInput is TagResource's request.
type TagResourceInput struct {
	ResourceArn string `ddb:"required;len=1..1283"`
	Tags        []Tag  `ddb:"required"`
}

// UntagResourceInput is UntagResource's request.
type UntagResourceInput struct {
	ResourceArn string   `ddb:"required;len=1..1283"`
	TagKeys     []string `ddb:"required"`
}

// ListTagsOfResourceInput is ListTagsOfResource's request.
type ListTagsOfResourceInput struct {
	ResourceArn string `ddb:"required;len=1..1283"`
	NextToken   string `json:",omitempty"`
}

// ListTagsOfResourceOutput is ListTagsOfResource's response.
type ListTagsOfResourceOutput struct {
	Tags      []Tag
	NextToken string `json:",omitempty"`
}

// Empty is the request or response of an operation without members.
type Empty struct{}

// DescribeLimitsOutput is DescribeLimits' response.
type DescribeLimitsOutput struct {
	AccountMaxReadCapacityUnits  int64
	AccountMaxWriteCapacityUnits int64
	TableMaxReadCapacityUnits    int64
	TableMaxWriteCapacityUnits   int64
}

// TableSchema is what PartiQL needs of a table to plan a statement: its
// name as stored, its key schema and the key schemas of its usable indexes
// (every local index, the global indexes not being deleted). It is not a
// wire shape: table.Service.Schema answers it without describing the table.
type TableSchema struct {
	TableName string
	KeySchema []KeySchemaElement
	Indexes   []IndexSchema
}

// IndexSchema is one index of a TableSchema.
type IndexSchema struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Global     bool
	Projection Projection
}
