package api

import "github.com/ddblocal/ddblocal/table"

// contributorInsightsOperations are the Contributor Insights operations.
func contributorInsightsOperations(svc *table.Service) map[string]Handler {
	return map[string]Handler{
		"UpdateContributorInsights":   Op(svc.UpdateContributorInsights),
		"DescribeContributorInsights": Op(svc.DescribeContributorInsights),
		"ListContributorInsights":     Op(svc.ListContributorInsights),
	}
}
