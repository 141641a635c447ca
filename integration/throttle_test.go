package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/table"
)

// DynamoDB's messages for throttled requests.
const (
	msgThrottleProvisioned = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	msgThrottleOnDemand    = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html."
	msgThrottleIndex       = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
)

// throttleServer starts a server that throttles every table, with limits
// scaled by scale, on a clock that moves only when the test advances it.
// Its client retries nothing a throttled request gets.
func throttleServer(t *testing.T, scale float64) (*dynamodb.Client, *clock.Clock) {
	t.Helper()
	clk := clock.Manual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv := startServer(t, table.Options{Throttling: true, CapacityScale: scale, Now: clk.Now})
	return srv.client("us-east-1"), clk
}

func advance(t *testing.T, clk *clock.Clock, d time.Duration) {
	t.Helper()
	if _, err := clk.Advance(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

func tableARN(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Table.TableArn)
}

// createProvisioned creates a PROVISIONED table pk S with units RCU and WCU.
func createProvisioned(t *testing.T, c *dynamodb.Client, name string, units int64) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:             aws.String(name),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(units), WriteCapacityUnits: aws.Int64(units)},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func putPK(c *dynamodb.Client, tableName, pk string, extra map[string]types.AttributeValue) error {
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	for k, v := range extra {
		item[k] = v
	}
	_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(tableName), Item: item})
	return err
}

func reasonsOf(rs []types.ThrottlingReason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, aws.ToString(r.Reason)+" "+aws.ToString(r.Resource))
	}
	return out
}

// countThrottled runs n writes and returns how many were throttled and the
// first throttling error.
func countThrottled(t *testing.T, n int, write func(i int) error) (int, error) {
	t.Helper()
	throttled := 0
	var first error
	for i := range n {
		err := write(i)
		var te *types.ThrottlingException
		var pe *types.ProvisionedThroughputExceededException
		switch {
		case err == nil:
			continue
		case errors.As(err, &te), errors.As(err, &pe):
			throttled++
			if first == nil {
				first = err
			}
		default:
			t.Fatalf("write %d: %v", i, err)
		}
	}
	return throttled, first
}

func TestThrottleHotKeyOnDemand(t *testing.T) {
	c, _ := throttleServer(t, 0.01) // a partition admits 10 writes a second
	createTable(t, c, "hot", false)
	createTable(t, c, "spread", false)
	arn := tableARN(t, c, "hot")

	got, err := countThrottled(t, 15, func(int) error { return putPK(c, "hot", "k", nil) })
	if got != 5 {
		t.Fatalf("15 writes of one key: %d throttled, want 5", got)
	}
	var te *types.ThrottlingException
	if !errors.As(err, &te) {
		t.Fatalf("error %T %v, want a ThrottlingException", err, err)
	}
	if got, want := te.ErrorMessage(), msgThrottleOnDemand; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got, want := reasonsOf(te.ThrottlingReasons), []string{"TableWriteKeyRangeThroughputExceeded " + arn}; !slices.Equal(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
	// The same load over fifteen keys fits the table's four partitions.
	if got, err := countThrottled(t, 15, func(i int) error { return putPK(c, "spread", "k"+strconv.Itoa(i), nil) }); got != 0 {
		t.Fatalf("15 writes of 15 keys: %d throttled (%v), want 0", got, err)
	}
}

func TestThrottleHotKeyProvisioned(t *testing.T) {
	c, clk := throttleServer(t, 0.01)
	createProvisioned(t, c, "prov", 1000)
	arn := tableARN(t, c, "prov")
	got, err := countThrottled(t, 12, func(int) error { return putPK(c, "prov", "k", nil) })
	var pe *types.ProvisionedThroughputExceededException
	if got != 2 || !errors.As(err, &pe) {
		t.Fatalf("12 writes of one key: %d throttled (%T %v), want 2 ProvisionedThroughputExceededException", got, err, err)
	}
	if got, want := pe.ErrorMessage(), msgThrottleProvisioned; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got, want := reasonsOf(pe.ThrottlingReasons), []string{"TableWriteKeyRangeThroughputExceeded " + arn}; !slices.Equal(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
	// Reads have their own buckets: 30 strongly consistent reads a second.
	get := func(int) error {
		_, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("prov"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "k"}}})
		return err
	}
	if got, err := countThrottled(t, 31, get); got != 1 || !errors.As(err, &pe) || reasonsOf(pe.ThrottlingReasons)[0] != "TableReadKeyRangeThroughputExceeded "+arn {
		t.Fatalf("31 reads: %d throttled (%v), want 1 TableReadKeyRangeThroughputExceeded", got, err)
	}
	advance(t, clk, time.Second)
	if err := putPK(c, "prov", "k", nil); err != nil {
		t.Fatalf("a second later: %v", err)
	}
}

