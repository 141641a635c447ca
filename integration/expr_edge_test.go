package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestExprLimits covers the size and count limits of expressions.
func TestExprLimits(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "ExLim", false)
	put := func(cond string, names map[string]string, vals map[string]types.AttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ExLim"), Item: map[string]types.AttributeValue{"pk": s("k")},
			ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: vals})
		return err
	}
	// IN takes at most 100 operands.
	vals := map[string]types.AttributeValue{}
	var ops []string
	for i := range 101 {
		k := fmt.Sprintf(":v%d", i)
		vals[k], ops = n(fmt.Sprint(i)), append(ops, k)
	}
	err := put("a IN ("+strings.Join(ops, ", ")+")", nil, vals)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101")
	delete(vals, ":v100")
	if err := put("attribute_not_exists(a) OR a IN ("+strings.Join(ops[:100], ", ")+")", nil, vals); err != nil {
		t.Errorf("IN with 100 operands: %v", err)
	}
	// Document paths nest at most 32 levels.
	path := "a" + strings.Repeat(".b", 32)
	err = put("attribute_not_exists("+path+")", nil, nil)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33")
	// Expressions are at most 4 KB.
	long := "attribute_not_exists(" + strings.Repeat("a", 4096-len("attribute_not_exists()")+1) + ")"
	err = put(long, nil, nil)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097")
	// Placeholder keys must be well formed.
	err = put("attribute_not_exists(#n)", map[string]string{"#n": "a", "n": "b"}, nil)
	wantAPIError(t, err, "ValidationException", `1 validation error detected: ExpressionAttributeNames contains invalid key: Syntax error; key: "n"`)
}

// TestUpdateEdgeCases covers return values of list and set edits, number
// normalisation and the limits of arithmetic and item size.
func TestUpdateEdgeCases(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "UpdEdge", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	upd := func(expr string, vals map[string]types.AttributeValue, rv types.ReturnValue) (map[string]types.AttributeValue, error) {
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdEdge"), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals, ReturnValues: rv})
		if err != nil {
			return nil, err
		}
		return out.Attributes, nil
	}
	tests := []struct {
		update string
		vals   map[string]types.AttributeValue
		rv     types.ReturnValue
		want   map[string]types.AttributeValue
	}{
		{"SET lst[0] = :z", map[string]types.AttributeValue{":z": s("z")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"lst": exL(s("z"))}},
		{"SET lst[0] = :z", map[string]types.AttributeValue{":z": s("z")}, types.ReturnValueUpdatedOld,
			map[string]types.AttributeValue{"lst": exL(n("1"))}},
		{"REMOVE lst[1]", nil, types.ReturnValueUpdatedOld,
			map[string]types.AttributeValue{"lst": exL(s("x"))}},
		{"SET mp.in1.v = :one", map[string]types.AttributeValue{":one": n("1")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("1")))}},
		{"DELETE ss :abc", map[string]types.AttributeValue{":abc": exSS("a", "b", "c")}, types.ReturnValueUpdatedNew, nil},
		{"DELETE ss :a", map[string]types.AttributeValue{":a": exSS("a")}, types.ReturnValueUpdatedOld,
			map[string]types.AttributeValue{"ss": exSS("a", "b", "c")}},
		{"ADD ss :q", map[string]types.AttributeValue{":q": exSS("q")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"ss": exSS("a", "b", "c", "q")}},
		{"REMOVE nope", nil, types.ReturnValueUpdatedNew, nil},
		{"REMOVE nope", nil, types.ReturnValueUpdatedOld, nil},
		{"SET a = :v", map[string]types.AttributeValue{":v": n("0010.50")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"a": n("10.5")}},
		{"SET a = :v", map[string]types.AttributeValue{":v": n("-0")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"a": n("0")}},
		{"SET a = :v", map[string]types.AttributeValue{":v": n("1.5E+3")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"a": n("1500")}},
		{"ADD num :v", map[string]types.AttributeValue{":v": n("-10.00")}, types.ReturnValueUpdatedNew,
			map[string]types.AttributeValue{"num": n("0")}},
		{"SET lst[1] = :y, lst[8] = :z", map[string]types.AttributeValue{":y": s("y"), ":z": s("z")}, types.ReturnValueAllNew, nil},
	}
	for _, tc := range tests {
		t.Run(tc.update+"/"+string(tc.rv), func(t *testing.T) {
			exPut(t, c, "UpdEdge", exSeed("k"))
			got, err := upd(tc.update, tc.vals, tc.rv)
			if err != nil {
				t.Fatal(err)
			}
			if tc.rv == types.ReturnValueAllNew {
				want := exSeed("k")
				want["lst"] = exL(n("1"), s("y"), exM("deep", s("y")), s("z"))
				tc.want = want
			}
			if got, want := exRender(got), exRender(tc.want); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}

	// Magnitude past DynamoDB's range is refused, not rounded.
	exPut(t, c, "UpdEdge", exSeed("k"))
	_, err := upd("SET a = :big + :big", map[string]types.AttributeValue{":big": n("9.9999999999999999999999999999999999999E+125")}, "")
	wantAPIError(t, err, "ValidationException", "Number overflow. Attempting to store a number with magnitude larger than supported range")
	// An update that grows the item past 400 KB.
	_, err = upd("SET big = :big", map[string]types.AttributeValue{":big": s(strings.Repeat("x", 400*1024))}, "")
	wantAPIError(t, err, "ValidationException", "Item size to update has exceeded the maximum allowed size")
	if got, want := exRender(exGet(t, c, "UpdEdge", "k")), exRender(exSeed("k")); got != want {
		t.Fatalf("refused updates changed the item:\ngot  %s\nwant %s", got, want)
	}
}

// TestLegacyEdgeCases covers AttributeUpdates corner cases.
func TestLegacyEdgeCases(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "LegEdge", false)
	// PUT needs a value.
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegEdge"), Key: map[string]types.AttributeValue{"pk": s("k")},
		AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionPut}}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified")
}

// TestLegacyDeleteOnMissingItem: the API reference (AttributeValueUpdate.Action,
// "If no item with the specified key is found") says DELETE does nothing, so an
// AttributeUpdates made only of DELETEs must not create the item, unlike PUT/ADD.
func TestLegacyDeleteOnMissingItem(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "LegDel", false)
	for _, up := range []types.AttributeValueUpdate{
		{Action: types.AttributeActionDelete},
		{Action: types.AttributeActionDelete, Value: exSS("a")},
	} {
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("LegDel"), Key: map[string]types.AttributeValue{"pk": s("gone")},
			AttributeUpdates: map[string]types.AttributeValueUpdate{"a": up}, ReturnValues: types.ReturnValueAllNew})
		if err != nil {
			t.Fatal(err)
		}
		if out.Attributes != nil {
			t.Errorf("ALL_NEW of a DELETE on a missing item: got %s, want none", exRender(out.Attributes))
		}
		if got := exGet(t, c, "LegDel", "gone"); got != nil {
			t.Errorf("AttributeUpdates DELETE on a missing item: got %s, want no item", exRender(got))
		}
	}
}
