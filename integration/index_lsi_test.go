package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// lsiTable creates name (pk S, sk S) with LSIs byTs (ts N) KEYS_ONLY and
// byTitle (title S) INCLUDE [owner].
func lsiTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	createIndexed(t, c, name, true, map[string]types.ScalarAttributeType{"ts": "N", "title": "S"}, nil,
		[]types.LocalSecondaryIndex{
			lsiDef("byTs", "ts", types.ProjectionTypeKeysOnly),
			lsiDef("byTitle", "title", types.ProjectionTypeInclude, "owner"),
		})
}

// putLSIItems puts IxLsi's six items p/s0..s5, each read back at once
// through byTs with a strongly consistent Query: a strongly consistent
// LSI read sees the write just acknowledged.
func putLSIItems(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	for i := range 6 {
		it := ritem{"pk": s("p"), "sk": s(fmt.Sprintf("s%d", i)), "ts": n(fmt.Sprint(100 - i)), "body": s(strings.Repeat("b", 100)), "owner": s("o")}
		if i%2 == 0 {
			it["title"] = s(fmt.Sprintf("t%d", 5-i))
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxLsi"), Item: it}); err != nil {
			t.Fatal(err)
		}
		// A strongly consistent LSI read sees the write just acknowledged.
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTs"), ConsistentRead: aws.Bool(true),
			KeyConditionExpression: aws.String("pk = :p AND ts = :t"), ExpressionAttributeValues: rvals(":p", s("p"), ":t", n(fmt.Sprint(100-i)))})
		if err != nil {
			t.Fatalf("consistent LSI Query: %v", err)
		}
		if len(out.Items) != 1 || rstr(out.Items[0], "sk") != fmt.Sprintf("s%d", i) {
			t.Fatalf("consistent LSI Query after put %d: got %v", i, out.Items)
		}
	}
}

// checkLSIFetch checks that a Query of IxLsi's KEYS_ONLY index byTs
// fetches a non-projected attribute from the table, at extra cost.
func checkLSIFetch(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTs"),
		KeyConditionExpression: aws.String("pk = :p AND ts >= :t"), ExpressionAttributeValues: rvals(":p", s("p"), ":t", n("99")),
		ProjectionExpression: aws.String("sk, body"), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 2 {
		t.Fatalf("fetch query: got %d items, want 2", len(out.Items))
	}
	for _, it := range out.Items {
		if got, want := ixNames(it), []string{"body", "sk"}; !slices.Equal(got, want) || len(rstr(it, "body")) != 100 {
			t.Errorf("fetch query: got attributes %v (body %d bytes), want %v with 100-byte body", got, len(rstr(it, "body")), want)
		}
	}
	if cc := out.ConsumedCapacity; cc == nil || cc.Table == nil || cc.LocalSecondaryIndexes["byTs"].CapacityUnits == nil {
		t.Errorf("fetch query ConsumedCapacity: got %+v, want Table and LocalSecondaryIndexes[byTs]", cc)
	}
}