func TestThrottleProvisionedBurst(t *testing.T) {
	c, clk := throttleServer(t, 1)
	createProvisioned(t, c, "burst", 1)
	arn := tableARN(t, c, "burst")
	for _, tc := range []struct {
		idle time.Duration
		want int // writes admitted
	}{
		{0, 300},               // a new table's burst credit is full (5 minutes)
		{20 * time.Second, 20}, // twenty idle seconds saved
		{time.Hour, 300},       // at most five minutes saved
	} {
		advance(t, clk, tc.idle)
		throttled, err := countThrottled(t, tc.want+1, func(i int) error { return putPK(c, "burst", "k"+strconv.Itoa(i), nil) })
		var pe *types.ProvisionedThroughputExceededException
		if throttled != 1 || !errors.As(err, &pe) {
			t.Fatalf("after %v idle: %d of %d throttled (%v), want only the last", tc.idle, throttled, tc.want+1, err)
		}
		if got, want := reasonsOf(pe.ThrottlingReasons), []string{"TableWriteProvisionedThroughputExceeded " + arn}; !slices.Equal(got, want) {
			t.Fatalf("reasons %v, want %v", got, want)
		}
	}
}

func TestThrottleGSIBackPressure(t *testing.T) {
	c, _ := throttleServer(t, 0.01)
	createIndexed(t, c, "orders", false, map[string]types.ScalarAttributeType{"status": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byStatus", []string{"status"}, nil, types.ProjectionTypeKeysOnly)}, nil)
	arn := tableARN(t, c, "orders")
	// Fifteen orders, each its own partition key, all with one status: the
	// table's partitions are cool, the index's "open" partition is hot.
	open := map[string]types.AttributeValue{"status": &types.AttributeValueMemberS{Value: "open"}}
	got, err := countThrottled(t, 15, func(i int) error { return putPK(c, "orders", "order"+strconv.Itoa(i), open) })
	var te *types.ThrottlingException
	if got != 5 || !errors.As(err, &te) {
		t.Fatalf("15 writes to one index key: %d throttled (%v), want 5 ThrottlingExceptions", got, err)
	}
	if got, want := te.ErrorMessage(), msgThrottleIndex; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got, want := reasonsOf(te.ThrottlingReasons), []string{"IndexWriteKeyRangeThroughputExceeded " + arn + "/index/byStatus"}; !slices.Equal(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
	// A write the index does not see is not held back.
	if err := putPK(c, "orders", "order99", nil); err != nil {
		t.Fatalf("a write without the index key: %v", err)
	}
}

func batchPuts(pk string, from, n int) []types.WriteRequest {
	var reqs []types.WriteRequest
	for i := from; i < from+n; i++ {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("%03d", i)}}}})
	}
	return reqs
}

func TestThrottleBatchUnprocessed(t *testing.T) {
	c, clk := throttleServer(t, 0.01)
	createTable(t, c, "batch", true)
	ctx := context.Background()
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"batch": batchPuts("hot", 0, 25)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(out.UnprocessedItems["batch"]); got != 15 {
		t.Fatalf("25 puts to one partition: %d unprocessed, want 15", got)
	}
	// Every item throttled: the batch fails.
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"batch": batchPuts("hot", 25, 5)}})
	var te *types.ThrottlingException
	if !errors.As(err, &te) || te.ErrorMessage() != msgThrottleOnDemand {
		t.Fatalf("a batch of only throttled puts: %v, want a ThrottlingException", err)
	}
	// Reads: 30 strongly consistent reads a second from the partition.
	advance(t, clk, time.Second)
	var keys []map[string]types.AttributeValue
	for i := range 100 {
		keys = append(keys, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "hot"}, "sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("%03d", i)}})
	}
	got, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"batch": {Keys: keys, ConsistentRead: aws.Bool(true)}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, un := len(got.Responses["batch"]), len(got.UnprocessedKeys["batch"].Keys); n != 10 || un != 70 {
		t.Fatalf("100 reads: %d items returned and %d keys unprocessed, want the 10 stored of 30 read, and 70", n, un)
	}
}

