package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// ciTable creates Orders (pk, sk) with the global index byUser (user) and
// the local index byDate (pk, date).
func ciTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	str := types.ScalarAttributeTypeS
	def := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: str}
	}
	key := func(n string, k types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: k}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{def("pk"), def("sk"), def("user"), def("date")},
		KeySchema:            []types.KeySchemaElement{key("pk", types.KeyTypeHash), key("sk", types.KeyTypeRange)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byUser"),
			KeySchema: []types.KeySchemaElement{key("user", types.KeyTypeHash)}, Projection: all}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byDate"),
			KeySchema: []types.KeySchemaElement{key("pk", types.KeyTypeHash), key("date", types.KeyTypeRange)}, Projection: all}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ciFixture is TestContributorInsightsLifecycle's client, clock and its
// calls on table Orders.
type ciFixture struct {
	t     *testing.T
	c     *dynamodb.Client
	clk   *fakeClock
	stamp int64 // the last ENABLE's time, Unix milliseconds: the rules' suffix
}

// update is UpdateContributorInsights on Orders or its index.
func (f *ciFixture) update(index *string, action types.ContributorInsightsAction, mode types.ContributorInsightsMode) (*dynamodb.UpdateContributorInsightsOutput, error) {
	return f.c.UpdateContributorInsights(context.Background(), &dynamodb.UpdateContributorInsightsInput{TableName: aws.String("Orders"),
		IndexName: index, ContributorInsightsAction: action, ContributorInsightsMode: mode})
}

// describe is DescribeContributorInsights of Orders or its index.
func (f *ciFixture) describe(index *string) *dynamodb.DescribeContributorInsightsOutput {
	f.t.Helper()
	out, err := f.c.DescribeContributorInsights(context.Background(), &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("Orders"), IndexName: index})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// list is ListContributorInsights' one page, as "table/index status".
func (f *ciFixture) list() string {
	f.t.Helper()
	page, err := f.c.ListContributorInsights(context.Background(), &dynamodb.ListContributorInsightsInput{})
	if err != nil {
		f.t.Fatal(err)
	}
	var got []string
	for _, s := range page.ContributorInsightsSummaries {
		got = append(got, fmt.Sprintf("%s/%s %s", aws.ToString(s.TableName), aws.ToString(s.IndexName), s.ContributorInsightsStatus))
	}
	return fmt.Sprint(got)
}

// listPages lists Orders' entries one a page, as "table/index status
// mode", until there is no token.
func (f *ciFixture) listPages() [][]string {
	f.t.Helper()
	var pages [][]string
	var token *string
	for {
		page, err := f.c.ListContributorInsights(context.Background(), &dynamodb.ListContributorInsightsInput{TableName: aws.String("Orders"), MaxResults: 1, NextToken: token})
		if err != nil {
			f.t.Fatal(err)
		}
		var got []string
		for _, s := range page.ContributorInsightsSummaries {
			got = append(got, fmt.Sprintf("%s/%s %s %s", aws.ToString(s.TableName), aws.ToString(s.IndexName), s.ContributorInsightsStatus, s.ContributorInsightsMode))
		}
		pages = append(pages, got)
		if token = page.NextToken; token == nil {
			break
		}
	}
	return pages
}

// checkErrors checks the errors of an unknown index, a local index, an
// unknown table and bad parameters.
func (f *ciFixture) checkErrors() {
	t := f.t
	t.Helper()
	for _, ix := range []string{"nope", "byDate"} {
		_, err := f.update(aws.String(ix), types.ContributorInsightsActionEnable, "")
		wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index: "+ix+" not found for table: Orders")
		_, err = f.c.DescribeContributorInsights(context.Background(), &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("Orders"), IndexName: aws.String(ix)})
		wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index: "+ix+" not found for table: Orders")
	}
	_, err := f.c.DescribeContributorInsights(context.Background(), &dynamodb.DescribeContributorInsightsInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
	_, err = f.c.ListContributorInsights(context.Background(), &dynamodb.ListContributorInsightsInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
	_, err = f.update(nil, "FLIP", "")
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'FLIP' at 'contributorInsightsAction' failed to satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]")
	_, err = f.c.ListContributorInsights(context.Background(), &dynamodb.ListContributorInsightsInput{MaxResults: 101})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100")
}

// TestContributorInsightsLifecycle walks a table and its global index
// through ENABLE, a mode change, DISABLE and deletion, with the statuses,
// rule names, list pages and errors DynamoDB reports.
func TestContributorInsightsLifecycle(t *testing.T) {
	clk := newFakeClock()
	srv := startServer(t, table.Options{Now: clk.Now, TransientDelay: ciSettle})
	c := srv.client("us-east-1")
	ciTable(t, c)
	f := &ciFixture{t: t, c: c, clk: clk}

	_, err := f.update(nil, types.ContributorInsightsActionEnable, "")
	wantAPIError(t, err, "ValidationException", "Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights.")
	clk.Advance(ciSettle)

	f.enableTable()
	f.enableIndex()
	// One entry a page: the table, then its index, and no token after the last.
	pages := f.listPages()
	if want := "[[Orders/ ENABLED THROTTLED_KEYS] [Orders/byUser ENABLING ACCESSED_AND_THROTTLED_KEYS]]"; fmt.Sprint(pages) != want {
		t.Fatalf("list pages = %v, want %s", pages, want)
	}
	f.disableTable()
	f.checkErrors()
	f.dropAndRecreate()
}

// ciSettle is how long TestContributorInsightsLifecycle's statuses take to
// settle (its server's TransientDelay).
const ciSettle = 5 * time.Second

