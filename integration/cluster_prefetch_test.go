package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// TestClusterPrefetchedWrites: in cluster mode a front-end fetches what a
// batch of writes reads (old items, the table's counters) in one etcd
// request before running them; read-modify-writes through two front-ends
// at once still lose nothing (an old item another front-end changed since
// the fetch makes the commit conflict and run again), and a conditional
// put of one new key succeeds exactly once.
func TestClusterPrefetchedWrites(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	fronts := []*dynamodb.Client{
		startFrontEnd(t, c.Endpoints(), "prefetch/").client("us-east-1"),
		startFrontEnd(t, c.Endpoints(), "prefetch/").client("us-east-1"),
	}
	createTable(t, fronts[0], "pfw", false)
	ctx := context.Background()
	tbl := aws.String("pfw")
	const workers, each, keys = 8, 10, 5
	var created atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		cl := fronts[w%2]
		wg.Go(func() {
			for i := range each {
				_, err := cl.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl,
					Key:                       map[string]types.AttributeValue{"pk": s("counter")},
					UpdateExpression:          aws.String("ADD n :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}})
				if err != nil {
					t.Errorf("UpdateItem: %v", err)
					return
				}
				if i >= keys {
					continue
				}
				_, err = cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl,
					Item:                map[string]types.AttributeValue{"pk": s(fmt.Sprint("once", i)), "by": n(fmt.Sprint(w))},
					ConditionExpression: aws.String("attribute_not_exists(pk)")})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					created.Add(1)
				case !errors.As(err, &ccf):
					t.Errorf("PutItem: %v", err)
				}
			}
		})
	}
	wg.Wait()
	for i, cl := range fronts {
		out, err := cl.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": s("counter")}})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := out.Item["n"].(*types.AttributeValueMemberN); !ok || v.Value != fmt.Sprint(workers*each) {
			t.Errorf("front-end %d: counter = %v, want n %d", i+1, out.Item, workers*each)
		}
	}
	if got := created.Load(); got != keys {
		t.Errorf("%d conditional puts of %d new keys succeeded, want one per key", got, keys)
	}
	d, err := fronts[1].DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: tbl})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToInt64(d.Table.ItemCount); got != keys+1 {
		t.Errorf("ItemCount = %d, want %d", got, keys+1)
	}
}

// TestClusterPrefetchedReads: GetItem, BatchGetItem and TransactGetItems
// through one front-end, whose keys are fetched in one etcd request each,
// answer what another front-end wrote, absent keys included, with their
// projections.
func TestClusterPrefetchedReads(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "prefetchr/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "prefetchr/").client("us-east-1")
	createTable(t, a, "pfr", true)
	createTable(t, a, "other", false)
	ctx := context.Background()
	var puts []types.WriteRequest
	for i := range 25 {
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": s("p"), "sk": s(fmt.Sprintf("%02d", i)), "v": n(fmt.Sprint(i)), "w": s("x")}}})
	}
	if _, err := a.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"pfr": puts}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("other"), Item: map[string]types.AttributeValue{"pk": s("o")}}); err != nil {
		t.Fatal(err)
	}
	key := func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s("p"), "sk": s(fmt.Sprintf("%02d", i))}
	}

	got, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("pfr"), Key: key(7), ProjectionExpression: aws.String("v"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Item["v"].(*types.AttributeValueMemberN); !ok || v.Value != "7" || len(got.Item) != 1 {
		t.Errorf("GetItem through b = %v, want only v 7", got.Item)
	}
	if got, err = b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("pfr"), Key: key(40), ConsistentRead: aws.Bool(true)}); err != nil || got.Item != nil {
		t.Errorf("GetItem of an absent key = %v, %v; want no item", got.Item, err)
	}

	var ks []map[string]types.AttributeValue
	for i := range 30 { // 25 present, 5 absent
		ks = append(ks, key(i))
	}
	bg, err := b.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"pfr":   {Keys: ks, ConsistentRead: aws.Bool(true)},
		"other": {Keys: []map[string]types.AttributeValue{{"pk": s("o")}, {"pk": s("none")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n, m := len(bg.Responses["pfr"]), len(bg.Responses["other"]); n != 25 || m != 1 || len(bg.UnprocessedKeys) != 0 {
		t.Errorf("BatchGetItem through b: %d and %d items, %d unprocessed; want 25, 1 and none", n, m, len(bg.UnprocessedKeys))
	}

	tg, err := b.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("pfr"), Key: key(3)}},
		{Get: &types.Get{TableName: aws.String("pfr"), Key: key(99)}},
		{Get: &types.Get{TableName: aws.String("other"), Key: map[string]types.AttributeValue{"pk": s("o")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r := tg.Responses; len(r) != 3 || r[0].Item["v"] == nil || r[1].Item != nil || r[2].Item["pk"] == nil {
		t.Errorf("TransactGetItems through b = %v, want items, no item, item", r)
	}
}