func TestLSIQuery(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	lsiTable(t, c, "IxLsi")
	putLSIItems(t, c)
	// Sort order is by the index sort key: ts descending in sk order.
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTs"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: rvals(":p", s("p"))})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rsksOf(out.Items), []string{"s5", "s4", "s3", "s2", "s1", "s0"}; !slices.Equal(got, want) {
		t.Errorf("byTs order: got %v, want %v", got, want)
	}
	if got, want := ixNames(out.Items[0]), []string{"pk", "sk", "ts"}; !slices.Equal(got, want) {
		t.Errorf("byTs (KEYS_ONLY) attributes: got %v, want %v", got, want)
	}
	// Sparse: only items with a title are in byTitle, ordered by title.
	out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTitle"),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: rvals(":p", s("p"))})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rsksOf(out.Items), []string{"s4", "s2", "s0"}; !slices.Equal(got, want) {
		t.Errorf("byTitle: got %v, want %v", got, want)
	}
	if got, want := ixNames(out.Items[0]), []string{"owner", "pk", "sk", "title"}; !slices.Equal(got, want) {
		t.Errorf("byTitle (INCLUDE owner) attributes: got %v, want %v", got, want)
	}
	checkLSIFetch(t, c)
	// Select ALL_ATTRIBUTES is allowed on a local index of any projection.
	out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTitle"), Select: types.SelectAllAttributes,
		KeyConditionExpression: aws.String("pk = :p AND title = :t"), ExpressionAttributeValues: rvals(":p", s("p"), ":t", s("t1"))})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 || rstr(out.Items[0], "body") == "" || rnum(out.Items[0], "ts") != "96" {
		t.Errorf("ALL_ATTRIBUTES on byTitle: got %v, want the whole item s4", out.Items)
	}
	// A filter on a non-projected attribute also reads the table.
	out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTitle"),
		KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("ts > :t"), ExpressionAttributeValues: rvals(":p", s("p"), ":t", n("97"))})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rsksOf(out.Items), []string{"s2", "s0"}; !slices.Equal(got, want) {
		t.Errorf("filter on unprojected ts: got %v, want %v", got, want)
	}
	// Updates move LSI entries in the same transaction.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("IxLsi"), Key: ritem{"pk": s("p"), "sk": s("s0")},
		UpdateExpression: aws.String("SET ts = :t REMOVE title"), ExpressionAttributeValues: rvals(":t", n("1"))}); err != nil {
		t.Fatal(err)
	}
	out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxLsi"), IndexName: aws.String("byTs"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression: aws.String("pk = :p AND ts < :t"), ExpressionAttributeValues: rvals(":p", s("p"), ":t", n("50"))})
	if err != nil || len(out.Items) != 1 || rstr(out.Items[0], "sk") != "s0" {
		t.Errorf("after moving s0's ts: got %v, %v; want [s0]", out, err)
	}
	if got := len(scanPages(t, c, "IxLsi", "byTitle", 0, nil)); got != 2 {
		t.Errorf("byTitle after REMOVE title: got %d entries, want 2", got)
	}
}

// rsksOf returns the sk values of items, in order.
func rsksOf(items []ritem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, rstr(it, "sk"))
	}
	return out
}