func TestThrottleTransactionCancelled(t *testing.T) {
	c, _ := throttleServer(t, 0.01)
	createTable(t, c, "txn", false)
	// A transactional write costs twice: five of them fill the partition.
	put := func(pk string) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{TableName: aws.String("txn"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}}}
	}
	ctx := context.Background()
	for i := range 5 {
		if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("hot")}}); err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put("cool"), put("hot")}})
	var ce *types.TransactionCanceledException
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a TransactionCanceledException", err)
	}
	var codes []string
	for _, r := range ce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if !slices.Equal(codes, []string{"None", "ThrottlingError"}) || aws.ToString(ce.CancellationReasons[1].Message) != msgThrottleOnDemand {
		t.Fatalf("reasons %v (%v), want None, ThrottlingError with DynamoDB's message", codes, aws.ToString(ce.CancellationReasons[1].Message))
	}
	if got, want := ce.ErrorMessage(), "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ThrottlingError]"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("txn"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "cool"}}})
	if err != nil || out.Item != nil {
		t.Fatalf("the cancelled transaction's other write: %v, %v; want nothing written", out.Item, err)
	}
}

func TestThrottleOffByDefaultAndPerTableTag(t *testing.T) {
	clk := clock.Manual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	c := startServer(t, table.Options{CapacityScale: 0.01, Now: clk.Now}).client("us-east-1")
	createTable(t, c, "free", false)
	if got, err := countThrottled(t, 30, func(int) error { return putPK(c, "free", "k", nil) }); got != 0 {
		t.Fatalf("without --throttling: %d throttled (%v)", got, err)
	}
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("tagged"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		Tags:                 []types.Tag{{Key: aws.String("ddblocal:throttling"), Value: aws.String("on")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := countThrottled(t, 15, func(int) error { return putPK(c, "tagged", "k", nil) }); got != 5 {
		t.Fatalf("a table tagged ddblocal:throttling=on: %d of 15 throttled, want 5", got)
	}
}

func TestThrottleOnDemandMaximum(t *testing.T) {
	c, _ := throttleServer(t, 1)
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("capped"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		OnDemandThroughput:   &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(3)},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := tableARN(t, c, "capped")
	got, err := countThrottled(t, 5, func(i int) error { return putPK(c, "capped", "k"+strconv.Itoa(i), nil) })
	var te *types.ThrottlingException
	if got != 2 || !errors.As(err, &te) {
		t.Fatalf("5 writes under a maximum of 3 WRU/s: %d throttled (%v), want 2 ThrottlingExceptions", got, err)
	}
	if got, want := te.ErrorMessage(), "Throughput exceeds the maximum OnDemandThroughput configured on table or index"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got, want := reasonsOf(te.ThrottlingReasons), []string{"TableWriteMaxOnDemandThroughputExceeded " + arn}; !slices.Equal(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
}

func TestWarmThroughputAndLimits(t *testing.T) {
	c, _ := throttleServer(t, 0.01)
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("warm"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		WarmThroughput:       &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(20000), WriteUnitsPerSecond: aws.Int64(5000)},
	})
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, c, "cold", false)
	warm := func(name string) string {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil || out.Table.WarmThroughput == nil {
			t.Fatalf("DescribeTable %s: %v, WarmThroughput missing", name, err)
		}
		w := out.Table.WarmThroughput
		return fmt.Sprintf("%d/%d %s", aws.ToInt64(w.ReadUnitsPerSecond), aws.ToInt64(w.WriteUnitsPerSecond), w.Status)
	}
	if got, want := warm("cold"), "12000/4000 ACTIVE"; got != want {
		t.Errorf("a new on-demand table's warm throughput %s, want %s", got, want)
	}
	if got, want := warm("warm"), "20000/5000 ACTIVE"; got != want {
		t.Errorf("warm throughput %s, want %s", got, want)
	}
	// Warm throughput only rises: a lower value is refused
	// (ack-api-quirks DDB-TABLE-059, recorded from the service).
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("warm"),
		WarmThroughput: &types.WarmThroughput{WriteUnitsPerSecond: aws.Int64(6000)}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("warm"),
		WarmThroughput: &types.WarmThroughput{WriteUnitsPerSecond: aws.Int64(1000)}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Requested WriteUnitsPerSecond for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not supported")
	if got, want := warm("warm"), "20000/6000 ACTIVE"; got != want {
		t.Errorf("after raising to 6000 and asking for 1000: %s, want %s", got, want)
	}
	lim, err := c.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(aws.ToInt64(lim.TableMaxWriteCapacityUnits), aws.ToInt64(lim.AccountMaxReadCapacityUnits)); got != "400 800" {
		t.Errorf("DescribeLimits at scale 0.01: table %s, want the quotas throttling enforces, 400 and 800", got)
	}
}

func TestThrottleIndexOnDemandMaximum(t *testing.T) {
	c, _ := throttleServer(t, 1)
	g := gsiDef("byStatus", []string{"status"}, nil, types.ProjectionTypeKeysOnly)
	g.OnDemandThroughput = &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(2), MaxReadRequestUnits: aws.Int64(-1)}
	createIndexed(t, c, "capix", false, map[string]types.ScalarAttributeType{"status": types.ScalarAttributeTypeS}, []types.GlobalSecondaryIndex{g}, nil)
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("capix")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.Table.TableArn)
	if od := out.Table.GlobalSecondaryIndexes[0].OnDemandThroughput; od == nil || aws.ToInt64(od.MaxWriteRequestUnits) != 2 {
		t.Fatalf("DescribeTable's index OnDemandThroughput %+v, want MaxWriteRequestUnits 2", od)
	}
	open := map[string]types.AttributeValue{"status": &types.AttributeValueMemberS{Value: "open"}}
	got, err := countThrottled(t, 4, func(i int) error { return putPK(c, "capix", "o"+strconv.Itoa(i), open) })
	var te *types.ThrottlingException
	if got != 2 || !errors.As(err, &te) {
		t.Fatalf("4 writes under an index maximum of 2 WRU/s: %d throttled (%v), want 2 ThrottlingExceptions", got, err)
	}
	if got, want := reasonsOf(te.ThrottlingReasons), []string{"IndexWriteMaxOnDemandThroughputExceeded " + arn + "/index/byStatus"}; !slices.Equal(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
}

