package integration

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const exWorkers = 64

// TestConcurrentAddCounter: concurrent ADDs on one item lose no increment.
func TestConcurrentAddCounter(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "ConcAdd", false)
	var wg sync.WaitGroup
	errs := make(chan error, exWorkers)
	for range exWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("ConcAdd"), Key: map[string]types.AttributeValue{"pk": s("k")},
				UpdateExpression:          aws.String("ADD #c :one"),
				ExpressionAttributeNames:  map[string]string{"#c": "counter"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("ADD: %v", err)
		}
	}
	if got, want := exRender(exGet(t, c, "ConcAdd", "k")), exRender(map[string]types.AttributeValue{"pk": s("k"), "counter": n("64")}); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestConcurrentConditionalPut: of racing create-if-absent puts exactly one wins.
func TestConcurrentConditionalPut(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "ConcPut", false)
	var wg sync.WaitGroup
	errs := make(chan error, exWorkers)
	for i := range exWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ConcPut"),
				Item:                map[string]types.AttributeValue{"pk": s("k"), "w": n(string(rune('0'+i%10)) + "0")},
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	var ok, failed int
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case exIsCCF(err):
			failed++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 || failed != exWorkers-1 {
		t.Fatalf("got %d successes and %d ConditionalCheckFailedException, want 1 and %d", ok, failed, exWorkers-1)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ConcPut")})
	if err != nil || aws.ToInt64(d.Table.ItemCount) != 1 {
		t.Fatalf("ItemCount after the race: got %+v, %v, want 1", d.Table.ItemCount, err)
	}
}
