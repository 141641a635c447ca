package streams

// The DynamoDB Streams API's requests and responses (ddb tags as in package
// table's shapes).

// ListStreamsInput is ListStreams' request.
type ListStreamsInput struct {
	TableName               string `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	Limit                   *int64 `ddb:"min=1;max=100"`
	ExclusiveStartStreamArn string `json:",omitempty" ddb:"len=37..1024"`
}

// Summary names one stream in ListStreams' answer.
type Summary struct {
	StreamArn   string
	TableName   string
	StreamLabel string
}

// ListStreamsOutput is ListStreams' response.
type ListStreamsOutput struct {
	Streams                []Summary
	LastEvaluatedStreamArn string `json:",omitempty"`
}

// DescribeStreamInput is DescribeStream's request.
type DescribeStreamInput struct {
	StreamArn             string       `ddb:"required;len=37..1024"`
	Limit                 *int64       `ddb:"min=1;max=100"`
	ExclusiveStartShardId string       `json:",omitempty" ddb:"len=28..65"`
	ShardFilter           *ShardFilter `json:",omitempty"`
}

// ShardFilter narrows DescribeStream's shards: with Type CHILD_SHARDS, to
// the children of ShardId.
type ShardFilter struct {
	ShardId string `json:",omitempty" ddb:"len=28..65"`
	Type    string `json:",omitempty" ddb:"enum=CHILD_SHARDS"`
}

// KeyElement is one table key attribute.
type KeyElement struct {
	AttributeName string
	KeyType       string
}

// SequenceNumberRange is the sequence numbers a shard spans.
type SequenceNumberRange struct {
	StartingSequenceNumber string `json:",omitempty"`
	EndingSequenceNumber   string `json:",omitempty"`
}

// ShardDescription is one shard in DescribeStream's answer.
type ShardDescription struct {
	ShardId             string
	SequenceNumberRange SequenceNumberRange
	ParentShardId       string `json:",omitempty"`
}

// Description is DescribeStream's StreamDescription.
type Description struct {
	StreamArn               string
	StreamLabel             string
	StreamStatus            string
	StreamViewType          string
	CreationRequestDateTime float64
	TableName               string
	KeySchema               []KeyElement
	Shards                  []ShardDescription
	LastEvaluatedShardId    string `json:",omitempty"`
}

// DescribeStreamOutput is DescribeStream's response.
type DescribeStreamOutput struct {
	StreamDescription Description
}

// GetShardIteratorInput is GetShardIterator's request.
type GetShardIteratorInput struct {
	StreamArn         string `ddb:"required;len=37..1024"`
	ShardId           string `ddb:"required;len=28..65"`
	ShardIteratorType string `ddb:"required;enum=TRIM_HORIZON|LATEST|AT_SEQUENCE_NUMBER|AFTER_SEQUENCE_NUMBER|AT_TIMESTAMP"`
	SequenceNumber    string `json:",omitempty" ddb:"len=21..40"`
	// Timestamp is AT_TIMESTAMP's position: epoch seconds, to the millisecond.
	Timestamp *float64 `json:",omitempty"`
}

// GetShardIteratorOutput is GetShardIterator's response.
type GetShardIteratorOutput struct {
	ShardIterator string
}

// GetRecordsInput is GetRecords' request.
type GetRecordsInput struct {
	ShardIterator string `ddb:"required;len=1..2048"`
	Limit         *int64 `ddb:"min=1;max=1000"`
}

// GetRecordsOutput is GetRecords' response.
type GetRecordsOutput struct {
	Records           []Record
	NextShardIterator *string `json:",omitempty"`
}
