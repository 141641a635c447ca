package table

import (
	"context"
	"strconv"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// TestContributorInsightsPersistWithDefinition: the setting is part of the
// stored table definition, so a new Service over the same store (a
// restart) reports it, rule names included.
func TestContributorInsightsPersistWithDefinition(t *testing.T) {
	s, clk := txService(t)
	ctx := context.Background()
	if _, err := s.UpdateContributorInsights(ctx, "r", &ddb.UpdateContributorInsightsInput{TableName: "A", ContributorInsightsAction: "ENABLE"}); err != nil {
		t.Fatal(err)
	}
	again := New(s.db, Options{Now: clk.now})
	defer again.Close()
	d, err := again.DescribeContributorInsights(ctx, "r", &ddb.DescribeContributorInsightsInput{TableName: "A"})
	if err != nil {
		t.Fatal(err)
	}
	stamp := clk.now().UnixMilli()
	want := []string{"DynamoDBContributorInsights-PKC-A-" + strconv.FormatInt(stamp, 10), "DynamoDBContributorInsights-PKT-A-" + strconv.FormatInt(stamp, 10)}
	if d.ContributorInsightsStatus != "ENABLED" || d.ContributorInsightsMode != ciAccessedAndThrottled || len(d.ContributorInsightsRuleList) != 2 ||
		d.ContributorInsightsRuleList[0] != want[0] || d.ContributorInsightsRuleList[1] != want[1] {
		t.Fatalf("after reopening: %+v, want ENABLED with rules %v", d, want)
	}
}
