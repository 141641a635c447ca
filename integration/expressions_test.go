package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exCondValues are the values the condition cases may mention.
var exCondValues = map[string]types.AttributeValue{
	":zero": n("0"), ":one": n("1"), ":three": n("3"), ":five": n("5"), ":ten": n("10"),
	":eleven": n("11"), ":twenty": n("20"), ":ten_s": s("10"),
	":hw": s("hello world"), ":he": s("he"), ":wor": s("wor"), ":world": s("world"),
	":i": s("i"), ":zzz": s("zzz"), ":a": s("a"), ":z": s("z"), ":x": s("x"), ":y": s("y"),
	":t1": s("t1"), ":active": s("active"), ":dot": s("dot"), ":n": s("n"),
	":b01": exB(1), ":b1": exB(1), ":b9": exB(9), ":b123": exB(1, 2, 3),
	":N": s("N"), ":S": s("S"), ":SS": s("SS"), ":NS": s("NS"), ":BS": s("BS"), ":B": s("B"),
	":BOOL": s("BOOL"), ":NULL": s("NULL"), ":L": s("L"), ":M": s("M"),
	":true": &types.AttributeValueMemberBOOL{Value: true}, ":null": &types.AttributeValueMemberNULL{Value: true},
	":ssab": exSS("a", "b"), ":ssabc": exSS("c", "b", "a"),
	":deep": exM("deep", s("y")), ":tags": exL(s("t1")),
}

var exCondNames = map[string]string{
	"#s": "status", "#d": "my.dotted", "#m": "mp", "#i": "in1", "#l": "lst", "#pk": "pk",
}

// condCase is a condition of TestConditionExpressions and whether exSeed
// passes it.
type condCase struct {
	cond string
	want bool
}

// conditionCases are TestConditionExpressions' conditions, by kind.
func conditionCases() []condCase {
	return []condCase{
		// comparators, numbers and strings, mismatched types
		{"num = :ten", true}, {"num = :eleven", false},
		{"num <> :ten", false}, {"num <> :eleven", true},
		{"num < :eleven", true}, {"num < :ten", false},
		{"num <= :ten", true}, {"num <= :five", false},
		{"num > :five", true}, {"num > :ten", false},
		{"num >= :ten", true}, {"num >= :eleven", false},
		{"str < :i", true}, {"str > :i", false}, {"str = :hw", true},
		{"num = :ten_s", false}, {"num <> :ten_s", true}, {"num < :ten_s", false}, {"num > :ten_s", false},
		{"bin = :b123", true}, {"bin > :b01", true},
		{"flag = :true", true}, {"nul = :null", true},
		{"ss = :ssabc", true}, {"ss = :ssab", false},
		{"mp.tags = :tags", true}, {"lst[2] = :deep", true},
		{"num > mp.in1.v", true}, {"mp.in1.v = lst[0]", false},
		{"nope = :ten", false}, {"nope <> :ten", true}, {"nope < :ten", false},
		// BETWEEN, IN
		{"num BETWEEN :five AND :ten", true}, {"num BETWEEN :ten AND :ten", true},
		{"num BETWEEN :eleven AND :twenty", false}, {"str BETWEEN :he AND :i", true},
		{"nope BETWEEN :one AND :ten", false},
		{"str IN (:a, :hw)", true}, {"num IN (:five, :eleven)", false}, {"num IN (:ten)", true},
		{"num IN (:ten_s, :one)", false},
		// AND/OR/NOT precedence: NOT > AND > OR
		{"num = :ten OR num = :five AND str = :zzz", true},
		{"(num = :ten OR num = :five) AND str = :zzz", false},
		{"NOT num = :five AND num = :five", false},
		{"NOT (num = :five AND num = :five)", true},
		{"NOT num = :ten OR num = :ten", true},
		{"NOT NOT num = :ten", true},
		{"num = :one OR num = :three OR num = :ten", true},
		{"num = :ten AND str = :hw AND flag = :true", true},
		{"num = :ten AND (str = :zzz OR flag = :true)", true},
		// attribute_exists / attribute_not_exists
		{"attribute_exists(num)", true}, {"attribute_exists(nope)", false},
		{"attribute_not_exists(nope)", true}, {"attribute_not_exists(pk)", false},
		{"attribute_exists(nul)", true}, {"attribute_exists(mp.in1.v)", true},
		{"attribute_exists(mp.in1.nope)", false}, {"attribute_exists(lst[2].deep)", true},
		{"attribute_exists(lst[5])", false}, {"attribute_not_exists(lst[3])", true},
		{"attribute_exists(str.part)", false}, {"attribute_exists(num[0])", false},
		// attribute_type
		{"attribute_type(num, :N)", true}, {"attribute_type(num, :S)", false},
		{"attribute_type(str, :S)", true}, {"attribute_type(bin, :B)", true},
		{"attribute_type(flag, :BOOL)", true}, {"attribute_type(nul, :NULL)", true},
		{"attribute_type(ss, :SS)", true}, {"attribute_type(ns, :NS)", true},
		{"attribute_type(bs, :BS)", true}, {"attribute_type(lst, :L)", true},
		{"attribute_type(mp, :M)", true}, {"attribute_type(mp.in1.v, :N)", true},
		{"attribute_type(nope, :N)", false},
		// begins_with
		{"begins_with(str, :he)", true}, {"begins_with(str, :world)", false},
		{"begins_with(str, :hw)", true}, {"begins_with(bin, :b01)", true},
		{"begins_with(bin, :b9)", false},
		{"begins_with(mp.nm, :n)", true}, {"begins_with(nope, :he)", false},
		// contains: string, sets, lst
		{"contains(str, :wor)", true}, {"contains(str, :zzz)", false},
		{"contains(ss, :a)", true}, {"contains(ss, :z)", false},
		{"contains(ns, :one)", true}, {"contains(ns, :five)", false},
		{"contains(bs, :b1)", true}, {"contains(bs, :b9)", false},
		{"contains(lst, :x)", true}, {"contains(lst, :one)", true},
		{"contains(lst, :y)", false}, {"contains(lst, :deep)", true},
		{"contains(mp.tags, :t1)", true}, {"contains(num, :one)", false},
		{"contains(ss, :ssab)", false},
		// size
		{"size(str) = :eleven", true}, {"size(ss) = :three", true},
		{"size(lst) = :three", true}, {"size(mp) = :three", true},
		{"size(bin) = :three", true}, {"size(ns) > :one", true},
		{"size(mp.tags) = :one", true}, {"size(lst[2]) = :one", true},
		{"size(nope) = :zero", false}, {"size(num) = :ten", false},
		{"size(str) BETWEEN :ten AND :twenty", true}, {"size(str) IN (:eleven)", true},
		// placeholders, nested paths
		{"#s = :active", true}, {"#d = :dot", true}, {"#m.#i.v = :five", true},
		{"#l[2].deep = :y", true}, {"#m.tags[0] = :t1", true},
		{"attribute_exists(#pk) AND #s <> :n", true},
		{"lst[0] = :one", true}, {"lst[1] = :x", true}, {"lst[2].deep = :y", true},
	}
}

