package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestUpdateItemReturnValuesNewer: UpdateItem refuses a ReturnValues
// outside its enum in the service's newer words, alone, before the table
// is looked up, even beside an unknown ReturnConsumedCapacity
// (paritysuite/dynamodb-conformance registry row
// update-item-validation-error-aggregation, 31 of 33 Regions, us-east-1 and
// eu-west-2 among them, 2026-10-07); an invalid table name goes first, in
// the older per-value form; without a Key every member's refusal is joined
// in the older form, in the service's member order (the same suite's
// validation-ordering/updateItem, eu-west-2 and us-east-1, 2026-10-09).
// Nothing is written.
func TestUpdateItemReturnValuesNewer(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createTable(t, c, "RVNewer", false)
	const newer = "1 validation error detected: Failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATE_NEW, NONE]"
	key := map[string]types.AttributeValue{"pk": s("k")}
	update := func(name string, rv types.ReturnValue, rcc types.ReturnConsumedCapacity) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
			UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("x")},
			ReturnValues: rv, ReturnConsumedCapacity: rcc})
		return err
	}
	wantAPIError(t, update("RVNewer", "INVALID", "INVALID"), "ValidationException", newer)
	wantAPIError(t, update("RVNewer", "INVALID", ""), "ValidationException", newer)
	wantAPIError(t, update("Absent_table", "INVALID", "INVALID"), "ValidationException", newer)
	wantAPIError(t, update("RVNewer", "", "INVALID"), "ValidationException", "1 validation error detected: Value 'INVALID' at 'returnConsumedCapacity' "+
		"failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
	err := update("ab", "INVALID", "")
	if err == nil || !strings.Contains(err.Error(), "at 'tableName'") || strings.Contains(err.Error(), "UPDATE_NEW") {
		t.Errorf("a short table name beside an unknown ReturnValues: got %v, want the table name refused in the older form", err)
	}
	// A ConditionalOperator outside its enum is reported first, in its own newer words.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("RVNewer"), Key: key, ReturnValues: "INVALID",
		AttributeUpdates: map[string]types.AttributeValueUpdate{"x": {Action: types.AttributeActionPut, Value: s("1")}},
		Expected:         map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}, "b": {Exists: aws.Bool(false)}}, ConditionalOperator: "XOR"})
	wantAPIError(t, err, "ValidationException", "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]")
	status, _, msg := rawCall(t, srv.URL, "UpdateItem", `{"TableName":"","UpdateExpression":"SET a = :a","ExpressionAttributeValues":{":a":{"S":"x"}},`+
		`"ReturnConsumedCapacity":"INVALID","ReturnValues":"INVALID"}`)
	if want := "4 validation errors detected: " +
		"Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; " +
		"Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1; " +
		"Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; " +
		"Value null at 'key' failed to satisfy constraint: Member must not be null"; status != 400 || msg != want {
		t.Errorf("UpdateItem without Key:\n got %d %q\nwant 400 %q", status, msg, want)
	}
	wantItem(t, c, "RVNewer", key, "")
}
