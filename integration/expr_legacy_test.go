package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exExp builds a legacy Expected entry with a ComparisonOperator.
func exExp(op types.ComparisonOperator, vs ...types.AttributeValue) types.ExpectedAttributeValue {
	return types.ExpectedAttributeValue{ComparisonOperator: op, AttributeValueList: vs}
}

// TestLegacyExpected evaluates the legacy Expected parameter against exSeed.
func TestLegacyExpected(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "LegExp", false)
	exPut(t, c, "LegExp", exSeed("k"))
	type exp = map[string]types.ExpectedAttributeValue
	tests := []struct {
		name     string
		expected exp
		op       types.ConditionalOperator
		want     bool
	}{
		{"Value equal", exp{"num": {Value: n("10")}}, "", true},
		{"Value differs", exp{"num": {Value: n("11")}}, "", false},
		{"Value on absent", exp{"nope": {Value: n("10")}}, "", false},
		{"Exists true with Value", exp{"str": {Value: s("hello world"), Exists: aws.Bool(true)}}, "", true},
		{"Exists false absent", exp{"nope": {Exists: aws.Bool(false)}}, "", true},
		{"Exists false present", exp{"num": {Exists: aws.Bool(false)}}, "", false},
		{"EQ", exp{"num": exExp(types.ComparisonOperatorEq, n("10"))}, "", true},
		{"NE", exp{"num": exExp(types.ComparisonOperatorNe, n("10"))}, "", false},
		{"LT", exp{"num": exExp(types.ComparisonOperatorLt, n("11"))}, "", true},
		{"LE", exp{"num": exExp(types.ComparisonOperatorLe, n("9"))}, "", false},
		{"GT", exp{"num": exExp(types.ComparisonOperatorGt, n("5"))}, "", true},
		{"GE", exp{"num": exExp(types.ComparisonOperatorGe, n("10"))}, "", true},
		{"GT string", exp{"str": exExp(types.ComparisonOperatorGt, s("i"))}, "", false},
		{"GT wrong type", exp{"str": exExp(types.ComparisonOperatorGt, n("1"))}, "", false},
		{"BETWEEN", exp{"num": exExp(types.ComparisonOperatorBetween, n("5"), n("10"))}, "", true},
		{"BETWEEN outside", exp{"num": exExp(types.ComparisonOperatorBetween, n("11"), n("20"))}, "", false},
		{"IN", exp{"str": exExp(types.ComparisonOperatorIn, s("a"), s("hello world"))}, "", true},
		{"IN none", exp{"num": exExp(types.ComparisonOperatorIn, n("1"), n("2"))}, "", false},
		{"NULL absent", exp{"nope": exExp(types.ComparisonOperatorNull)}, "", true},
		{"NULL present", exp{"num": exExp(types.ComparisonOperatorNull)}, "", false},
		{"NOT_NULL", exp{"num": exExp(types.ComparisonOperatorNotNull)}, "", true},
		{"CONTAINS set", exp{"ss": exExp(types.ComparisonOperatorContains, s("a"))}, "", true},
		{"CONTAINS string", exp{"str": exExp(types.ComparisonOperatorContains, s("wor"))}, "", true},
		{"CONTAINS list", exp{"lst": exExp(types.ComparisonOperatorContains, s("x"))}, "", true},
		{"NOT_CONTAINS", exp{"ss": exExp(types.ComparisonOperatorNotContains, s("z"))}, "", true},
		{"NOT_CONTAINS present", exp{"ss": exExp(types.ComparisonOperatorNotContains, s("a"))}, "", false},
		{"BEGINS_WITH", exp{"str": exExp(types.ComparisonOperatorBeginsWith, s("he"))}, "", true},
		{"BEGINS_WITH no", exp{"str": exExp(types.ComparisonOperatorBeginsWith, s("wo"))}, "", false},
		{"default AND", exp{"num": {Value: n("11")}, "str": {Value: s("hello world")}}, "", false},
		{"AND all true", exp{"num": {Value: n("10")}, "str": {Value: s("hello world")}}, types.ConditionalOperatorAnd, true},
		{"AND one false", exp{"num": {Value: n("11")}, "str": {Value: s("hello world")}}, types.ConditionalOperatorAnd, false},
		{"OR one true", exp{"num": {Value: n("11")}, "str": {Value: s("hello world")}}, types.ConditionalOperatorOr, true},
		{"OR none true", exp{"num": {Value: n("11")}, "nope": {Exists: aws.Bool(true), Value: n("1")}}, types.ConditionalOperatorOr, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("LegExp"), Item: exSeed("k"), Expected: tc.expected, ConditionalOperator: tc.op})
			switch {
			case tc.want && err != nil:
				t.Fatalf("got %v, want success", err)
			case !tc.want && !exIsCCF(err):
				t.Fatalf("got %v, want ConditionalCheckFailedException", err)
			}
		})
	}
	// Expected on DeleteItem, with ALL_OLD on failure.
	_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("LegExp"), Key: map[string]types.AttributeValue{"pk": s("k")},
		Expected: exp{"num": {Value: n("1")}}, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	if ccf := (*types.ConditionalCheckFailedException)(nil); !exIsCCF(err) {
		t.Fatalf("DeleteItem Expected: got %v, want ConditionalCheckFailedException", err)
	} else if errorsAs(err, &ccf); exRender(ccf.Item) != exRender(exSeed("k")) {
		t.Errorf("DeleteItem Expected ALL_OLD: got %s", exRender(ccf.Item))
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("LegExp"), Key: map[string]types.AttributeValue{"pk": s("k")},
		Expected: exp{"num": {Value: n("10")}}}); err != nil {
		t.Fatalf("DeleteItem with passing Expected: %v", err)
	}

	checkLegacyInvalidShapes(t, c)
}

