package integration

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/table"
)

// TestSearchVectorsThrottledAndInInsights: with throttling on, SearchVectors
// draws read units (half a unit per 4 KB of VectorSearchRequestBytes) from
// its vector index, capped by the table's MaxReadRequestUnits: past it a
// search gets the on-demand maximum's ThrottlingException naming the index,
// while the table's own reads are not affected; a second later searches
// pass again. The searches and throttles show in /_ddblocal/insights against
// the index, its partition and the search partition's HASH value, and the
// index's partitions are sized by the vectors they hold.
func TestSearchVectorsThrottledAndInInsights(t *testing.T) {
	clk := clock.Manual(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv := startServer(t, table.Options{Throttling: true, CapacityScale: 1, Now: clk.Now})
	c := srv.client("us-east-1")
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("vthr"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("cat"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:          []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(1)},
		VectorIndexes: []types.VectorIndex{vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean,
			types.SearchSchemaElement{AttributeName: aws.String("cat"), SearchSchemaElementType: types.SearchSchemaElementTypeHash})},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := tableARN(t, c, "vthr")
	for i, cat := range []string{"a", "a", "a", "b"} {
		mustPut(t, c, "vthr", map[string]types.AttributeValue{"pk": s(string(rune('0' + i))), "cat": s(cat), "emb": vecList([]float32{float32(i), 0})})
	}
	searchA := func() error {
		_, err := c.SearchVectors(ctx, &dynamodb.SearchVectorsInput{TableName: aws.String("vthr"), IndexName: aws.String("vix"),
			SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10), SearchConditionExpression: aws.String("cat = :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": s("a")}})
		return err
	}
	// Each search meters the 1 KB minimum: half a unit, so two fit the
	// maximum of one unit a second.
	got, err := countThrottled(t, 4, func(int) error { return searchA() })
	var te *types.ThrottlingException
	if got != 2 || !errors.As(err, &te) {
		t.Fatalf("4 searches under a maximum of 1 RRU/s: %d throttled (%v), want 2 ThrottlingExceptions", got, err)
	}
	if got, want := te.ErrorMessage(), "Throughput exceeds the maximum OnDemandThroughput configured on table or index"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if got, want := reasonsOf(te.ThrottlingReasons), []string{"IndexReadMaxOnDemandThroughputExceeded " + arn + "/index/vix"}; !slices.Equal(got, want) {
		t.Errorf("reasons %v, want %v", got, want)
	}
	if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("vthr"), Key: map[string]types.AttributeValue{"pk": s("0")}}); err != nil {
		t.Fatalf("GetItem while the vector index is throttled: %v", err)
	}
	advance(t, clk, time.Second)
	if err := searchA(); err != nil {
		t.Fatalf("search a second later: %v", err)
	}

	checkSearchInsights(t, srv)
}

// checkSearchInsights checks TestSearchVectorsThrottledAndInInsights'
// searches in /_ddblocal/insights: 1.5 read units (three half-unit searches)
// and 2 throttles against the index vix, its 4 vectors sizing its
// partitions, search partition a among the top keys, and the vectors
// scored in the read amplification.
func checkSearchInsights(t *testing.T, srv *server) {
	t.Helper()
	code, body := getInsights(t, srv, "?table=vthr")
	var rep insights.Report
	if err := json.Unmarshal(body, &rep); code != http.StatusOK || err != nil {
		t.Fatalf("insights: %d %v %s", code, err, body)
	}
	var units, throttles float64
	var items int64
	found := false
	for _, ix := range rep.Indexes {
		if ix.Index != "vix" {
			continue
		}
		found = true
		for _, p := range ix.Partitions {
			units, throttles, items = units+p.ReadUnits, throttles+p.ReadThrottles, items+p.Items
		}
	}
	if !found || units != 1.5 || throttles != 2 || items != 4 {
		t.Fatalf("index vix in insights: found %v, %v read units, %v read throttles, %d items; want 1.5, 2 and 4 (indexes %+v)",
			found, units, throttles, items, rep.Indexes)
	}
	top := func(keys []insights.KeyReport) *insights.KeyReport {
		for i, k := range keys {
			if k.Index == "vix" && k.PartitionKey != nil && k.PartitionKey.S == "a" {
				return &keys[i]
			}
		}
		return nil
	}
	if k := top(rep.TopKeys.ByUnits); k == nil || k.ReadUnits != 1.5 {
		t.Errorf("top keys by units %+v, want vix's search partition a with 1.5 read units", rep.TopKeys.ByUnits)
	}
	if k := top(rep.TopKeys.ByThrottles); k == nil || k.Throttles != 2 {
		t.Errorf("top keys by throttles %+v, want vix's search partition a with 2 throttles", rep.TopKeys.ByThrottles)
	}
	if a := rep.Amplification; a.ItemsRead < 9 || a.ItemsReturned < 9 {
		t.Errorf("read amplification %+v: want the 3 searches' 9 vectors scored and 9 results counted", a)
	}
}
