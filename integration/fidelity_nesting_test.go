package integration

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Requests holding a value nested past DynamoDB's 32-level limit beside
// something else wrong, answered as the service answers them: the
// expectations are paritysuite/dynamodb-conformance's deepRequests,
// nestingDepth and transactions captures (us-east-1 and eu-west-2, and for
// the transactions eight more Regions, October 2026). Where Regions differ,
// ddblocal gives one of the recorded answers. Every table here is absent:
// each answer comes before the table is looked up.

const (
	nestBare = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	nestOne  = "1 validation error detected: " + nestBare
	xorOlder = "1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: " +
		"Member must satisfy enum value set: [OR, AND]"
	rvOlder = "1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: " +
		"Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
	syntaxEq  = `Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"`
	emptyName = "Empty attribute name"
)

func nestForKey(key string) string {
	return "ExpressionAttributeValues contains invalid value: " + nestBare + " for key " + key
}

// deepMap wraps a string leaf in depth single-member maps.
func deepMap(depth int) types.AttributeValue {
	var v types.AttributeValue = s("leaf")
	for range depth {
		v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": v}}
	}
	return v
}

// deepList wraps a string leaf in depth single-element lists.
func deepList(depth int) types.AttributeValue {
	var v types.AttributeValue = s("leaf")
	for range depth {
		v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
	}
	return v
}

// deepCase is one request and the ValidationException message it gets.
type deepCase struct {
	name string
	call func(ctx context.Context, c *dynamodb.Client) error
	want string
}

const absentDeep = "deep_order_absent"

func deepKey(pk types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": pk, "sk": s("1")}
}

// withAttr is k plus one attribute.
func withAttr(k map[string]types.AttributeValue, name string, v types.AttributeValue) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{name: v}
	for n, kv := range k {
		out[n] = kv
	}
	return out
}

func transact(items ...types.TransactWriteItem) func(ctx context.Context, c *dynamodb.Client) error {
	return func(ctx context.Context, c *dynamodb.Client) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
}

func txPut(item map[string]types.AttributeValue, cond string) types.TransactWriteItem {
	p := &types.Put{TableName: aws.String(absentDeep), Item: item}
	if cond != "" {
		p.ConditionExpression = aws.String(cond)
	}
	return types.TransactWriteItem{Put: p}
}

func txCheck(key map[string]types.AttributeValue, cond string, values map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(absentDeep), Key: key,
		ConditionExpression: aws.String(cond), ExpressionAttributeValues: values}}
}

func txUpdate(key map[string]types.AttributeValue, update string, values map[string]types.AttributeValue) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{TableName: aws.String(absentDeep), Key: key,
		UpdateExpression: aws.String(update), ExpressionAttributeValues: values}}
}

func txDelete(key map[string]types.AttributeValue, cond string, values map[string]types.AttributeValue) types.TransactWriteItem {
	d := &types.Delete{TableName: aws.String(absentDeep), Key: key, ExpressionAttributeValues: values}
	if cond != "" {
		d.ConditionExpression = aws.String(cond)
	}
	return types.TransactWriteItem{Delete: d}
}

// transactOrderCases: TransactWriteItems checks its actions one at a time,
// in request order, and reports the first problem it meets.
func transactOrderCases() []deepCase {
	a, b := deepKey(s("a")), deepKey(s("b"))
	cond := "a = :v" + strings.Repeat(" AND a = :v", 373) // 4,109 characters
	var sets []string
	for i := range 500 {
		sets = append(sets, "a"+strconv.Itoa(i)+" = :v")
	}
	x := map[string]types.AttributeValue{":v": s("x")}
	unused := map[string]types.AttributeValue{":v": s("x"), ":u": s("y")}
	return []deepCase{
		{"put 40 before a later empty name", transact(txPut(withAttr(b, "d", deepMap(40)), ""), txPut(withAttr(a, "", s("x")), "")), nestBare},
		{"empty name before a later put 100", transact(txPut(withAttr(a, "", s("x")), ""), txPut(withAttr(b, "d", deepMap(100)), "")), emptyName},
		{"empty name before 100 in the same item", transact(txPut(withAttr(withAttr(a, "", s("x")), "d", deepMap(100)), "")), emptyName},
		{"40 before an empty map key in the same item", transact(txPut(withAttr(withAttr(a, "m",
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"": s("x")}}), "d", deepMap(40)), "")), nestBare},
		{"empty name before a later check value 100", transact(txPut(withAttr(a, "", s("x")), ""),
			txCheck(b, "d = :deep", map[string]types.AttributeValue{":deep": deepMap(100)})), emptyName},
		{"check value 40 before a later empty name", transact(txCheck(b, "d = :deep", map[string]types.AttributeValue{":deep": deepMap(40)}),
			txPut(withAttr(a, "", s("x")), "")), nestForKey(":deep")},
		{"update value 40 before a later empty name", transact(txUpdate(a, "SET d = :deep", map[string]types.AttributeValue{":deep": deepMap(40)}),
			txPut(withAttr(b, "", s("x")), "")), nestForKey(":deep")},
		{"delete key 40 before a later syntax error", transact(txDelete(deepKey(deepMap(40)), "", nil), txPut(a, "a = = b")), nestBare},
		{"check key 40 before a later unused value", transact(txCheck(deepKey(deepMap(40)), "attribute_exists(a)", nil),
			txUpdate(a, "SET a = :v", unused)), nestBare},
		{"syntax error before a later delete key 100", transact(txPut(a, "a = = b"), txDelete(deepKey(deepMap(100)), "", nil)), syntaxEq},
		{"syntax error before the same delete key 100", transact(txDelete(deepKey(deepMap(100)), "a = = b", nil)), syntaxEq},
		{"oversized condition before the same delete key 100", transact(txDelete(deepKey(deepMap(100)), cond, x)),
			"Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4109"},
		{"oversized update before a later check key 100", transact(txUpdate(a, "SET "+strings.Join(sets, ", "), x),
			txCheck(deepKey(deepMap(100)), "attribute_exists(a)", nil)), "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"},
		{"unused value before a later check key 100", transact(txUpdate(a, "SET a = :v", unused),
			txCheck(deepKey(deepMap(100)), "attribute_exists(a)", nil)), "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"},
	}
}

