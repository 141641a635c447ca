package ddb

import "github.com/ddblocal/ddblocal/attr"

// The S3 data movement operations: ExportTableToPointInTime, DescribeExport,
// ListExports, ImportTable, DescribeImport, ListImports.

// Error codes of the export and import operations.
const (
	ExportNotFoundException    Code = "ExportNotFoundException"
	ExportConflictException    Code = "ExportConflictException"
	InvalidExportTimeException Code = "InvalidExportTimeException"
	ImportNotFoundException    Code = "ImportNotFoundException"
	ImportConflictException    Code = "ImportConflictException"
)

// IncrementalExportSpecification says what an incremental export covers.
type IncrementalExportSpecification struct {
	ExportFromTime *float64 `json:",omitempty"`
	ExportToTime   *float64 `json:",omitempty"`
	ExportViewType string   `json:",omitempty" ddb:"enum=NEW_IMAGE|NEW_AND_OLD_IMAGES"`
}

// FilterSpecification selects and projects the items an export writes.
type FilterSpecification struct {
	KeyConditionExpression    *string               `json:",omitempty"`
	FilterExpression          *string               `json:",omitempty"`
	ProjectionExpression      *string               `json:",omitempty"`
	ExpressionAttributeNames  map[string]string     `json:",omitempty"`
	ExpressionAttributeValues map[string]attr.Value `json:",omitempty"`
}

// ExportTableToPointInTimeInput is ExportTableToPointInTime's request, its
// members in the API model's order (the validator's order among members
// that share a hash bucket: api/internal/validate's javaMapOrder).
type ExportTableToPointInTimeInput struct {
	TableArn                       string                          `ddb:"required;len=1..1024;emptysays=Invalid TableArn: Invalid Table ARN"`
	ExportTime                     *float64                        `json:",omitempty"`
	ClientToken                    string                          `json:",omitempty" ddb:"pattern=^[^\\$]+$"`
	S3Bucket                       string                          `ddb:"required;len=0..255;pattern=^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$"`
	S3BucketOwner                  string                          `json:",omitempty" ddb:"pattern=[0-9]{12}"`
	S3Prefix                       string                          `json:",omitempty" ddb:"len=0..1024"`
	S3SseAlgorithm                 string                          `json:",omitempty" ddb:"enum=AES256|KMS"`
	S3SseKmsKeyId                  string                          `json:",omitempty" ddb:"len=1..2048"`
	ExportFormat                   string                          `json:",omitempty" ddb:"enum=DYNAMODB_JSON|ION"`
	ExportType                     string                          `json:",omitempty" ddb:"enum=FULL_EXPORT|INCREMENTAL_EXPORT"`
	IncrementalExportSpecification *IncrementalExportSpecification `json:",omitempty"`
	FilterSpecification            *FilterSpecification            `json:",omitempty"`
}

// ExportDescription describes one export.
type ExportDescription struct {
	ExportArn                      string
	ExportStatus                   string
	ExportType                     string
	ExportFormat                   string
	TableArn                       string
	TableId                        string
	S3Bucket                       string
	S3Prefix                       string `json:",omitempty"`
	S3BucketOwner                  string `json:",omitempty"`
	S3SseAlgorithm                 string `json:",omitempty"`
	S3SseKmsKeyId                  string `json:",omitempty"`
	ClientToken                    string `json:",omitempty"`
	StartTime                      float64
	EndTime                        *float64                        `json:",omitempty"`
	ExportTime                     *float64                        `json:",omitempty"`
	ExportManifest                 string                          `json:",omitempty"`
	ItemCount                      *int64                          `json:",omitempty"`
	BilledSizeBytes                *int64                          `json:",omitempty"`
	FailureCode                    string                          `json:",omitempty"`
	FailureMessage                 string                          `json:",omitempty"`
	IncrementalExportSpecification *IncrementalExportSpecification `json:",omitempty"`
	FilterSpecification            *FilterSpecification            `json:",omitempty"`
}

// ExportDescriptionOutput is the response of ExportTableToPointInTime and
// DescribeExport.
type ExportDescriptionOutput struct {
	ExportDescription ExportDescription
}

// DescribeExportInput is DescribeExport's request.
type DescribeExportInput struct {
	ExportArn string `ddb:"required;len=37..1024"`
}

// ListExportsInput is ListExports' request.
type ListExportsInput struct {
	TableArn   string `json:",omitempty" ddb:"len=1..1024"`
	MaxResults *int32 `json:",omitempty" ddb:"min=1;max=25"`
	NextToken  string `json:",omitempty"`
}