// TestThrottleEventsReachInsights: the throttled writes of a hot key show in
// GET /_ddblocal/insights, against the key and its partition.
func TestThrottleEventsReachInsights(t *testing.T) {
	clk := clock.Manual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv := startServer(t, table.Options{Throttling: true, CapacityScale: 0.01, Now: clk.Now})
	c := srv.client("us-east-1")
	createTable(t, c, "hotins", false)
	if got, _ := countThrottled(t, 15, func(int) error { return putPK(c, "hotins", "k", nil) }); got != 5 {
		t.Fatalf("%d of 15 throttled, want 5", got)
	}
	code, body := getInsights(t, srv, "?table=hotins")
	var rep insights.Report
	if err := json.Unmarshal(body, &rep); code != http.StatusOK || err != nil {
		t.Fatalf("insights: %d %v %s", code, err, body)
	}
	if !rep.Throttling || len(rep.TopKeys.ByThrottles) == 0 {
		t.Fatalf("report throttling %v, top keys by throttles %+v; want throttling on and the hot key", rep.Throttling, rep.TopKeys.ByThrottles)
	}
	top := rep.TopKeys.ByThrottles[0]
	if top.PartitionKey == nil || top.PartitionKey.S != "k" || top.Throttles != 5 {
		t.Fatalf("top throttled key %+v, want k with 5 throttles", top)
	}
	var throttles float64
	for _, p := range rep.Indexes[0].Partitions {
		throttles += p.WriteThrottles
	}
	if throttles != 5 || len(rep.Indexes[0].Partitions) != 4 {
		t.Fatalf("partitions %d with %v write throttles, want 4 with 5", len(rep.Indexes[0].Partitions), throttles)
	}
}

// A partition whose data passes 10 GB (times the scale) splits, so one
// large item collection raises the table's partition count.
func TestThrottleLargePartitionSplits(t *testing.T) {
	clk := clock.Manual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	// 10 GB × 1e-5 ≈ 107 KB per partition.
	srv := startServer(t, table.Options{Throttling: true, CapacityScale: 1e-5, Now: clk.Now})
	c := srv.client("us-east-1")
	createTable(t, c, "big", false)
	partitions := func() int {
		t.Helper()
		code, body := getInsights(t, srv, "?table=big")
		var rep insights.Report
		if err := json.Unmarshal(body, &rep); code != http.StatusOK || err != nil {
			t.Fatalf("insights: %d %v %s", code, err, body)
		}
		return len(rep.Indexes[0].Partitions)
	}
	pad := map[string]types.AttributeValue{"pad": &types.AttributeValueMemberS{Value: strings.Repeat("x", 390_000)}}
	// One put only: its 381 write units raise the on-demand peak, and the
	// next request's allowance would split partitions for throughput too.
	if err := putPK(c, "big", "a", pad); err != nil {
		t.Fatal(err)
	}
	if got := partitions(); got != 6 {
		// 390 KB in one partition halves twice to fit 107 KB.
		t.Fatalf("%d partitions after one 390 KB item, want 6 (4 + 2 splits)", got)
	}
}
