package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestProjectionGetItem checks GetItem's ProjectionExpression and AttributesToGet.
func TestProjectionGetItem(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Proj", false)
	exPut(t, c, "Proj", exSeed("k"))
	names := map[string]string{"#s": "status", "#d": "my.dotted", "#m": "mp", "#x": "in1"}
	tests := []struct {
		proj string
		want map[string]types.AttributeValue
	}{
		{"num", map[string]types.AttributeValue{"num": n("10")}},
		{"num, str, pk", map[string]types.AttributeValue{"num": n("10"), "str": s("hello world"), "pk": s("k")}},
		{"mp.in1.v", map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("5")))}},
		{"mp.in1", map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("5")))}},
		{"mp.tags[0], mp.nm", map[string]types.AttributeValue{"mp": exM("tags", exL(s("t1")), "nm", s("n"))}},
		{"lst[2].deep, lst[0]", map[string]types.AttributeValue{"lst": exL(n("1"), exM("deep", s("y")))}},
		{"lst[1]", map[string]types.AttributeValue{"lst": exL(s("x"))}},
		{"lst[2]", map[string]types.AttributeValue{"lst": exL(exM("deep", s("y")))}},
		{"lst[1], lst[7]", map[string]types.AttributeValue{"lst": exL(s("x"))}},
		{"#s, #d", map[string]types.AttributeValue{"status": s("active"), "my.dotted": s("dot")}},
		{"#m.#x.v", map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("5")))}},
		{"ss, bs, nul", map[string]types.AttributeValue{"ss": exSS("a", "b", "c"), "bs": exSeed("")["bs"], "nul": exSeed("")["nul"]}},
		{"num, nope, mp.nope, lst[9], str.x", map[string]types.AttributeValue{"num": n("10")}},
	}
	for _, tc := range tests {
		t.Run(tc.proj, func(t *testing.T) {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Proj"), Key: map[string]types.AttributeValue{"pk": s("k")},
				ProjectionExpression: aws.String(tc.proj), ExpressionAttributeNames: exNames(names, tc.proj)})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := exRender(out.Item), exRender(tc.want); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	// Nothing projected from an existing item: no attributes.
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Proj"), Key: map[string]types.AttributeValue{"pk": s("k")}, ProjectionExpression: aws.String("nope")})
	if err != nil || len(out.Item) != 0 {
		t.Errorf("projection of absent attribute: got %s, %v, want no attributes", exRender(out.Item), err)
	}
	// A missing item stays missing under a projection.
	out, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Proj"), Key: map[string]types.AttributeValue{"pk": s("none")}, ProjectionExpression: aws.String("num")})
	if err != nil || out.Item != nil {
		t.Errorf("projection of a missing item: got %s, %v, want nil", exRender(out.Item), err)
	}

	// AttributesToGet is top-level names only, taken literally.
	out, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Proj"), Key: map[string]types.AttributeValue{"pk": s("k")},
		AttributesToGet: []string{"num", "nope", "my.dotted", "status"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := exRender(out.Item), exRender(map[string]types.AttributeValue{"num": n("10"), "my.dotted": s("dot"), "status": s("active")}); got != want {
		t.Errorf("AttributesToGet: got %s, want %s", got, want)
	}

	checkProjectionErrors(t, c)
}

// checkProjectionErrors expects DynamoDB's ValidationException for each
// invalid projection of a GetItem on table Proj.
func checkProjectionErrors(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	errs := []struct {
		name string
		in   *dynamodb.GetItemInput
		msg  string
	}{
		{"overlap", &dynamodb.GetItemInput{ProjectionExpression: aws.String("mp, mp.nm")},
			"Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [mp], path two: [mp, nm]"},
		{"same path twice", &dynamodb.GetItemInput{ProjectionExpression: aws.String("num, num")},
			"Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [num], path two: [num]"},
		{"reserved", &dynamodb.GetItemInput{ProjectionExpression: aws.String("num, status")},
			"Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"undefined name", &dynamodb.GetItemInput{ProjectionExpression: aws.String("#nope")},
			"Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
		{"unused name", &dynamodb.GetItemInput{ProjectionExpression: aws.String("num"), ExpressionAttributeNames: map[string]string{"#u": "x"}},
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}"},
		{"empty", &dynamodb.GetItemInput{ProjectionExpression: aws.String("")},
			"Invalid ProjectionExpression: The expression can not be empty;"},
		{"mixed", &dynamodb.GetItemInput{ProjectionExpression: aws.String("num"), AttributesToGet: []string{"num"}},
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		{"duplicate AttributesToGet", &dynamodb.GetItemInput{AttributesToGet: []string{"num", "num"}},
			"One or more parameter values were invalid: Duplicate value in attribute name: num"},
		{"names without expression", &dynamodb.GetItemInput{ExpressionAttributeNames: map[string]string{"#n": "num"}},
			"ExpressionAttributeNames can only be specified when using expressions"},
	}
	for _, tc := range errs {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.TableName, tc.in.Key = aws.String("Proj"), map[string]types.AttributeValue{"pk": s("k")}
			_, err := c.GetItem(ctx, tc.in)
			wantAPIError(t, err, "ValidationException", tc.msg)
		})
	}
}
