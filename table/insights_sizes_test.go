package table

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// TestInsightsSizesMatchWalk: the sizes an insights report takes from the
// maintained statistics (followed from the store's commits) equal those
// of a walk of the table and its indexes (the plain twin), after mixed
// puts, updates, deletes, batches and transactions on a table with a local
// and a global index, after a restart, and after an index is dropped.
func TestInsightsSizesMatchWalk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	rng := rand.New(rand.NewPCG(7, 31))
	s, db := openSizesService(t, path, clk)
	createSizesTable(t, s)
	mixedWrites(t, s, rng, 300)
	compareInsights(t, s, "before following")
	if len(s.sizes.m) != 3 {
		t.Fatalf("the report follows %d spaces, want the table's and its two indexes'", len(s.sizes.m))
	}
	mixedWrites(t, s, rng, 400)
	compareInsights(t, s, "after writes, followed")
	s.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, db = openSizesService(t, path, clk)
	compareInsights(t, s, "after a restart")
	mixedWrites(t, s, rng, 300)
	compareInsights(t, s, "after a restart and writes")
	if _, err := s.UpdateTable(context.Background(), "r", &ddb.UpdateTableInput{TableName: "T",
		GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{{Delete: &struct {
			IndexName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
		}{IndexName: "byG"}}}}); err != nil {
		t.Fatal(err)
	}
	mixedWrites(t, s, rng, 100)
	compareInsights(t, s, "after dropping the global index")
	s.Close()
	_ = db.Close()
}

// openSizesService opens the durable store at path (synced: commits are
// pipelined) and a Service over it.
func openSizesService(t *testing.T, path string, clk *fakeClock) (*Service, *store.DB) {
	t.Helper()
	db, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return New(db, Options{Now: clk.now}), db
}

// createSizesTable creates T: pk and sk, a local index on l, a global
// index on g.
func createSizesTable(t *testing.T, s *Service) {
	t.Helper()
	all := &ddb.Projection{ProjectionType: "ALL"}
	_, err := s.CreateTable(context.Background(), "r", &ddb.CreateTableInput{
		TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"},
			{AttributeName: "l", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}},
		KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}},
		LocalSecondaryIndexes: []ddb.LocalSecondaryIndex{{IndexName: "byL", Projection: all,
			KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "l", KeyType: "RANGE"}}}},
		GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "byG", Projection: all,
			KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sizesItem is a random item of T: 40 partition keys of up to 15 items,
// with or without each index's key, of random size.
func sizesItem(rng *rand.Rand) attr.Item {
	it := sizesKey(rng)
	it["v"] = sv(strings.Repeat("x", rng.IntN(300)))
	if rng.IntN(3) > 0 {
		it["l"] = sv(fmt.Sprint("l", rng.IntN(50)))
	}
	if rng.IntN(3) > 0 {
		it["g"] = sv(fmt.Sprint("g", rng.IntN(6)))
	}
	return it
}

func sizesKey(rng *rand.Rand) attr.Item {
	return attr.Item{"pk": sv(fmt.Sprint("p", rng.IntN(40))), "sk": sv(fmt.Sprint("s", rng.IntN(15)))}
}

// mixedWrites makes n random writes to T through every write operation.
func mixedWrites(t *testing.T, s *Service, rng *rand.Rand, n int) {
	t.Helper()
	ctx := context.Background()
	for range n {
		var err error
		switch rng.IntN(6) {
		case 0, 1:
			_, err = s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "T", Item: sizesItem(rng)})
		case 2:
			_, err = s.UpdateItem(ctx, "r", &ddb.UpdateItemInput{TableName: "T", Key: sizesKey(rng),
				UpdateExpression: ptr("SET v = :v REMOVE g"),
				WriteParams:      ddb.WriteParams{ExprParams: ddb.ExprParams{ExpressionAttributeValues: map[string]attr.Value{":v": sv(strings.Repeat("y", rng.IntN(500)))}}}})
		case 3:
			_, err = s.DeleteItem(ctx, "r", &ddb.DeleteItemInput{TableName: "T", Key: sizesKey(rng)})
		case 4:
			_, err = s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"T": {
				{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(sizesItem(rng))}},
				{DeleteRequest: &ddb.DeleteRequest{Key: sizesKey(rng)}}}}})
		case 5:
			_, err = s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{TransactItems: []ddb.TransactWriteItem{
				{Put: &ddb.TransactPut{TableName: "T", Item: sizesItem(rng)}},
				{Delete: &ddb.TransactDelete{TableName: "T", Key: sizesKey(rng)}}}})
		}
		if err != nil && !strings.Contains(err.Error(), "ValidationException") {
			t.Fatal(err)
		}
	}
}

// compareInsights compares the report from maintained sizes with the
// walked one (both after the global index has caught up), and checks that
// the partitions hold every item.
func compareInsights(t *testing.T, s *Service, when string) {
	t.Helper()
	ctx := context.Background()
	if err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	kept, err := s.Insights(ctx, "r", "T")
	if err != nil {
		t.Fatal(err)
	}
	walked, err := s.insightsReport(ctx, "r", "T", true)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(kept)
	b, _ := json.Marshal(walked)
	if string(a) != string(b) {
		t.Fatalf("%s: maintained report\n%s\ndiffers from the walked one\n%s", when, a, b)
	}
	d, err := s.DescribeTable(ctx, "r", &ddb.TableNameInput{TableName: "T"})
	if err != nil {
		t.Fatal(err)
	}
	var items int64
	for _, p := range kept.Indexes[0].Partitions {
		items += p.Items
	}
	if items != d.Table.ItemCount || items == 0 || len(kept.Collections) == 0 {
		t.Fatalf("%s: partitions hold %d items, the table %v; collections %v", when, items, d.Table.ItemCount, kept.Collections)
	}
}
