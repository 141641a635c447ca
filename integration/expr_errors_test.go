package integration

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// errorsAs is errors.As, named so that tests can use it in a short if-chain.
func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestExprErrorMessages sends invalid expressions through the SDK and checks
// DynamoDB's exact ValidationException text; nothing may be written.
func TestExprErrorMessages(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "ExErr", false)
	exPut(t, c, "ExErr", exSeed("k"))
	type vals = map[string]types.AttributeValue
	one := vals{":one": n("1")}
	tests := []exprErrorCase{
		{"syntax: doubled operator", aws.String("num = = :one"), nil, nil, one,
			`Invalid ConditionExpression: Syntax error; token: "=", near: "= = :one"`},
		{"syntax: stray token in update", nil, aws.String("SET a = :one :one"), nil, one,
			`Invalid UpdateExpression: Syntax error; token: ":one", near: ":one :one"`},
		{"syntax: unknown action", nil, aws.String("PUT a = :one"), nil, one,
			`Invalid UpdateExpression: Syntax error; token: "PUT", near: "PUT a"`},
		{"reserved word", aws.String("status = :one"), nil, nil, one,
			"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"reserved word in update", nil, aws.String("SET #c = :one, counter = :one"), map[string]string{"#c": "c"}, one,
			"Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: counter"},
		{"undefined value", aws.String("num = :nope"), nil, nil, nil,
			"Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"undefined name", aws.String("#nope = :one"), nil, nil, one,
			"Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
		{"unused value", aws.String("num = :one"), nil, nil, vals{":one": n("1"), ":extra": n("2")},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:extra}"},
		{"unused name", aws.String("num = :one"), nil, map[string]string{"#extra": "x"}, one,
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#extra}"},
		{"empty condition", aws.String(""), nil, nil, nil,
			"Invalid ConditionExpression: The expression can not be empty;"},
		{"empty update", nil, aws.String(""), nil, nil,
			"Invalid UpdateExpression: The expression can not be empty;"},
		{"empty values map", aws.String("num = num"), nil, nil, vals{},
			"ExpressionAttributeValues must not be empty"},
		{"invalid values key", aws.String("num = :one"), nil, nil, vals{":one": n("1"), "bad": n("1")},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: "bad"`},
		{"invalid function", aws.String("foo(num)"), nil, nil, nil,
			"Invalid ConditionExpression: Invalid function name; function: foo"},
		{"operand count", aws.String("begins_with(str)"), nil, nil, nil,
			"Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1"},
		{"begins_with number", aws.String("begins_with(str, :one)"), nil, nil, one,
			"Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"attribute_type bad type", aws.String("attribute_type(num, :t)"), nil, nil, vals{":t": s("X")},
			"Invalid ConditionExpression: Invalid attribute type name found; type: X, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }"},
		{"BETWEEN reversed", aws.String("num BETWEEN :hi AND :lo"), nil, nil, vals{":hi": n("5"), ":lo": n("1")},
			"Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"},
		{"update paths overlap", nil, aws.String("SET a = :one, a = :one"), nil, one,
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"update SET and REMOVE same path", nil, aws.String("SET a = :one REMOVE a"), nil, one,
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET twice", nil, aws.String("SET a = :one SET b = :one"), nil, one,
			`Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"ADD string", nil, aws.String("ADD a :s"), nil, vals{":s": s("x")},
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
		{"ADD list", nil, aws.String("ADD a :l"), nil, vals{":l": exL(s("x"))},
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST"},
		{"DELETE number", nil, aws.String("DELETE a :one"), nil, one,
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
		{"condition function in update", nil, aws.String("SET a = attribute_exists(b)"), nil, nil,
			"Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists"},
		{"size in update", nil, aws.String("SET a = size(b)"), nil, nil,
			"Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkExprError(t, c, tc) })
	}
	if got, want := exRender(exGet(t, c, "ExErr", "k")), exRender(exSeed("k")); got != want {
		t.Fatalf("invalid requests changed the item:\ngot  %s\nwant %s", got, want)
	}
	if got := exGet(t, c, "ExErr", "other"); got != nil {
		t.Fatalf("invalid PutItem wrote %s", exRender(got))
	}
}

// exprErrorCase is a condition or update expression that must fail
// validation with msg.
type exprErrorCase struct {
	name      string
	cond, upd *string
	names     map[string]string
	values    map[string]types.AttributeValue
	msg       string
}

// checkExprError sends tc's expression (on PutItem if it is a condition
// alone, else on UpdateItem) and expects a ValidationException with tc.msg,
// which both send inside the "1 validation error detected: " envelope
// (paritysuite/dynamodb-conformance, eu-west-2 and us-east-1, 2026-10-09).
func checkExprError(t *testing.T, c *dynamodb.Client, tc exprErrorCase) {
	t.Helper()
	ctx := context.Background()
	tc.msg = "1 validation error detected: " + tc.msg
	in := &dynamodb.UpdateItemInput{TableName: aws.String("ExErr"), Key: map[string]types.AttributeValue{"pk": s("k")},
		ConditionExpression: tc.cond, UpdateExpression: tc.upd, ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.values}
	if tc.upd == nil && tc.cond != nil {
		// a condition alone is tested on PutItem, which needs no update
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ExErr"), Item: map[string]types.AttributeValue{"pk": s("other")},
			ConditionExpression: tc.cond, ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.values})
		wantAPIError(t, err, "ValidationException", tc.msg)
		return
	}
	_, err := c.UpdateItem(ctx, in)
	wantAPIError(t, err, "ValidationException", tc.msg)
}