// TestLSIItemCollectionMetrics: writes to a table with LSIs return the item
// collection key and size estimate under ReturnItemCollectionMetrics SIZE.
func TestLSIItemCollectionMetrics(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	lsiTable(t, c, "IxIcm")
	check := func(what string, icm *types.ItemCollectionMetrics) {
		t.Helper()
		if icm == nil {
			t.Fatalf("%s: no ItemCollectionMetrics", what)
		}
		if got := canonItem(icm.ItemCollectionKey); got != canonItem(ritem{"pk": s("p1")}) {
			t.Errorf("%s ItemCollectionKey: got %s, want {pk:p1}", what, got)
		}
		if got := icm.SizeEstimateRangeGB; len(got) != 2 || got[0] != 0 || got[1] != 1 {
			t.Errorf("%s SizeEstimateRangeGB: got %v, want [0 1]", what, got)
		}
	}
	put, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxIcm"), Item: ritem{"pk": s("p1"), "sk": s("a"), "ts": n("1")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	check("PutItem", put.ItemCollectionMetrics)
	upd, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("IxIcm"), Key: ritem{"pk": s("p1"), "sk": s("a")},
		UpdateExpression: aws.String("SET title = :t"), ExpressionAttributeValues: rvals(":t", s("x")),
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	check("UpdateItem", upd.ItemCollectionMetrics)
	del, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("IxIcm"), Key: ritem{"pk": s("p1"), "sk": s("a")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil {
		t.Fatal(err)
	}
	check("DeleteItem", del.ItemCollectionMetrics)
	// Without SIZE, or on a table without LSIs, there are none.
	put, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxIcm"), Item: ritem{"pk": s("p1"), "sk": s("c")}})
	if err != nil || put.ItemCollectionMetrics != nil {
		t.Errorf("PutItem without SIZE: got %+v, %v; want no metrics", put.ItemCollectionMetrics, err)
	}
	createTable(t, c, "IxNoLsi", true)
	put, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxNoLsi"), Item: ritem{"pk": s("p1"), "sk": s("c")},
		ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
	if err != nil || put.ItemCollectionMetrics != nil {
		t.Errorf("PutItem on a table without LSIs: got %+v, %v; want no metrics", put.ItemCollectionMetrics, err)
	}
}

// TestLSIItemCollectionMetricsBatch: BatchWriteItem reports the item
// collections it wrote to, per table, under ReturnItemCollectionMetrics SIZE.
func TestLSIItemCollectionMetricsBatch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	lsiTable(t, c, "IxIcmB")
	bw, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize,
		RequestItems: map[string][]types.WriteRequest{"IxIcmB": {{PutRequest: &types.PutRequest{Item: ritem{"pk": s("p1"), "sk": s("b")}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := bw.ItemCollectionMetrics["IxIcmB"]
	if len(got) != 1 {
		t.Fatalf("BatchWriteItem ItemCollectionMetrics: got %v, want one entry for IxIcmB", bw.ItemCollectionMetrics)
	}
	if key := canonItem(got[0].ItemCollectionKey); key != canonItem(ritem{"pk": s("p1")}) {
		t.Errorf("ItemCollectionKey: got %s, want {pk:p1}", key)
	}
	if r := got[0].SizeEstimateRangeGB; len(r) != 2 || r[0] != 0 || r[1] != 1 {
		t.Errorf("SizeEstimateRangeGB: got %v, want [0 1]", r)
	}
}

// TestLSIItemCollectionLimit reaches a lowered item collection limit.
func TestLSIItemCollectionLimit(t *testing.T) {
	ctx := context.Background()
	c := startServer(t, table.Options{ItemCollectionLimit: 2000}).client("us-east-1")
	lsiTable(t, c, "IxLimit")
	var err error
	stored := 0
	for i := range 20 {
		it := sizedItem(t, "p", fmt.Sprintf("s%02d", i), 300)
		it["ts"] = n(fmt.Sprint(i))
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxLimit"), Item: it})
		if err != nil {
			break
		}
		stored++
	}
	var ex *types.ItemCollectionSizeLimitExceededException
	if !errors.As(err, &ex) {
		t.Fatalf("after %d items of 300 bytes: got %v, want ItemCollectionSizeLimitExceededException", stored, err)
	}
	wantAPIError(t, err, "ItemCollectionSizeLimitExceededException", "Collection size exceeded.")
	if stored < 3 || stored > 6 {
		t.Errorf("items stored before the 2000-byte limit: got %d, want 3..6", stored)
	}
	// The rejected item is not stored, and neither is its LSI entry.
	got, gerr := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("IxLimit"), Key: ritem{"pk": s("p"), "sk": s(fmt.Sprintf("s%02d", stored))}})
	if gerr != nil || got.Item != nil {
		t.Errorf("rejected item: got %v, %v; want absent", got.Item, gerr)
	}
	if n := len(scanPages(t, c, "IxLimit", "byTs", 0, nil)); n != stored {
		t.Errorf("byTs entries: got %d, want %d", n, stored)
	}
	// Another partition is its own collection; shrinking an item or deleting
	// one is always allowed.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxLimit"), Item: sizedItem(t, "q", "s00", 300)}); err != nil {
		t.Errorf("PutItem into another collection: %v", err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxLimit"), Item: sizedItem(t, "p", "s00", 20)}); err != nil {
		t.Errorf("shrinking an item in a full collection: %v", err)
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("IxLimit"), Key: ritem{"pk": s("p"), "sk": s("s01")}}); err != nil {
		t.Errorf("DeleteItem in a full collection: %v", err)
	}
	// The freed room can be used again.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxLimit"), Item: sizedItem(t, "p", "new", 300)}); err != nil {
		t.Errorf("PutItem after freeing room: %v", err)
	}
}