// checkLegacyInvalidShapes expects a ValidationException for each invalid
// shape of a legacy Expected entry.
func checkLegacyInvalidShapes(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	type exp = map[string]types.ExpectedAttributeValue
	// Invalid legacy shapes are ValidationExceptions.
	for name, e := range map[string]exp{
		"Exists false with Value":    {"num": {Exists: aws.Bool(false), Value: n("1")}},
		"Exists true without Value":  {"num": {Exists: aws.Bool(true)}},
		"Value and ComparisonOp":     {"num": {Value: n("1"), ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{n("1")}}},
		"BETWEEN with one value":     {"num": exExp(types.ComparisonOperatorBetween, n("1"))},
		"EQ with two values":         {"num": exExp(types.ComparisonOperatorEq, n("1"), n("2"))},
		"NULL with a value":          {"num": exExp(types.ComparisonOperatorNull, n("1"))},
		"Exists with ComparisonOper": {"num": {Exists: aws.Bool(true), ComparisonOperator: types.ComparisonOperatorNotNull}},
	} {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("LegExp"), Item: exSeed("k"), Expected: e})
		var ae interface{ ErrorCode() string }
		if !errorsAs(err, &ae) || ae.ErrorCode() != "ValidationException" {
			t.Errorf("%s: got %v, want ValidationException", name, err)
		}
	}
}

