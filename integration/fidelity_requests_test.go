package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBatchEmptyRequestItems: an empty RequestItems is refused in the
// service's words, which differ by operation (Ketlark/dynamodb-conformance
// captures/2026-08-22-batch-validation-messages, every Region).
func TestBatchEmptyRequestItems(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}, unvalidated)
	wantAPIError(t, err, "ValidationException",
		"1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}}, unvalidated)
	wantAPIError(t, err, "ValidationException", "The requestItems parameter is required for BatchWriteItem")
}

// TestConditionalOperatorEnum: a ConditionalOperator outside AND and OR is
// refused alone and bare, with the newer validation's own enum set, ahead
// of an unknown Select (paritysuite/dynamodb-conformance
// validation-ordering/query, us-east-1 and eu-west-2, 2026-10-09); a request
// missing its Key is read by the older validation, which names the value
// with the set [OR, AND] (its validation-ordering/updateItem capture).
func TestConditionalOperatorEnum(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	const newer = "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]"
	_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("vo_query_xor"),
		KeyConditions:       map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("a")}}},
		QueryFilter:         map[string]types.Condition{"b": {ComparisonOperator: types.ComparisonOperatorNull}, "c": {ComparisonOperator: types.ComparisonOperatorNull}},
		ConditionalOperator: "XOR", Select: "BOGUS"})
	wantAPIError(t, err, "ValidationException", newer)
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("vo_scan_xor"), ConditionalOperator: "XOR",
		ScanFilter: map[string]types.Condition{"b": {ComparisonOperator: types.ComparisonOperatorNull}, "c": {ComparisonOperator: types.ComparisonOperatorNull}}})
	wantAPIError(t, err, "ValidationException", newer)
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("vo_upd_nokey"),
		AttributeUpdates:    map[string]types.AttributeValueUpdate{"x": {Action: types.AttributeActionPut, Value: s("1")}},
		Expected:            map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}, "b": {Exists: aws.Bool(false)}},
		ConditionalOperator: "XOR"}, unvalidated)
	wantAPIErrorPrefix(t, err, "ValidationException", "2 validation errors detected: ")
	if !strings.Contains(err.Error(), "Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]") {
		t.Errorf("missing Key: got %v, want the older form of the XOR refusal among the errors", err)
	}
}
