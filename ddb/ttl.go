package ddb

// TimeToLiveSpecification enables or disables Time to Live on one attribute.
type TimeToLiveSpecification struct {
	AttributeName string `ddb:"required;len=1..255"`
	Enabled       *bool  `ddb:"required"`
}

// UpdateTimeToLiveInput is UpdateTimeToLive's request.
type UpdateTimeToLiveInput struct {
	TableName               string                   `ddb:"required;tablename"`
	TimeToLiveSpecification *TimeToLiveSpecification `ddb:"required"`
}

// UpdateTimeToLiveOutput is UpdateTimeToLive's response.
type UpdateTimeToLiveOutput struct {
	TimeToLiveSpecification *TimeToLiveSpecification
}

// TimeToLiveDescription reports a table's Time to Live setting.
type TimeToLiveDescription struct {
	TimeToLiveStatus string
	AttributeName    string `json:",omitempty"`
}

// DescribeTimeToLiveOutput is DescribeTimeToLive's response.
type DescribeTimeToLiveOutput struct {
	TimeToLiveDescription TimeToLiveDescription
}