// wantRules returns the rule names of kinds, suffixed with the stamp of
// the last ENABLE.
func (f *ciFixture) wantRules(kinds ...string) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, fmt.Sprintf("DynamoDBContributorInsights-%s-%d", k, f.stamp))
	}
	return out
}

// enableTable enables Orders' insights from never configured, enables
// them again in the same mode, then changes the mode.
func (f *ciFixture) enableTable() {
	t, clk := f.t, f.clk
	t.Helper()
	d := f.describe(nil)
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.ContributorInsightsMode != "" || d.LastUpdateDateTime != nil || d.ContributorInsightsRuleList != nil {
		t.Fatalf("never configured: %+v, want only DISABLED", d)
	}
	out, err := f.update(nil, types.ContributorInsightsActionEnable, "")
	if err != nil || out.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling || out.ContributorInsightsMode != types.ContributorInsightsModeAccessedAndThrottledKeys || aws.ToString(out.TableName) != "Orders" {
		t.Fatalf("ENABLE = %+v, %v; want ENABLING in ACCESSED_AND_THROTTLED_KEYS", out, err)
	}
	f.stamp = clk.Now().UnixMilli()
	if d := f.describe(nil); d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling {
		t.Fatalf("just enabled: %s, want ENABLING", d.ContributorInsightsStatus)
	}
	clk.Advance(ciSettle)
	d = f.describe(nil)
	if d.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled || !slices.Equal(d.ContributorInsightsRuleList, f.wantRules("PKC-Orders", "SKC-Orders", "PKT-Orders", "SKT-Orders")) ||
		d.LastUpdateDateTime == nil || !d.LastUpdateDateTime.Equal(time.Unix(f.stamp/1000, 0)) {
		t.Fatalf("enabled: %+v %v", d, d.ContributorInsightsRuleList)
	}
	// ENABLE again in the same mode changes nothing.
	if out, err := f.update(nil, types.ContributorInsightsActionEnable, types.ContributorInsightsModeAccessedAndThrottledKeys); err != nil || out.ContributorInsightsStatus != types.ContributorInsightsStatusEnabled {
		t.Fatalf("re-ENABLE = %+v, %v; want ENABLED", out, err)
	}
	// A mode change is a new ENABLING; the rules keep their suffix.
	if out, err := f.update(nil, types.ContributorInsightsActionEnable, types.ContributorInsightsModeThrottledKeys); err != nil || out.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling {
		t.Fatalf("mode change = %+v, %v; want ENABLING", out, err)
	}
	clk.Advance(ciSettle)
	if d := f.describe(nil); d.ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys || !slices.Equal(d.ContributorInsightsRuleList, f.wantRules("PKT-Orders", "SKT-Orders")) {
		t.Fatalf("throttled keys only: %+v %v", d, d.ContributorInsightsRuleList)
	}
}

// enableIndex enables the insights of Orders' global index byUser.
func (f *ciFixture) enableIndex() {
	t := f.t
	t.Helper()
	gsi := aws.String("byUser")
	if out, err := f.update(gsi, types.ContributorInsightsActionEnable, ""); err != nil || out.ContributorInsightsStatus != types.ContributorInsightsStatusEnabling || aws.ToString(out.IndexName) != "byUser" {
		t.Fatalf("index ENABLE = %+v, %v", out, err)
	}
	f.stamp = f.clk.Now().UnixMilli()
	if d := f.describe(gsi); aws.ToString(d.IndexName) != "byUser" || !slices.Equal(d.ContributorInsightsRuleList, f.wantRules("PKC-Orders-byUser", "PKT-Orders-byUser")) {
		t.Fatalf("index: %+v %v", d, d.ContributorInsightsRuleList)
	}
}

// disableTable disables Orders' insights: DISABLING, still listed; then
// DISABLED, unlisted, mode and time kept.
func (f *ciFixture) disableTable() {
	t := f.t
	t.Helper()
	if out, err := f.update(nil, types.ContributorInsightsActionDisable, ""); err != nil || out.ContributorInsightsStatus != types.ContributorInsightsStatusDisabling || out.ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys {
		t.Fatalf("DISABLE = %+v, %v; want DISABLING echoing the mode", out, err)
	}
	if got, want := f.list(), "[Orders/ DISABLING Orders/byUser ENABLING]"; got != want {
		t.Fatalf("list while disabling = %s, want %s", got, want)
	}
	f.clk.Advance(ciSettle)
	if got, want := f.list(), "[Orders/byUser ENABLED]"; got != want {
		t.Fatalf("list after disabling = %s, want %s", got, want)
	}
	if d := f.describe(nil); d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.ContributorInsightsMode != types.ContributorInsightsModeThrottledKeys || d.LastUpdateDateTime == nil || d.ContributorInsightsRuleList != nil {
		t.Fatalf("disabled: %+v", d)
	}
	if out, err := f.update(nil, types.ContributorInsightsActionDisable, ""); err != nil || out.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled {
		t.Fatalf("DISABLE when disabled = %+v, %v; want DISABLED", out, err)
	}
}

// dropAndRecreate deletes Orders: its insights go with it, and a new table
// of the same name starts DISABLED.
func (f *ciFixture) dropAndRecreate() {
	t := f.t
	t.Helper()
	if _, err := f.c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String("Orders")}); err != nil {
		t.Fatal(err)
	}
	f.clk.Advance(ciSettle)
	if got := f.list(); got != "[]" {
		t.Fatalf("list after DeleteTable = %s, want []", got)
	}
	ciTable(t, f.c)
	if d := f.describe(aws.String("byUser")); d.ContributorInsightsStatus != types.ContributorInsightsStatusDisabled || d.LastUpdateDateTime != nil {
		t.Fatalf("re-created table's index: %+v, want never configured", d)
	}
}
