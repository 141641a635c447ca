package integration

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestEmptyAttributeNames: an attribute named "" is refused wherever a
// write names one at the top level of an item (PutItem, BatchWriteItem, a
// transaction's Put, UpdateItem's AttributeUpdates) with the service's
// "Empty attribute name", before the table is looked up; a name mapped to ""
// in ExpressionAttributeNames, and a placeholder longer than 255 bytes, with
// the words the service gives (ExtendDB/extenddb's dual-target tests,
// captured in us-east-1); PutItem and UpdateItem send them inside the "1
// validation error detected: " envelope, as they do every refusal found
// before the table is looked up (table.requestError). Nothing is written
// and no stream record appears.
func TestEmptyAttributeNames(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c := srv.client("us-east-1")
	arn := createStreamTable(t, c, "EmptyNames", types.StreamViewTypeNewAndOldImages)
	key := map[string]types.AttributeValue{"pk": s("k"), "sk": s("1")}
	withEmpty := withAttr(key, "", s("x"))
	const empty, env = "Empty attribute name", "1 validation error detected: "
	tests := []struct {
		name string
		call func(tableName string) error
		want string
	}{
		{"PutItem", func(tn string) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tn), Item: withEmpty})
			return err
		}, env + empty},
		{"BatchWriteItem", func(tn string) error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				tn: {{PutRequest: &types.PutRequest{Item: withEmpty}}}}})
			return err
		}, empty},
		{"TransactWriteItems", func(tn string) error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(tn), Item: withEmpty}}}})
			return err
		}, empty},
		{"UpdateItem AttributeUpdates", func(tn string) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tn), Key: key,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"": {Action: types.AttributeActionPut, Value: s("x")}}})
			return err
		}, env + empty},
		{"UpdateItem name mapped to empty", func(tn string) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tn), Key: key, UpdateExpression: aws.String("SET #a = :v"),
				ExpressionAttributeNames: map[string]string{"#a": ""}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("x")}})
			return err
		}, env + "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{"GetItem name mapped to empty", func(tn string) error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tn), Key: key, ProjectionExpression: aws.String("#a"),
				ExpressionAttributeNames: map[string]string{"#a": ""}})
			return err
		}, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{"name placeholder over 255 bytes", func(tn string) error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tn), Key: key, ProjectionExpression: aws.String("#a"),
				ExpressionAttributeNames: map[string]string{"#" + strings.Repeat("a", 255): "a"}})
			return err
		}, "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256"},
		{"name placeholder too long and malformed", func(tn string) error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tn), Key: key, ProjectionExpression: aws.String("#a"),
				ExpressionAttributeNames: map[string]string{"#" + strings.Repeat("a", 255) + "-x": "a"}})
			return err
		}, "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 258"},
		{"value placeholder over 255 bytes", func(tn string) error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(tn), FilterExpression: aws.String("a = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":" + strings.Repeat("v", 255): s("x")}})
			return err
		}, "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.call("EmptyNames"), "ValidationException", tt.want)
			// Refused before the table is looked up.
			wantAPIError(t, tt.call("EmptyNamesAbsent"), "ValidationException", tt.want)
		})
	}
	if got := tableState(t, c, "EmptyNames"); len(got) != 0 {
		t.Errorf("refused writes stored %v", got)
	}
	if recs, _ := walkStream(t, streamsClient(srv.URL), arn); len(recs) != 0 {
		t.Errorf("refused writes left %d stream records", len(recs))
	}
	// A 255-byte placeholder and a name of one byte are fine.
	long := "#" + strings.Repeat("a", 254)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("EmptyNames"), Item: withAttr(key, "x", s("1")),
		ConditionExpression: aws.String("attribute_not_exists(" + long + ")"), ExpressionAttributeNames: map[string]string{long: "x"}}); err != nil {
		t.Fatalf("255-byte placeholder: %v", err)
	}
	if got := tableState(t, c, "EmptyNames"); !slices.Equal(got, []string{`{pk:S"k",sk:S"1",x:S"1"}`}) {
		t.Errorf("after the accepted put: %v", got)
	}
}
