package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestDeleteTableDescription: DeleteTable's TableDescription has DynamoDB's
// members (name, DELETING, id, ARN, billing summary, throughput, size, count)
// and not the schema, creation time or index lists DescribeTable carries.
func TestDeleteTableDescription(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "DelShape", true, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS, "l": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeAll)},
		[]types.LocalSecondaryIndex{lsiDef("byL", "l", types.ProjectionTypeAll)})
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("DelShape"),
		Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("1")}}); err != nil {
		t.Fatal(err)
	}
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("DelShape")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("DelShape")})
	if err != nil {
		t.Fatal(err)
	}
	got, want := out.TableDescription, desc.Table
	if got.TableStatus != types.TableStatusDeleting || aws.ToString(got.TableName) != "DelShape" {
		t.Errorf("status, name: got %s %s, want DELETING DelShape", got.TableStatus, aws.ToString(got.TableName))
	}
	if aws.ToString(got.TableId) != aws.ToString(want.TableId) || aws.ToString(got.TableArn) != aws.ToString(want.TableArn) {
		t.Errorf("id, arn: got %s %s, want %s %s", aws.ToString(got.TableId), aws.ToString(got.TableArn), aws.ToString(want.TableId), aws.ToString(want.TableArn))
	}
	if b := got.BillingModeSummary; b == nil || b.BillingMode != types.BillingModePayPerRequest || b.LastUpdateToPayPerRequestDateTime == nil {
		t.Errorf("BillingModeSummary: got %+v, want PAY_PER_REQUEST with LastUpdateToPayPerRequestDateTime", b)
	}
	if p := got.ProvisionedThroughput; p == nil || aws.ToInt64(p.ReadCapacityUnits) != 0 || aws.ToInt64(p.WriteCapacityUnits) != 0 || aws.ToInt64(p.NumberOfDecreasesToday) != 0 {
		t.Errorf("ProvisionedThroughput: got %+v, want 0/0/0", p)
	}
	if got.ItemCount == nil || got.TableSizeBytes == nil {
		t.Errorf("ItemCount, TableSizeBytes: got %v %v, want present", got.ItemCount, got.TableSizeBytes)
	}
	if got.KeySchema != nil || got.AttributeDefinitions != nil || got.CreationDateTime != nil ||
		got.GlobalSecondaryIndexes != nil || got.LocalSecondaryIndexes != nil || got.DeletionProtectionEnabled != nil {
		t.Errorf("got %+v, want no KeySchema, AttributeDefinitions, CreationDateTime, indexes or DeletionProtectionEnabled", got)
	}
	// DescribeTable carries those members, so their absence above is DeleteTable's.
	if want.KeySchema == nil || want.GlobalSecondaryIndexes == nil || want.LocalSecondaryIndexes == nil || want.CreationDateTime == nil {
		t.Errorf("DescribeTable: got %+v, want the schema, indexes and creation time", want)
	}
}