// singleItemCases: past about 62 levels PutItem, UpdateItem and DeleteItem
// read the request in an older form, checking ConditionalOperator and
// ReturnValues first; below, the nesting is refused inside the envelope.
func singleItemCases() []deepCase {
	a := deepKey(s("a"))
	expected := func(depth int) map[string]types.ExpectedAttributeValue {
		return map[string]types.ExpectedAttributeValue{"a": {Value: deepMap(depth)}, "b": {Exists: aws.Bool(false)}}
	}
	put := func(in *dynamodb.PutItemInput) func(ctx context.Context, c *dynamodb.Client) error {
		return func(ctx context.Context, c *dynamodb.Client) error {
			in.TableName = aws.String(absentDeep)
			_, err := c.PutItem(ctx, in)
			return err
		}
	}
	update := func(in *dynamodb.UpdateItemInput) func(ctx context.Context, c *dynamodb.Client) error {
		return func(ctx context.Context, c *dynamodb.Client) error {
			in.TableName = aws.String(absentDeep)
			_, err := c.UpdateItem(ctx, in)
			return err
		}
	}
	del := func(in *dynamodb.DeleteItemInput) func(ctx context.Context, c *dynamodb.Client) error {
		return func(ctx context.Context, c *dynamodb.Client) error {
			in.TableName = aws.String(absentDeep)
			_, err := c.DeleteItem(ctx, in)
			return err
		}
	}
	cond := func(depth int) (*string, map[string]string, map[string]types.AttributeValue) {
		return aws.String("#d = :deep"), map[string]string{"#d": "d"}, map[string]types.AttributeValue{":deep": deepMap(depth)}
	}
	c63, n63, v63 := cond(63)
	c100, n100, v100 := cond(100)
	c32, n32, v32 := cond(32)
	return []deepCase{
		{"put XOR before Expected 100", put(&dynamodb.PutItemInput{Item: a, Expected: expected(100), ConditionalOperator: "XOR"}), xorOlder},
		{"put XOR, newer form, beside Expected 40", put(&dynamodb.PutItemInput{Item: a, Expected: expected(40), ConditionalOperator: "XOR"}),
			"Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]"},
		{"update XOR before Expected 100", update(&dynamodb.UpdateItemInput{Key: a, Expected: expected(100), ConditionalOperator: "XOR",
			AttributeUpdates: map[string]types.AttributeValueUpdate{"x": {Action: types.AttributeActionPut, Value: s("1")}}}), xorOlder},
		{"delete BOGUS before condition value 63", del(&dynamodb.DeleteItemInput{Key: a, ConditionExpression: c63,
			ExpressionAttributeNames: n63, ExpressionAttributeValues: v63, ReturnValues: "BOGUS"}), rvOlder},
		{"delete BOGUS before Expected 63", del(&dynamodb.DeleteItemInput{Key: a,
			Expected: map[string]types.ExpectedAttributeValue{"d": {Value: deepMap(63)}}, ReturnValues: "BOGUS"}), rvOlder},
		{"delete BOGUS before key 100", del(&dynamodb.DeleteItemInput{Key: deepKey(deepMap(100)), ReturnValues: "BOGUS"}), rvOlder},
		{"delete UPDATED_NEW before condition value 100", del(&dynamodb.DeleteItemInput{Key: a, ConditionExpression: c100,
			ExpressionAttributeNames: n100, ExpressionAttributeValues: v100, ReturnValues: types.ReturnValueUpdatedNew}),
			"ReturnValues can only be ALL_OLD or NONE"},
		{"put item 61", put(&dynamodb.PutItemInput{Item: withAttr(a, "data", deepMap(61))}), nestOne},
		{"put item 63", put(&dynamodb.PutItemInput{Item: withAttr(a, "data", deepMap(63))}), nestBare},
		{"put item 250, list", put(&dynamodb.PutItemInput{Item: withAttr(a, "data", deepList(250))}), nestBare},
		{"put item past the decoder's bound", put(&dynamodb.PutItemInput{Item: withAttr(a, "data", deepMap(3000))}), nestOne},
		{"update value 32", update(&dynamodb.UpdateItemInput{Key: a, UpdateExpression: aws.String("SET t = :deep"), ConditionExpression: c32,
			ExpressionAttributeNames: n32, ExpressionAttributeValues: v32}), nestOne},
		{"update value 63", update(&dynamodb.UpdateItemInput{Key: a, UpdateExpression: aws.String("SET t = :deep"), ConditionExpression: c63,
			ExpressionAttributeNames: n63, ExpressionAttributeValues: v63}), nestForKey(":deep")},
	}
}

