package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestProvisionedWarmThroughput: a PROVISIONED table's WarmThroughput is
// its provisioned capacity, the highest it has had (a decrease keeps it),
// 12000/4000 once the table has been on demand, kept when it goes back to
// PROVISIONED; a WarmThroughput below it is refused, one above taken
// (ack-api-quirks DDB-TABLE-061 and DDB-TABLE-059, recorded from the
// service 2026-10-08: 1/1 -> 1/1, 2/2 -> 2/2, 3/3 -> 3/3, then 1/1 and 2/1
// -> 3/3; 1/1 refused; after PAY_PER_REQUEST and back to 1/1, 12000/4000).
func TestProvisionedWarmThroughput(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	tbl := aws.String("WarmProv")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             tbl,
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	warm := func() string {
		t.Helper()
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: tbl})
		if err != nil || out.Table.WarmThroughput == nil {
			t.Fatalf("DescribeTable: %v, WarmThroughput missing", err)
		}
		w := out.Table.WarmThroughput
		return fmt.Sprintf("%d/%d", aws.ToInt64(w.ReadUnitsPerSecond), aws.ToInt64(w.WriteUnitsPerSecond))
	}
	provision := func(r, w int64) {
		t.Helper()
		if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}}); err != nil {
			t.Fatalf("UpdateTable to %d/%d: %v", r, w, err)
		}
	}
	if got := warm(); got != "1/1" {
		t.Errorf("created at 1/1: WarmThroughput %s, want 1/1", got)
	}
	for _, step := range []struct {
		r, w int64
		want string
	}{{2, 2, "2/2"}, {3, 3, "3/3"}, {1, 1, "3/3"}, {2, 1, "3/3"}} {
		provision(step.r, step.w)
		if got := warm(); got != step.want {
			t.Errorf("provisioned %d/%d: WarmThroughput %s, want %s", step.r, step.w, got, step.want)
		}
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, WarmThroughput: warmOf(aws.Int64(1), aws.Int64(1))})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not supported")
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, WarmThroughput: warmOf(aws.Int64(50), aws.Int64(50))}); err != nil {
		t.Fatalf("WarmThroughput 50/50: %v", err)
	}
	if got := warm(); got != "50/50" {
		t.Errorf("after WarmThroughput 50/50: %s, want 50/50", got)
	}
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	if got := warm(); got != "12000/4000" {
		t.Errorf("on demand: WarmThroughput %s, want 12000/4000", got)
	}
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tbl, BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}); err != nil {
		t.Fatal(err)
	}
	if got := warm(); got != "12000/4000" {
		t.Errorf("back to PROVISIONED 1/1: WarmThroughput %s, want 12000/4000", got)
	}
}