// ExportSummary is one export in ListExports.
type ExportSummary struct {
	ExportArn    string
	ExportStatus string
	ExportType   string
}

// ListExportsOutput is ListExports' response.
type ListExportsOutput struct {
	ExportSummaries []ExportSummary
	NextToken       string `json:",omitempty"`
}

// S3BucketSource is where an import reads.
type S3BucketSource struct {
	S3Bucket      string `ddb:"required;len=0..255;pattern=^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$"`
	S3BucketOwner string `json:",omitempty" ddb:"pattern=[0-9]{12}"`
	S3KeyPrefix   string `json:",omitempty" ddb:"len=0..1024"`
}

// CsvOptions are an import's CSV options.
type CsvOptions struct {
	Delimiter  string   `json:",omitempty" ddb:"len=1..1;pattern=[,;:|\\t ]"`
	HeaderList []string `json:",omitempty" ddb:"len=1..255;eachlen=1..65536;eachpattern=[\\x20-\\x21\\x23-\\x2B\\x2D-\\x7E]*"`
}

// InputFormatOptions holds format options (CSV only).
type InputFormatOptions struct {
	Csv *CsvOptions `json:",omitempty"`
}

// TableCreationParameters is the table an import creates.
type TableCreationParameters struct {
	TableName              string                 `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	AttributeDefinitions   []AttributeDefinition  `ddb:"required"`
	KeySchema              []KeySchemaElement     `ddb:"required;len=1..2"`
	BillingMode            string                 `json:",omitempty" ddb:"enum=PROVISIONED|PAY_PER_REQUEST"`
	ProvisionedThroughput  *ProvisionedThroughput `json:",omitempty"`
	OnDemandThroughput     *OnDemandThroughput    `json:",omitempty"`
	SSESpecification       *SSESpecification      `json:",omitempty"`
	GlobalSecondaryIndexes []GlobalSecondaryIndex `json:",omitempty"`
	VectorIndexes          []VectorIndex          `json:",omitempty"`
}

// ImportTableInput is ImportTable's request.
type ImportTableInput struct {
	ClientToken             string                   `json:",omitempty" ddb:"pattern=^[^\\$]+$"`
	S3BucketSource          *S3BucketSource          `ddb:"required"`
	InputFormat             string                   `ddb:"required;enum=DYNAMODB_JSON|ION|CSV"`
	InputFormatOptions      *InputFormatOptions      `json:",omitempty"`
	InputCompressionType    string                   `json:",omitempty" ddb:"enum=GZIP|ZSTD|NONE"`
	TableCreationParameters *TableCreationParameters `ddb:"required"`
}

// ImportTableDescription describes one import.
type ImportTableDescription struct {
	ImportArn               string
	ImportStatus            string
	TableArn                string
	TableId                 string
	ClientToken             string `json:",omitempty"`
	S3BucketSource          S3BucketSource
	ErrorCount              int64
	CloudWatchLogGroupArn   string `json:",omitempty"`
	InputFormat             string
	InputFormatOptions      *InputFormatOptions      `json:",omitempty"`
	InputCompressionType    string                   `json:",omitempty"`
	TableCreationParameters *TableCreationParameters `json:",omitempty"`
	StartTime               float64
	EndTime                 *float64 `json:",omitempty"`
	ProcessedSizeBytes      *int64   `json:",omitempty"`
	ProcessedItemCount      int64
	ImportedItemCount       int64
	FailureCode             string `json:",omitempty"`
	FailureMessage          string `json:",omitempty"`
}

// ImportTableOutput is the response of ImportTable and DescribeImport
// (the same one member in both).
type ImportTableOutput struct {
	ImportTableDescription ImportTableDescription
}

// DescribeImportInput is DescribeImport's request.
type DescribeImportInput struct {
	ImportArn string `ddb:"required;len=37..1024"`
}

// ListImportsInput is ListImports' request.
type ListImportsInput struct {
	TableArn  string `json:",omitempty" ddb:"len=1..1024"`
	PageSize  *int32 `json:",omitempty" ddb:"min=1;max=25"`
	NextToken string `json:",omitempty" ddb:"len=112..1024;pattern=([0-9a-f]{16})+"`
}

// ImportSummary is one import in ListImports.
type ImportSummary struct {
	ImportArn             string
	ImportStatus          string
	TableArn              string
	S3BucketSource        S3BucketSource
	CloudWatchLogGroupArn string `json:",omitempty"`
	InputFormat           string
	StartTime             float64
	EndTime               *float64 `json:",omitempty"`
}

// ListImportsOutput is ListImports' response.
type ListImportsOutput struct {
	ImportSummaryList []ImportSummary
	NextToken         string `json:",omitempty"`
}
