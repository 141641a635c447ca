package integration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TestBatchWriteItemRejectsBadItemsLikePutItem sends invalid items through
// BatchWriteItem, whose puts are encoded straight from the request JSON, and
// through PutItem: each must fail with the same error type and message,
// and the batch must store nothing.
func TestBatchWriteItemRejectsBadItemsLikePutItem(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("BadItems"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	}); err != nil {
		t.Fatal(err)
	}
	ok := func(extra ritem) ritem {
		it := ritem{"pk": s("k"), "x": s("v")}
		for k, v := range extra {
			it[k] = v
		}
		return it
	}
	// A put's key that does not fit the schema is the one exception: the
	// batch words it as a key (batch), not as PutItem does
	// (paritysuite/dynamodb-conformance's batchWriteItem error-message
	// tests, four Regions, 2026).
	const mismatch = "The provided key element does not match the schema"
	tests := []struct {
		name  string
		item  ritem
		batch string
	}{
		{"key of the wrong type", ritem{"pk": n("1")}, mismatch},
		{"empty string key", ritem{"pk": s("")}, ""},
		{"no key", ritem{"x": s("v")}, mismatch},
		{"index key of the wrong type", ok(ritem{"g": n("1")}), ""},
		{"empty index key", ok(ritem{"g": s("")}), ""},
		{"empty string set", ok(ritem{"ss": &types.AttributeValueMemberSS{Value: []string{}}}), ""},
		// BatchWriteItem words a duplicate in the older layer (valueLayers).
		{"duplicate string set members", ok(ritem{"ss": &types.AttributeValueMemberSS{Value: []string{"a", "a"}}}),
			"One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{"duplicate number set members", ok(ritem{"ns": &types.AttributeValueMemberNS{Value: []string{"1", "1.0"}}}), "Input collection contains duplicates"},
		{"not a number", ok(ritem{"n": n("abc")}), ""},
		{"number out of range", ok(ritem{"n": n("1e126")}), ""},
		{"empty set inside a map", ok(ritem{"m": &types.AttributeValueMemberM{Value: ritem{"ss": &types.AttributeValueMemberSS{Value: []string{}}}}}), ""},
		{"item over 400 KB", ok(ritem{"big": s(strings.Repeat("b", 400*1024))}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, putErr := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("BadItems"), Item: tt.item})
			var want smithy.APIError
			if !errors.As(putErr, &want) || want.ErrorCode() != "ValidationException" || want.ErrorMessage() == "" {
				t.Fatalf("PutItem: got %v, want a ValidationException with a message", putErr)
			}
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"BadItems": {{PutRequest: &types.PutRequest{Item: ritem{"pk": s("good")}}}, {PutRequest: &types.PutRequest{Item: tt.item}}},
			}})
			// PutItem envelopes a bad number; BatchWriteItem sends it bare
			// (paritysuite/dynamodb-conformance valueLayers capture).
			msg := strings.TrimPrefix(want.ErrorMessage(), "1 validation error detected: ")
			if tt.batch != "" {
				msg = tt.batch
			}
			wantAPIError(t, err, want.ErrorCode(), msg)
		})
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("BadItems")})
	if err != nil || out.Count != 0 {
		t.Errorf("after the failed batches: %d items (%v), want none", out.Count, err)
	}
}
