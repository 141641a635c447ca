package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestNumberExponentLimits: an exponent far outside DynamoDB's range is an
// overflow or underflow wherever a number is read (item, key, expression
// value), one past a 64-bit integer cannot be converted at all (the text
// echoed), and a zero is range-checked by the exponent it is written with.
// PutItem, UpdateItem and DeleteItem send these inside the "1 validation
// error detected: " envelope; reads send them bare.
func TestNumberExponentLimits(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "NumExp", false)
	const (
		over   = "Number overflow. Attempting to store a number with magnitude larger than supported range"
		under  = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
		unread = "The parameter cannot be converted to a numeric value: "
		env    = "1 validation error detected: "
	)
	put := func(v string) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("NumExp"),
			Item: map[string]types.AttributeValue{"pk": s("k"), "v": n(v)}})
		return err
	}
	for _, tc := range []struct{ v, msg string }{
		{"1e99999999999", over}, {"1e-99999999999", under}, {"1e2147483648", over},
		{"1e9223372036854775808", unread + "1e9223372036854775808"}, {"0e126", over}, {"0e-131", under},
		{"12x", unread + "12x"}, {"", unread}, {"123456789012345678901234567890123456789", "Attempting to store more than 38 significant digits in a Number"},
	} {
		wantAPIError(t, put(tc.v), "ValidationException", env+tc.msg)
	}
	if err := put("0e125"); err != nil {
		t.Fatalf("0e125: %v", err)
	}
	wantItem(t, c, "NumExp", map[string]types.AttributeValue{"pk": s("k")}, `M{pk:S"k",v:N0}`)
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("NumExp"), Key: map[string]types.AttributeValue{"pk": s("k")},
		UpdateExpression: aws.String("SET m = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1e99999999999")}})
	wantAPIError(t, err, "ValidationException", env+over)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("NumExp"), Item: map[string]types.AttributeValue{"pk": s("k")},
		ConditionExpression: aws.String("attribute_not_exists(n) OR n = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1e-99999999999")}})
	wantAPIError(t, err, "ValidationException", env+under)
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("NumExp"), Key: map[string]types.AttributeValue{"pk": s("k")},
		ConditionExpression: aws.String("n = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("abc")}})
	wantAPIError(t, err, "ValidationException", env+unread+"abc")
	createNumTable := &dynamodb.CreateTableInput{TableName: aws.String("NumKey"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}}
	if _, err := c.CreateTable(ctx, createNumTable); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("NumKey"), Key: map[string]types.AttributeValue{"pk": n("1e99999999999")}})
	wantAPIError(t, err, "ValidationException", over)
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("NumKey"), Key: map[string]types.AttributeValue{"pk": n("abc")}})
	wantAPIError(t, err, "ValidationException", unread+"abc")
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"NumKey": {Keys: []map[string]types.AttributeValue{{"pk": n("1e99999999999")}}}}})
	wantAPIError(t, err, "ValidationException", over)
}