// TestConditionExpressions evaluates one condition per case against exSeed,
// through a PutItem that rewrites the same item, and checks pass or
// ConditionalCheckFailedException.
func TestConditionExpressions(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Cond", false)
	exPut(t, c, "Cond", exSeed("k"))
	for _, tc := range conditionCases() {
		t.Run(tc.cond, func(t *testing.T) {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: aws.String("Cond"), Item: exSeed("k"),
				ConditionExpression:       aws.String(tc.cond),
				ExpressionAttributeNames:  exNames(exCondNames, tc.cond),
				ExpressionAttributeValues: exValues(exCondValues, tc.cond),
			})
			switch {
			case tc.want && err != nil:
				t.Fatalf("got %v, want success", err)
			case !tc.want && !exIsCCF(err):
				t.Fatalf("got %v, want ConditionalCheckFailedException", err)
			}
		})
	}
}

// TestConditionOnWrites checks conditions on each write operation, on absent
// items, and the old item returned with ReturnValuesOnConditionCheckFailure.
func TestConditionOnWrites(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "CondW", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	vals := map[string]types.AttributeValue{":ten": n("10")}

	// PutItem attribute_not_exists on an absent item succeeds, then fails.
	for i, want := range []bool{true, false} {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("CondW"), Item: exSeed("k"),
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		if got := err == nil; got != want || (!want && !exIsCCF(err)) {
			t.Fatalf("put %d: got %v, want success=%v", i, err, want)
		}
	}
	// A comparison on an absent item fails.
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("CondW"), Item: map[string]types.AttributeValue{"pk": s("absent")},
		ConditionExpression: aws.String("num = :ten"), ExpressionAttributeValues: vals})
	if !exIsCCF(err) {
		t.Fatalf("condition on absent item: got %v, want ConditionalCheckFailedException", err)
	}
	var absent *types.ConditionalCheckFailedException
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("CondW"), Key: map[string]types.AttributeValue{"pk": s("absent")},
		ConditionExpression: aws.String("attribute_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	if !errors.As(err, &absent) || absent.Item != nil {
		t.Fatalf("ALL_OLD on failure for an absent item: got %v, want ConditionalCheckFailedException without Item", err)
	}
	if got := exGet(t, c, "CondW", "absent"); got != nil {
		t.Fatalf("failed put wrote %s", exRender(got))
	}

	// The failure message, and the old item only when asked for.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("CondW"), Key: key,
		UpdateExpression: aws.String("SET num = :ten"), ConditionExpression: aws.String("num > :ten"), ExpressionAttributeValues: vals})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf); ccf.Item != nil {
		t.Errorf("Item without ReturnValuesOnConditionCheckFailure: got %s, want none", exRender(ccf.Item))
	}
	conditionFailuresReturnOld(t, c, key, vals)
	if got, want := exRender(exGet(t, c, "CondW", "k")), exRender(exSeed("k")); got != want {
		t.Fatalf("item changed by failed writes: got %s, want %s", got, want)
	}

	// DeleteItem with a passing condition deletes.
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("CondW"), Key: key,
		ConditionExpression: aws.String("num = :ten"), ExpressionAttributeValues: vals}); err != nil {
		t.Fatal(err)
	}
	if got := exGet(t, c, "CondW", "k"); got != nil {
		t.Fatalf("after conditional delete: got %s, want no item", exRender(got))
	}
	// UpdateItem with a failing condition on an absent item does not upsert.
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("CondW"), Key: key,
		UpdateExpression: aws.String("SET num = :ten"), ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: vals})
	if !exIsCCF(err) {
		t.Fatalf("update of absent item with attribute_exists: got %v, want ConditionalCheckFailedException", err)
	}
	if got := exGet(t, c, "CondW", "k"); got != nil {
		t.Fatalf("failed conditional update created %s", exRender(got))
	}
}

