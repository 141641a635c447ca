package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestLegacyExpectedMembers: how the members of a legacy Expected entry go
// together, through PutItem and DeleteItem. Refused, in DynamoDB's words
// and order as architect/dynalite's suite (written against the service)
// records them: Value with AttributeValueList, Exists with a
// ComparisonOperator, an operator that takes values given none, an
// AttributeValueList without an operator, and neither Value nor Exists.
// Taken: a Value standing for the list of one of an operator (NOT_CONTAINS
// among them), and an empty Expected, which is no condition.
func TestLegacyExpectedMembers(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Exp", false)
	item := map[string]types.AttributeValue{"pk": s("k"), "tags": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, "n": n("5")}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Exp"), Item: item}); err != nil {
		t.Fatal(err)
	}
	const pre = "One or more parameter values were invalid: "
	for _, tc := range []struct {
		name string
		exp  types.ExpectedAttributeValue
		want string
	}{
		{"Value and list", types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorEq, Value: n("5"), AttributeValueList: []types.AttributeValue{n("5")}},
			pre + "Value and AttributeValueList cannot be used together for Attribute: n"},
		{"Exists and operator", types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorNull, Exists: aws.Bool(false)},
			pre + "Exists and ComparisonOperator cannot be used together for Attribute: n"},
		{"operator without values", types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorLt},
			pre + "Value or AttributeValueList must be used with ComparisonOperator: LT for Attribute: n"},
		{"Value for BETWEEN", types.ExpectedAttributeValue{ComparisonOperator: types.ComparisonOperatorBetween, Value: n("5")},
			pre + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
		{"list without operator", types.ExpectedAttributeValue{AttributeValueList: []types.AttributeValue{n("5")}},
			pre + "AttributeValueList can only be used with a ComparisonOperator for Attribute: n"},
		{"nothing", types.ExpectedAttributeValue{},
			pre + "Value must be provided when Exists is null for Attribute: n"},
		{"Exists true without Value", types.ExpectedAttributeValue{Exists: aws.Bool(true)},
			pre + "Value must be provided when Exists is true for Attribute: n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Exp"), Key: map[string]types.AttributeValue{"pk": s("k")},
				Expected: map[string]types.ExpectedAttributeValue{"n": tc.exp}})
			wantAPIError(t, err, "ValidationException", "1 validation error detected: "+tc.want) // DeleteItem's envelope
		})
	}
	// A Value is the operator's one value: NOT_CONTAINS "z" holds, "a" not.
	put := func(exp map[string]types.ExpectedAttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Exp"), Item: item, Expected: exp})
		return err
	}
	if err := put(map[string]types.ExpectedAttributeValue{"tags": {ComparisonOperator: types.ComparisonOperatorNotContains, Value: s("z")}}); err != nil {
		t.Errorf("NOT_CONTAINS z with Value: %v", err)
	}
	err := put(map[string]types.ExpectedAttributeValue{"tags": {ComparisonOperator: types.ComparisonOperatorNotContains, AttributeValueList: []types.AttributeValue{s("a")}}})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	if err := put(map[string]types.ExpectedAttributeValue{"n": {ComparisonOperator: types.ComparisonOperatorGt, Value: n("4")}}); err != nil {
		t.Errorf("GT 4 with Value: %v", err)
	}
	if err := put(map[string]types.ExpectedAttributeValue{}); err != nil {
		t.Errorf("empty Expected: %v", err)
	}
}
