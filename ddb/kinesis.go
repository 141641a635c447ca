package ddb

// KinesisStreamingConfiguration is EnableKinesisStreamingConfiguration and
// UpdateKinesisStreamingConfiguration: the precision of the records'
// ApproximateCreationDateTime.
type KinesisStreamingConfiguration struct {
	ApproximateCreationDateTimePrecision string `json:",omitempty" ddb:"enum=MILLISECOND|MICROSECOND"`
}

// KinesisStreamingDestinationInput is the request of
// EnableKinesisStreamingDestination and DisableKinesisStreamingDestination.
type KinesisStreamingDestinationInput struct {
	TableName                           string                         `ddb:"required;tablename"`
	StreamArn                           string                         `ddb:"required;len=37..1024"`
	EnableKinesisStreamingConfiguration *KinesisStreamingConfiguration `json:",omitempty"`
}

// KinesisStreamingDestinationOutput is the response of
// EnableKinesisStreamingDestination and DisableKinesisStreamingDestination.
type KinesisStreamingDestinationOutput struct {
	DestinationStatus                   string
	EnableKinesisStreamingConfiguration *KinesisStreamingConfiguration `json:",omitempty"`
	StreamArn                           string
	TableName                           string
}

// UpdateKinesisStreamingDestinationInput is UpdateKinesisStreamingDestination's request.
type UpdateKinesisStreamingDestinationInput struct {
	TableName                           string                         `ddb:"required;tablename"`
	StreamArn                           string                         `ddb:"required;len=37..1024"`
	UpdateKinesisStreamingConfiguration *KinesisStreamingConfiguration `json:",omitempty"`
}

// UpdateKinesisStreamingDestinationOutput is UpdateKinesisStreamingDestination's response.
type UpdateKinesisStreamingDestinationOutput struct {
	DestinationStatus                   string
	StreamArn                           string
	TableName                           string
	UpdateKinesisStreamingConfiguration *KinesisStreamingConfiguration `json:",omitempty"`
}
