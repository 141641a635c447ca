package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestIndexKeyWriteValidation: an item whose index key attribute has the
// wrong type or is an empty string is rejected with DynamoDB's message by
// every write operation, and nothing is stored.
func TestIndexKeyWriteValidation(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "IxVal", true, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS, "ls": types.ScalarAttributeTypeN},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeKeysOnly)},
		[]types.LocalSecondaryIndex{lsiDef("byLs", "ls", types.ProjectionTypeKeysOnly)})
	const (
		typeG  = "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG"
		emptyG = "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: byG, IndexKey: g"
		typeLs = "One or more parameter values were invalid: Type mismatch for Index Key ls Expected: N Actual: S IndexName: byLs"
		// An index key value over the key size limit names the index key, as
		// DynamoDB does, not the table's "Size of hashkey" wording.
		bigG = "One or more parameter values were invalid: Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: byG"
	)
	key := ritem{"pk": s("p"), "sk": s("s")}
	item := func(attr string, v types.AttributeValue) ritem { return ritem{"pk": s("p"), "sk": s("s"), attr: v} }
	for _, tc := range []struct {
		name string
		run  func() error
		msg  string
	}{
		{"PutItem wrong type", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxVal"), Item: item("g", n("1"))})
			return err
		}, typeG},
		{"PutItem empty string", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxVal"), Item: item("g", s(""))})
			return err
		}, emptyG},
		{"PutItem index key too large", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxVal"), Item: item("g", s(strings.Repeat("x", 2049)))})
			return err
		}, bigG},
		{"PutItem LSI wrong type", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxVal"), Item: item("ls", s("x"))})
			return err
		}, typeLs},
		{"UpdateItem wrong type", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("IxVal"), Key: key,
				UpdateExpression: aws.String("SET g = :v"), ExpressionAttributeValues: rvals(":v", n("1"))})
			return err
		}, typeG},
		{"UpdateItem empty string", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("IxVal"), Key: key,
				UpdateExpression: aws.String("SET g = :v"), ExpressionAttributeValues: rvals(":v", s(""))})
			return err
		}, emptyG},
		{"BatchWriteItem wrong type", func() error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"IxVal": {{PutRequest: &types.PutRequest{Item: item("g", n("1"))}}}}})
			return err
		}, typeG},
		{"TransactWriteItems empty string", func() error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("IxVal"), Item: item("g", s(""))}}}})
			return err
		}, emptyG},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAPIError(t, tc.run(), "ValidationException", tc.msg)
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("IxVal"), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Item != nil {
				t.Fatalf("after rejected write: got item %v, want none", out.Item)
			}
		})
	}
	// Nothing reached the indexes either.
	if got := scanPages(t, c, "IxVal", "byG", 0, nil); len(got) != 0 {
		t.Errorf("byG after rejected writes: got %d entries, want 0", len(got))
	}
	// A non-key attribute of any type, and a missing index key, are fine.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxVal"), Item: ritem{"pk": s("p"), "sk": s("s"), "other": s("")}}); err != nil {
		t.Fatalf("PutItem without index keys: %v", err)
	}
}
