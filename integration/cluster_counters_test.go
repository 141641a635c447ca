package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// counterWrites is what one writer of TestClusterCountersAcrossFrontEnds
// does, in order: puts of items of growing size, then an update that grows
// some and deletes of others.
func counterWrites(ctx context.Context, c *dynamodb.Client, writer int) error {
	tbl := aws.String("counted")
	for i := range 12 {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{
			"pk": s(fmt.Sprint("w", writer)), "sk": s(fmt.Sprintf("%02d", i)), "v": s(strings.Repeat("x", 10*i+writer))}})
		if err != nil {
			return err
		}
	}
	for i := range 12 {
		k := map[string]types.AttributeValue{"pk": s(fmt.Sprint("w", writer)), "sk": s(fmt.Sprintf("%02d", i))}
		var err error
		if i%3 == 0 {
			_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: k})
		} else {
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: k, UpdateExpression: aws.String("SET extra = :e"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":e": s(strings.Repeat("y", i))}})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TestClusterCountersAcrossFrontEnds: writers on two front-ends at once
// leave DescribeTable's ItemCount and TableSizeBytes exact through both,
// the same as one server over memory shows after the same writes.
func TestClusterCountersAcrossFrontEnds(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	fronts := []*dynamodb.Client{
		startFrontEnd(t, c.Endpoints(), "counters/").client("us-east-1"),
		startFrontEnd(t, c.Endpoints(), "counters/").client("us-east-1"),
	}
	alone := startServer(t, table.Options{}).client("us-east-1")
	createTable(t, fronts[0], "counted", true)
	createTable(t, alone, "counted", true)
	ctx := context.Background()
	const writers = 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			if err := counterWrites(ctx, fronts[w%2], w); err != nil {
				t.Errorf("writer %d: %v", w, err)
			}
		})
	}
	wg.Wait()
	for w := range writers {
		if err := counterWrites(ctx, alone, w); err != nil {
			t.Fatalf("writer %d over memory: %v", w, err)
		}
	}
	want := describeCounts(t, alone)
	if want[0] != writers*8 {
		t.Fatalf("ItemCount over memory = %d, want %d", want[0], writers*8)
	}
	for i, f := range fronts {
		if got := describeCounts(t, f); got != want {
			t.Errorf("front-end %d: ItemCount, TableSizeBytes = %v, want %v (as over memory)", i+1, got, want)
		}
	}
}

// describeCounts returns DescribeTable's ItemCount and TableSizeBytes of
// table "counted".
func describeCounts(t *testing.T, c *dynamodb.Client) [2]int64 {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("counted")})
	if err != nil {
		t.Fatal(err)
	}
	return [2]int64{aws.ToInt64(out.Table.ItemCount), aws.ToInt64(out.Table.TableSizeBytes)}
}