// TestLegacyAttributeUpdates checks UpdateItem's AttributeUpdates actions.
func TestLegacyAttributeUpdates(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "LegUpd", false)
	exPut(t, c, "LegUpd", exSeed("k"))
	key := map[string]types.AttributeValue{"pk": s("k")}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegUpd"), Key: key,
		AttributeUpdates: map[string]types.AttributeValueUpdate{
			"num":    {Action: types.AttributeActionPut, Value: n("20")},
			"str":    {Action: types.AttributeActionDelete},
			"cnt":    {Action: types.AttributeActionAdd, Value: n("5")},
			"flag":   {Value: &types.AttributeValueMemberBOOL{Value: false}}, // PUT is the default action
			"ss":     {Action: types.AttributeActionAdd, Value: exSS("x")},
			"ns":     {Action: types.AttributeActionDelete, Value: exNS("1")},
			"bs":     {Action: types.AttributeActionDelete, Value: exSeed("")["bs"]},
			"lst":    {Action: types.AttributeActionAdd, Value: exL(s("z"))},
			"newss":  {Action: types.AttributeActionAdd, Value: exSS("q")},
			"status": {Action: types.AttributeActionPut, Value: s("done")},
			"nope":   {Action: types.AttributeActionDelete},
		},
		Expected:     map[string]types.ExpectedAttributeValue{"num": {Value: n("10")}},
		ReturnValues: types.ReturnValueUpdatedNew})
	if err != nil {
		t.Fatal(err)
	}
	want := exSeed("k")
	delete(want, "str")
	delete(want, "bs")
	want["num"], want["cnt"], want["flag"] = n("20"), n("5"), &types.AttributeValueMemberBOOL{Value: false}
	want["ss"], want["ns"], want["newss"], want["status"] = exSS("a", "b", "c", "x"), exNS("2"), exSS("q"), s("done")
	want["lst"] = exL(n("1"), s("x"), exM("deep", s("y")), s("z"))
	if got, want := exRender(exGet(t, c, "LegUpd", "k")), exRender(want); got != want {
		t.Errorf("AttributeUpdates:\ngot  %s\nwant %s", got, want)
	}
	wantNew := map[string]types.AttributeValue{"num": want["num"], "cnt": want["cnt"], "flag": want["flag"], "ss": want["ss"], "ns": want["ns"],
		"lst": want["lst"], "newss": want["newss"], "status": want["status"]}
	if got, want := exRender(out.Attributes), exRender(wantNew); got != want {
		t.Errorf("AttributeUpdates UPDATED_NEW:\ngot  %s\nwant %s", got, want)
	}

	// Upsert with AttributeUpdates.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegUpd"), Key: map[string]types.AttributeValue{"pk": s("new")},
		AttributeUpdates: map[string]types.AttributeValueUpdate{"cnt": {Action: types.AttributeActionAdd, Value: n("1")}}}); err != nil {
		t.Fatal(err)
	}
	if got, want := exRender(exGet(t, c, "LegUpd", "new")), exRender(map[string]types.AttributeValue{"pk": s("new"), "cnt": n("1")}); got != want {
		t.Errorf("AttributeUpdates upsert: got %s, want %s", got, want)
	}

	// A failing Expected leaves the item alone.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegUpd"), Key: key,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"num": {Value: n("1")}},
		Expected:         map[string]types.ExpectedAttributeValue{"num": {Value: n("10")}}})
	if !exIsCCF(err) {
		t.Errorf("AttributeUpdates with failing Expected: got %v, want ConditionalCheckFailedException", err)
	}

	// Key attributes cannot be updated this way either.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegUpd"), Key: key,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"pk": {Value: s("other")}}})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")
}

// TestLegacyMixedWithExpressions checks the request-level rule that legacy and
// expression parameters never mix.
func TestLegacyMixedWithExpressions(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "LegMix", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	exp := map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}}
	upd := map[string]types.AttributeValueUpdate{"a": {Value: n("1")}}
	const prefix = "Can not use both expression and non-expression parameters in the same request: "

	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("LegMix"), Item: key,
		ConditionExpression: aws.String("attribute_not_exists(pk)"), Expected: exp})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+prefix+"Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")

	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("LegMix"), Key: key,
		ConditionExpression: aws.String("attribute_exists(pk)"), Expected: exp})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+prefix+"Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")

	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegMix"), Key: key,
		UpdateExpression: aws.String("SET a = :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}, AttributeUpdates: upd})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+prefix+"Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}")

	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegMix"), Key: key,
		AttributeUpdates: upd, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+prefix+"Non-expression parameters: {AttributeUpdates} Expression parameters: {ConditionExpression}")

	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("LegMix"), Item: key,
		ConditionExpression: aws.String("attribute_not_exists(pk)"), ConditionalOperator: types.ConditionalOperatorOr})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+prefix+"Non-expression parameters: {ConditionalOperator} Expression parameters: {ConditionExpression}")

	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("LegMix"), Item: key,
		Expected: exp, ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: ExpressionAttributeValues can only be specified when using expressions")
}
