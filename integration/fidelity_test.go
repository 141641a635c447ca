package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Exact DynamoDB behaviour where real code touches it: validation order,
// messages, limits and output shapes.

// TestValidationBeforeLookup: the checks that need no table (the members'
// constraints, the parameters and expressions of the request) come before the
// table lookup, so a bad request is a ValidationException even when the table
// does not exist.
func TestValidationBeforeLookup(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Exists", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	const badName = "1 validation error detected: Value 'a;b' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	tests := []struct {
		name string
		call func() error
		code string
		msg  string
	}{
		{"GetItem bad name", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("a;b"), Key: key})
			return err
		}, "ValidationException", badName},
		{"PutItem short name", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ab"), Item: key})
			return err
		}, "ValidationException", "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"DescribeTable both", func() error {
			_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("x!")})
			return err
		}, "ValidationException", "2 validation errors detected: Value 'x!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
			"Value 'x!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"Query bad name", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("a;b"), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("k")}})
			return err
		}, "ValidationException", badName},
		{"missing table, mixed parameters", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Missing"), Item: key,
				ConditionExpression: aws.String("attribute_not_exists(pk)"), Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}})
			return err
		}, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"missing table, syntax error", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Missing"), Key: key, UpdateExpression: aws.String("SET")})
			return err
		}, "ValidationException", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"`},
		{"missing table, no key condition", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Missing")})
			return err
		}, "ValidationException", "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{"missing table, unused name", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Missing"), ProjectionExpression: aws.String("a"),
				ExpressionAttributeNames: map[string]string{"#x": "x"}})
			return err
		}, "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"},
		{"missing table, bad ReturnValues", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Missing"), Key: key, ReturnValues: types.ReturnValueAllNew})
			return err
		}, "ValidationException", "Return values set to invalid value"},
		{"missing table, valid request", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Missing"), Key: key, ProjectionExpression: aws.String("a")})
			return err
		}, "ResourceNotFoundException", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.call(), tt.code, tt.msg)
		})
	}
	if got := tableState(t, c, "Exists"); len(got) != 0 {
		t.Errorf("rejected requests stored %v", got)
	}
}