// conditionFailuresReturnOld checks that a failing condition on a put, an
// update and a delete of table CondW's item key (exSeed("k")) returns the
// old item with ReturnValuesOnConditionCheckFailure ALL_OLD.
func conditionFailuresReturnOld(t *testing.T, c *dynamodb.Client, key, vals map[string]types.AttributeValue) {
	t.Helper()
	ctx := context.Background()
	for _, op := range []string{"put", "update", "delete"} {
		var err error
		cond, rv := aws.String("num > :ten"), types.ReturnValuesOnConditionCheckFailureAllOld
		switch op {
		case "put":
			_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("CondW"), Item: key,
				ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv})
		case "update":
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("CondW"), Key: key, UpdateExpression: aws.String("REMOVE str"),
				ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv})
		case "delete":
			_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("CondW"), Key: key,
				ConditionExpression: cond, ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: rv})
		}
		var ccf *types.ConditionalCheckFailedException
		if !errors.As(err, &ccf) {
			t.Fatalf("%s: got %v, want ConditionalCheckFailedException", op, err)
		}
		if got, want := exRender(ccf.Item), exRender(exSeed("k")); got != want {
			t.Errorf("%s ALL_OLD on failure: got %s, want %s", op, got, want)
		}
	}
}

// TestConditionExpressionBuilder uses the SDK's expression builder, whose
// generated #0/:0 placeholders must resolve like hand-written ones.
func TestConditionExpressionBuilder(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "CondB", false)
	exPut(t, c, "CondB", exSeed("k"))
	tests := []struct {
		name string
		cond expression.ConditionBuilder
		want bool
	}{
		{"eq and between", expression.Name("num").Equal(expression.Value(10)).And(expression.Name("num").Between(expression.Value(1), expression.Value(10))), true},
		{"or not", expression.Name("status").Equal(expression.Value("x")).Or(expression.Not(expression.Name("flag").Equal(expression.Value(true)))), false},
		{"nested size", expression.Name("mp.tags").Size().Equal(expression.Value(1)), true},
		{"in, contains", expression.Name("str").In(expression.Value("a"), expression.Value("hello world")).And(expression.Name("ss").Contains("b")), true},
		{"type, begins", expression.Name("lst").AttributeType(expression.List).And(expression.Name("str").BeginsWith("hello ")), true},
		{"not exists", expression.Name("mp.in1.v").AttributeNotExists(), false},
		{"lst index", expression.Name("lst[1]").Equal(expression.Value("x")), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := expression.NewBuilder().WithCondition(tc.cond).Build()
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("CondB"), Key: map[string]types.AttributeValue{"pk": s("k")},
				ConditionExpression: e.Condition(), ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()})
			switch {
			case tc.want && err != nil:
				t.Fatalf("%s: got %v, want success", aws.ToString(e.Condition()), err)
			case !tc.want && !exIsCCF(err):
				t.Fatalf("%s: got %v, want ConditionalCheckFailedException", aws.ToString(e.Condition()), err)
			}
		})
	}
}
