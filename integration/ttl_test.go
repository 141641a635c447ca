package integration

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/table"
)

// TestTimeToLive: the setting round-trips through Describe/UpdateTimeToLive,
// which infrastructure tools call after creating a table, with DynamoDB's
// validation and its one change an hour.
func TestTimeToLive(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c := srv.client("us-east-1")
	createTable(t, c, "Expiring", false)
	describe := func() types.TimeToLiveDescription {
		t.Helper()
		out, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Expiring")})
		if err != nil {
			t.Fatal(err)
		}
		return *out.TimeToLiveDescription
	}
	if got := describe(); got.TimeToLiveStatus != types.TimeToLiveStatusDisabled || got.AttributeName != nil {
		t.Fatalf("new table: got %+v, want DISABLED", got)
	}
	update := func(enabled bool, name string) error {
		_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Expiring"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(enabled), AttributeName: aws.String(name)}})
		return err
	}
	if err := update(true, "expiresAt"); err != nil {
		t.Fatal(err)
	}
	if got := describe(); got.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(got.AttributeName) != "expiresAt" {
		t.Fatalf("after enabling: got %+v", got)
	}
	wantAPIError(t, update(true, "expiresAt"), "ValidationException", "TimeToLive is already enabled")
	wantAPIError(t, update(true, "other"), "ValidationException", "TimeToLive is active on a different AttributeName: current AttributeName is expiresAt")
	wantAPIError(t, update(false, "expiresAt"), "ValidationException", "Time to live has been modified multiple times within a fixed interval")
	if _, err := srv.clk.Advance(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := update(false, "expiresAt"); err != nil {
		t.Fatal(err)
	}
	if got := describe(); got.TimeToLiveStatus != types.TimeToLiveStatusDisabled {
		t.Fatalf("after disabling: got %+v", got)
	}
	wantAPIError(t, update(false, "expiresAt"), "ValidationException", "TimeToLive is already disabled")
	_, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
}

// TestTimeToLiveTransitions: with a transient delay, a change shows ENABLING
// or DISABLING until it has passed.
func TestTimeToLiveTransitions(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{TransientDelay: time.Minute})
	c := srv.client("us-east-1")
	createTable(t, c, "Moving", false)
	// DescribeTimeToLive refuses a CREATING table, as DynamoDB does.
	_, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Moving")})
	wantAPIError(t, err, "ValidationException", "Cannot describe time to live while table is in CREATING state: Current table state is CREATING")
	if _, err := srv.clk.Advance(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	status := func() types.TimeToLiveStatus {
		out, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Moving")})
		if err != nil {
			t.Fatal(err)
		}
		return out.TimeToLiveDescription.TimeToLiveStatus
	}
	steps := []struct {
		enable  *bool
		advance time.Duration
		want    types.TimeToLiveStatus
	}{
		{aws.Bool(true), 0, types.TimeToLiveStatusEnabling},
		{nil, time.Minute, types.TimeToLiveStatusEnabled},
		{nil, time.Hour, types.TimeToLiveStatusEnabled},
		{aws.Bool(false), 0, types.TimeToLiveStatusDisabling},
		{nil, time.Minute, types.TimeToLiveStatusDisabled},
	}
	for i, st := range steps {
		if st.enable != nil {
			_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Moving"),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: st.enable, AttributeName: aws.String("exp")}})
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := srv.clk.Advance(ctx, st.advance); err != nil {
			t.Fatal(err)
		}
		if got := status(); got != st.want {
			t.Errorf("step %d: got %s, want %s", i, got, st.want)
		}
	}
}

// advanceClock moves the server's clock through POST /_ddblocal/clock, as a
// test in another language would.
func advanceClock(t testing.TB, url string, d time.Duration) {
	t.Helper()
	resp, err := http.Post(url+"/_ddblocal/clock", "application/json", strings.NewReader(`{"advance":"`+d.String()+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /_ddblocal/clock: got %d", resp.StatusCode)
	}
}

// TestTimeToLiveDeletes: moving the clock deletes exactly the items whose
// Number TTL attribute has passed, from the table and its global index, and
// each deletion is a stream REMOVE record by the DynamoDB service.
func TestTimeToLiveDeletes(t *testing.T) {
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	createSessions(t, c)
	putSessions(t, c)
	advanceClock(t, srv.URL, time.Second)
	got := sessionsPresent(t, c)
	if got["past"] || got["decimals"] || !got["soon"] || !got["string"] || !got["ancient"] || !got["no-ttl"] {
		t.Fatalf("after 1s: items present %v; want all but past and decimals", got)
	}
	advanceClock(t, srv.URL, time.Hour+time.Second)
	if got := sessionsPresent(t, c); got["soon"] || len(got) != 3 {
		t.Fatalf("after an hour: items present %v; want string, ancient, no-ttl", got)
	}
	ttlRemoves(t, c, sc)
}

// createSessions creates table Sessions (pk, sk) with global index byUser
// (user), a stream of old images and Time to Live on attribute exp.
func createSessions(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("Sessions"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("user"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byUser"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("user"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeOldImage},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Sessions"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
}

// putSessions writes one item of user u into Sessions for each kind of exp
// attribute: past, in an hour, a string, long past, none, and in decimals.
func putSessions(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	now := streamStart.Unix()
	items := map[string]types.AttributeValue{
		"past":     n(strconv.FormatInt(now-10, 10)),
		"soon":     n(strconv.FormatInt(now+3600, 10) + ".5"),
		"string":   s(strconv.FormatInt(now-10, 10)),
		"ancient":  n(strconv.FormatInt(now-6*365*86400, 10)),
		"no-ttl":   nil,
		"decimals": n("1.8e9"), // 2027-01-15: expired at streamStart
	}
	for name, exp := range items {
		it := map[string]types.AttributeValue{"pk": s(name), "sk": s("x"), "user": s("u")}
		if exp != nil {
			it["exp"] = exp
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Sessions"), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// sessionsPresent returns the pk of every item in Sessions, and checks
// that its index byUser holds as many.
func sessionsPresent(t *testing.T, c *dynamodb.Client) map[string]bool {
	t.Helper()
	ctx := context.Background()
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Sessions"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, it := range out.Items {
		got[it["pk"].(*types.AttributeValueMemberS).Value] = true
	}
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Sessions"), IndexName: aws.String("byUser"),
		KeyConditionExpression: aws.String("#u = :u"), ExpressionAttributeNames: map[string]string{"#u": "user"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":u": s("u")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != len(out.Items) {
		t.Errorf("index byUser has %d items, table %d", len(q.Items), len(out.Items))
	}
	return got
}

// ttlRemoves checks that Sessions' stream has a REMOVE record by the
// DynamoDB service, with its old image, for each of the three deletions.
func ttlRemoves(t *testing.T, c *dynamodb.Client, sc *dynamodbstreams.Client) {
	t.Helper()
	recs, _ := walkStream(t, sc, streamARN(t, c, "Sessions"))
	removes := 0
	for _, r := range recs {
		if r.EventName != stypes.OperationTypeRemove {
			continue
		}
		removes++
		if r.UserIdentity == nil || aws.ToString(r.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" || aws.ToString(r.UserIdentity.Type) != "Service" || r.Dynamodb.OldImage == nil {
			t.Errorf("TTL REMOVE record: got identity %+v, old image %v", r.UserIdentity, r.Dynamodb.OldImage)
		}
	}
	if removes != 3 {
		t.Errorf("REMOVE records: got %d, want 3", removes)
	}
}

// TestTimeToLiveDelay: with a TTL delay, expired items stay visible until
// it has passed, as DynamoDB may keep them.
func TestTimeToLiveDelay(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{TTLDelay: consistency.Lag{Min: 2 * time.Hour, Max: 2 * time.Hour}})
	c := srv.client("us-east-1")
	createTable(t, c, "Lazy", false)
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Lazy"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("exp")}}); err != nil {
		t.Fatal(err)
	}
	it := map[string]types.AttributeValue{"pk": s("a"), "exp": n(strconv.FormatInt(streamStart.Unix(), 10))}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Lazy"), Item: it}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		advance time.Duration
		want    bool
	}{{time.Hour, true}, {59 * time.Minute, true}, {2 * time.Minute, false}} {
		advanceClock(t, srv.URL, step.advance)
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Lazy"), Key: map[string]types.AttributeValue{"pk": s("a")}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Item != nil; got != step.want {
			t.Errorf("after +%s: item present %v, want %v", step.advance, got, step.want)
		}
	}
}

// streamARN is the table's LatestStreamArn.
func streamARN(t testing.TB, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Table.LatestStreamArn)
}
