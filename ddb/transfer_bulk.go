package ddb

// The bulk operations: StartBulkPutItems, DescribeBulkOperation,
// ListBulkOperations, CancelBulkOperation.

// InputS3Configuration is where a bulk operation reads.
type InputS3Configuration struct {
	S3Bucket             string `ddb:"required;len=0..255;pattern=^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$"`
	S3BucketOwner        string `json:",omitempty" ddb:"pattern=[0-9]{12}"`
	S3KeyPrefix          string `json:",omitempty" ddb:"len=0..1024"`
	InputFormat          string `ddb:"required;enum=DYNAMODB_JSON|ION"`
	InputCompressionType string `json:",omitempty" ddb:"enum=GZIP|ZSTD|NONE"`
}

// OutputS3Configuration is where a bulk operation writes its report.
type OutputS3Configuration struct {
	OutputType     []string `ddb:"required;eachenum=ERROR|CONDITION_CHECK_FAILURE"`
	S3Bucket       string   `json:",omitempty" ddb:"len=0..255;pattern=^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$"`
	S3BucketOwner  string   `json:",omitempty" ddb:"pattern=[0-9]{12}"`
	S3KeyPrefix    string   `json:",omitempty" ddb:"len=0..1024"`
	S3SseAlgorithm string   `json:",omitempty" ddb:"enum=AES256|KMS"`
	S3SseKmsKeyId  string   `json:",omitempty" ddb:"len=1..2048"`
}

// StartBulkPutItemsInput is StartBulkPutItems' request, its members in the
// API model's order (the validator's order among members that share a
// hash bucket: api/internal/validate's javaMapOrder).
type StartBulkPutItemsInput struct {
	ClientToken           string                 `json:",omitempty" ddb:"pattern=^[^\\$]+$"`
	InputS3Configuration  *InputS3Configuration  `ddb:"required"`
	OutputS3Configuration *OutputS3Configuration `ddb:"required"`
	TableName             string                 `ddb:"required;len=1..1024"`
	MaxWriteRequestUnits  *int64                 `json:",omitempty" ddb:"min=1024"`
	PerformanceTier       string                 `json:",omitempty" ddb:"enum=STANDARD|ACCELERATED"`
}

// BulkOperationBytes counts bytes a bulk operation wrote to one target.
type BulkOperationBytes struct {
	BulkPutBytes int64
}

// BulkOperationVectorBytes counts the vector bytes a bulk operation wrote
// to one vector index.
type BulkOperationVectorBytes struct {
	BulkPutVectorBytes int64
}

// BulkOperationUsage is what a bulk operation wrote to a table and its
// indexes; BulkPutBytes leaves out the vector indexes' bytes.
type BulkOperationUsage struct {
	TableName              string
	BulkPutBytes           int64
	Table                  *BulkOperationBytes                 `json:",omitempty"`
	GlobalSecondaryIndexes map[string]BulkOperationBytes       `json:",omitempty"`
	LocalSecondaryIndexes  map[string]BulkOperationBytes       `json:",omitempty"`
	VectorIndexes          map[string]BulkOperationVectorBytes `json:",omitempty"`
}

// BulkOperationTableDetail names the table of a bulk operation.
type BulkOperationTableDetail struct {
	TableName string
	TableId   string
}

// BulkOperationDescription describes one bulk operation.
type BulkOperationDescription struct {
	BulkOperationArn      string
	BulkOperationStatus   string
	BulkOperationUsage    []BulkOperationUsage `json:",omitempty"`
	TableDetails          []BulkOperationTableDetail
	ClientToken           string `json:",omitempty"`
	InputS3Configuration  InputS3Configuration
	OutputS3Configuration OutputS3Configuration
	MaxWriteRequestUnits  *int64 `json:",omitempty"`
	PerformanceTier       string
	StartTime             float64
	EndTime               *float64 `json:",omitempty"`
	TotalInputBytes       *int64   `json:",omitempty"`
	ProcessedInputBytes   *int64   `json:",omitempty"`
	ProcessedItemCount    int64
	FailedItemCount       int64
	FailureCode           string `json:",omitempty"`
	FailureMessage        string `json:",omitempty"`
}

// BulkOperationOutput is the response of StartBulkPutItems and
// DescribeBulkOperation.
type BulkOperationOutput struct {
	BulkOperationDescription BulkOperationDescription
}

// DescribeBulkOperationInput is DescribeBulkOperation's request.
type DescribeBulkOperationInput struct {
	BulkOperationArn string `ddb:"required;len=37..1024"`
}

// CancelBulkOperationInput is CancelBulkOperation's request.
type CancelBulkOperationInput struct {
	BulkOperationArn string `ddb:"required;len=37..1024"`
}

// CancelBulkOperationOutput is CancelBulkOperation's response.
type CancelBulkOperationOutput struct {
	BulkOperationArn    string
	BulkOperationStatus string
}

// ListBulkOperationsInput is ListBulkOperations' request.
type ListBulkOperationsInput struct {
	MaxResults *int32 `json:",omitempty" ddb:"min=1;max=25"`
	NextToken  string `json:",omitempty" ddb:"len=1..1024;pattern=([0-9a-f]{16})+"`
}

// BulkOperationSummary is one bulk operation in ListBulkOperations.
type BulkOperationSummary struct {
	BulkOperationArn    string
	BulkOperationStatus string
	StartTime           float64
	EndTime             *float64 `json:",omitempty"`
}

// ListBulkOperationsOutput is ListBulkOperations' response.
type ListBulkOperationsOutput struct {
	BulkOperationsSummaryList []BulkOperationSummary
	NextToken                 string `json:",omitempty"`
}
