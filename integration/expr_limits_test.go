package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestExprOperatorLimit: an expression of 301 operators is refused with
// DynamoDB's message and leaves the stored item as it was; 299 pass.
func TestExprOperatorLimit(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "OpLim", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("OpLim"),
		Item: map[string]types.AttributeValue{"pk": s("k"), "a": n("1")}}); err != nil {
		t.Fatal(err)
	}
	// "a < :n OR (a < :n OR (...))" with m comparisons has 2m-1 operators.
	cond := func(m int) string {
		return "a < :n" + strings.Repeat(" OR (a < :n", m-1) + strings.Repeat(")", m-1)
	}
	upd := func(c0 string) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("OpLim"), Key: key,
			UpdateExpression: aws.String("SET b = :n"), ConditionExpression: aws.String(c0),
			ExpressionAttributeValues: map[string]types.AttributeValue{":n": n("5")}})
		return err
	}
	err := upd(cond(151))
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Invalid ConditionExpression: The expression contains too many operators; operator count: 301")
	if got := getItem(t, c, "OpLim", key); len(got) != 2 {
		t.Errorf("after the refused update: got %v, want the item unchanged (pk, a)", got)
	}
	if err := upd(cond(150)); err != nil {
		t.Errorf("299 operators: got %v, want accepted", err)
	}
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("OpLim"), FilterExpression: aws.String(cond(200)),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": n("5")}})
	wantAPIError(t, err, "ValidationException", "Invalid FilterExpression: The expression contains too many operators; operator count: 301")
}

// TestItemNestingLimit: DynamoDB counts the attribute as level 1, so a leaf
// inside 31 maps is stored and one inside 32 is refused.
func TestItemNestingLimit(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "NestLim", false)
	deep := func(wraps int) types.AttributeValue {
		var v types.AttributeValue = s("leaf")
		for range wraps {
			v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": v}}
		}
		return v
	}
	put := func(pk string, v types.AttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("NestLim"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "data": v}})
		return err
	}
	if err := put("ok", deep(31)); err != nil {
		t.Fatalf("31 nested maps: got %v, want stored", err)
	}
	const nesting = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	// PutItem sends it in the validation envelope, BatchWriteItem bare.
	wantAPIError(t, put("ok", deep(32)), "ValidationException", "1 validation error detected: "+nesting)
	_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"NestLim": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("ok"), "data": deep(32)}}}}}})
	wantAPIError(t, err, "ValidationException", nesting)
	got := getItem(t, c, "NestLim", map[string]types.AttributeValue{"pk": s("ok")})
	depth := 0
	for v := got["data"]; ; depth++ {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			break
		}
		v = m.Value["n"]
	}
	if depth != 31 {
		t.Errorf("stored item after the refused put: depth %d, want 31 (unchanged)", depth)
	}
}
