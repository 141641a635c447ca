package ddb

// The request and response shapes of Contributor Insights.

// UpdateContributorInsightsInput is UpdateContributorInsights' request.
type UpdateContributorInsightsInput struct {
	TableName                 string  `ddb:"required;tablename"`
	IndexName                 *string `json:",omitempty" ddb:"len=3..255;namepattern;emptysays=IndexName must be at least 3 characters long and at most 255 characters long"`
	ContributorInsightsAction string  `ddb:"required;enum=ENABLE|DISABLE"`
	ContributorInsightsMode   string  `json:",omitempty" ddb:"enum=THROTTLED_KEYS|ACCESSED_AND_THROTTLED_KEYS"`
}

// UpdateContributorInsightsOutput is UpdateContributorInsights' response.
type UpdateContributorInsightsOutput struct {
	TableName                 string
	IndexName                 *string `json:",omitempty"`
	ContributorInsightsStatus string
	ContributorInsightsMode   string `json:",omitempty"`
}

// DescribeContributorInsightsInput is DescribeContributorInsights' request.
type DescribeContributorInsightsInput struct {
	TableName string  `ddb:"required;tablename"`
	IndexName *string `json:",omitempty" ddb:"len=3..255;namepattern;emptysays=IndexName must be at least 3 characters long and at most 255 characters long"`
}

// DescribeContributorInsightsOutput is DescribeContributorInsights' response.
type DescribeContributorInsightsOutput struct {
	TableName                   string
	IndexName                   *string  `json:",omitempty"`
	ContributorInsightsRuleList []string `json:",omitempty"`
	ContributorInsightsStatus   string
	ContributorInsightsMode     string   `json:",omitempty"`
	LastUpdateDateTime          *float64 `json:",omitempty"`
}

// ListContributorInsightsInput is ListContributorInsights' request.
type ListContributorInsightsInput struct {
	TableName  *string `json:",omitempty" ddb:"tablename"`
	NextToken  *string `json:",omitempty"`
	MaxResults *int32  `json:",omitempty" ddb:"max=100"`
}

// ContributorInsightsSummary is one entry of ListContributorInsights.
type ContributorInsightsSummary struct {
	TableName                 string
	IndexName                 *string `json:",omitempty"`
	ContributorInsightsStatus string
	ContributorInsightsMode   string `json:",omitempty"`
}

// ListContributorInsightsOutput is ListContributorInsights' response.
type ListContributorInsightsOutput struct {
	ContributorInsightsSummaries []ContributorInsightsSummary
	NextToken                    *string `json:",omitempty"`
}
