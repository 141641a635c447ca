package integration

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestGSIDeletingStatus: with transient statuses on, a deleted GSI is reported
// DELETING until the delay has passed, then disappears; queries fail at once.
func TestGSIDeletingStatus(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, TransientDelay: 2 * time.Second})
	c := srv.client("us-east-1")
	createGSITable(t, c, "Dropping")
	clock.Advance(3 * time.Second) // past CREATING
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Dropping"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}}}})
	if err != nil {
		t.Fatal(err)
	}
	status := func() []types.IndexStatus {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Dropping")})
		if err != nil {
			t.Fatal(err)
		}
		var out []types.IndexStatus
		for _, g := range d.Table.GlobalSecondaryIndexes {
			out = append(out, g.IndexStatus)
		}
		return out
	}
	if got := status(); len(got) != 1 || got[0] != types.IndexStatusDeleting {
		t.Fatalf("right after delete: got %v, want [DELETING]", got)
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Dropping"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("G")}})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: byG")
	clock.Advance(2 * time.Second)
	if got := status(); len(got) != 0 {
		t.Fatalf("after the delay: got %v, want no index", got)
	}
}