// transactDepthCases: a transaction's item or key past the limit is refused
// bare, a value one level past it bare, a deeper value naming it.
func transactDepthCases() []deepCase {
	a := deepKey(s("a"))
	deepValue := func(v types.AttributeValue) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{":deep": v}
	}
	return []deepCase{
		{"put item 32", transact(txPut(withAttr(a, "data", deepMap(32)), "")), nestBare},
		{"update writing a value 32", transact(txUpdate(a, "SET deep = :deep", deepValue(deepMap(32)))), nestBare},
		{"check value 32", transact(txCheck(a, "d = :deep", deepValue(deepMap(32)))), nestBare},
		{"check value 33", transact(txCheck(a, "d = :deep", deepValue(deepMap(33)))), nestForKey(":deep")},
		{"update writing a value 33", transact(txUpdate(a, "SET deep = :deep", deepValue(deepMap(33)))), nestForKey(":deep")},
		{"check map value 61", transact(txCheck(a, "d = :deep", deepValue(deepMap(61)))), nestForKey(":deep")},
		{"check list value 61", transact(txCheck(a, "d = :deep", deepValue(deepList(61)))), nestForKey(":deep")},
		{"syntax error before a later put item 32", transact(txCheck(a, "attribute_not_exists(", nil), txPut(withAttr(a, "data", deepMap(32)), "")),
			`Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("`},
		{"put item 32 before a later syntax error", transact(txPut(withAttr(a, "data", deepMap(32)), ""), txCheck(a, "attribute_not_exists(", nil)),
			nestBare},
	}
}

func TestDeepRequestOrder(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Present", false)
	var cases []deepCase
	cases = append(cases, transactOrderCases()...)
	cases = append(cases, singleItemCases()...)
	cases = append(cases, transactDepthCases()...)
	cases = append(cases, deepCase{"scan filter 40 with AND", func(ctx context.Context, c *dynamodb.Client) error {
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(absentDeep), ConditionalOperator: types.ConditionalOperatorAnd,
			ScanFilter: map[string]types.Condition{"a": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{deepMap(40)}}}})
		return err
	}, nestBare})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantAPIError(t, tc.call(ctx, c), "ValidationException", tc.want)
		})
	}
	// Nothing was written, and the server still serves.
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Present")})
	if err != nil || len(out.Items) != 0 {
		t.Fatalf("after the deep requests: %d items, %v", len(out.Items), err)
	}
}

// TestTransactCheckOrder: what needs no table (an expression, an unused
// value) is checked for every action before any table is looked up or any
// two actions are compared.
func TestTransactCheckOrder(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "TxOrder", false)
	k := map[string]types.AttributeValue{"pk": s("k")}
	missing := types.TransactWriteItem{Put: &types.Put{TableName: aws.String(absentDeep), Item: k}}
	unused := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String("TxOrder"), Key: k,
		ConditionExpression: aws.String("attribute_not_exists(pk)"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("x")}}}
	malformed := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String("TxOrder"), Key: k,
		ConditionExpression: aws.String("attribute_not_exists(")}}
	const msgUnused = "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"
	for _, tc := range []struct {
		name  string
		items []types.TransactWriteItem
		want  string
	}{
		{"malformed condition after a missing table", []types.TransactWriteItem{missing, malformed},
			`Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("`},
		{"unused value after a missing table", []types.TransactWriteItem{missing, unused}, msgUnused},
		{"unused value before a missing table", []types.TransactWriteItem{unused, missing}, msgUnused},
		{"unused value after a duplicate target", []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("TxOrder"), Item: k}}, unused}, msgUnused},
	} {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tc.items})
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{missing}})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}
