package integration

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Regression tests for requests that popular client libraries send on their
// everyday calls. The requests are written here to match what each library
// sends; no library code is used.

// tableState is every item of a table in canonical form, to assert that a
// rejected request changed nothing.
func tableState(t *testing.T, c *dynamodb.Client, name string) []string {
	t.Helper()
	return canonAll(scanPages(t, c, name, "", 0, nil))
}

func eqCond(v types.AttributeValue) types.Condition {
	return types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{v}}
}

// TestGureguQueryKeyConditionsWithExpressions: github.com/guregu/dynamo puts
// the key in the legacy KeyConditions and everything else in expressions.
// DynamoDB accepts that mix: KeyConditions only conflict with
// KeyConditionExpression.
func TestGureguQueryKeyConditionsWithExpressions(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Guregu", true)
	putAll(t, c, "Guregu", []ritem{
		{"pk": s("u1"), "sk": s("msg#1"), "n": n("1"), "body": s("a")},
		{"pk": s("u1"), "sk": s("msg#2"), "n": n("5"), "body": s("b")},
		{"pk": s("u1"), "sk": s("msg#3"), "n": n("9"), "body": s("c")},
		{"pk": s("u1"), "sk": s("note#1"), "n": n("9"), "body": s("d")},
		{"pk": s("u2"), "sk": s("msg#1"), "n": n("9"), "body": s("e")},
	})
	keys := map[string]types.Condition{
		"pk": eqCond(s("u1")),
		"sk": {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{s("msg#")}},
	}
	base := dynamodb.QueryInput{
		TableName:                 aws.String("Guregu"),
		KeyConditions:             keys,
		FilterExpression:          aws.String("#n > :v"),
		ProjectionExpression:      aws.String("#sk, #n"),
		ExpressionAttributeNames:  map[string]string{"#n": "n", "#sk": "sk"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("2")},
		ConsistentRead:            aws.Bool(true),
		ScanIndexForward:          aws.Bool(false),
	}
	in := base
	out, err := c.Query(ctx, &in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonAll(out.Items), canonAll([]ritem{{"sk": s("msg#3"), "n": n("9")}, {"sk": s("msg#2"), "n": n("5")}}); !slices.Equal(got, want) {
		t.Errorf("filtered, projected: got %v, want %v", got, want)
	}
	if got, want := rsks(out.Items), []string{"msg#3", "msg#2"}; !reflect.DeepEqual(got, want) || out.ScannedCount != 3 {
		t.Errorf("order: got %v (ScannedCount %d), want %v (3)", got, out.ScannedCount, want)
	}

	// Paged with Limit, as the library's iterator does.
	in = base
	in.Limit = aws.Int32(1)
	var pages []string
	for range 10 {
		out, err := c.Query(ctx, &in)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, rsks(out.Items)...)
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if want := []string{"msg#3", "msg#2"}; !reflect.DeepEqual(pages, want) {
		t.Errorf("paged: got %v, want %v", pages, want)
	}

	// Count, and a projection without a filter (names but no values).
	in = base
	in.Select, in.ProjectionExpression, in.ExpressionAttributeNames = types.SelectCount, nil, map[string]string{"#n": "n"}
	out, err = c.Query(ctx, &in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 2 || out.ScannedCount != 3 || out.Items != nil {
		t.Errorf("COUNT: got Count %d ScannedCount %d Items %v, want 2, 3, none", out.Count, out.ScannedCount, out.Items)
	}
	out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Guregu"), KeyConditions: map[string]types.Condition{"pk": eqCond(s("u2"))},
		ProjectionExpression: aws.String("#b"), ExpressionAttributeNames: map[string]string{"#b": "body"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonAll(out.Items), canonAll([]ritem{{"body": s("e")}}); !slices.Equal(got, want) {
		t.Errorf("projection only: got %v, want %v", got, want)
	}
}

// TestQueryParameterMixErrors: the mixes DynamoDB rejects, with the
// parameters its message lists.
func TestQueryParameterMixErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Mix", true)
	keys := map[string]types.Condition{"pk": eqCond(s("p"))}
	const prefix = "Can not use both expression and non-expression parameters in the same request: "
	tests := []struct {
		name string
		in   dynamodb.QueryInput
		msg  string
	}{
		{"QueryFilter with ProjectionExpression", dynamodb.QueryInput{KeyConditions: keys,
			QueryFilter: map[string]types.Condition{"n": eqCond(n("1"))}, ProjectionExpression: aws.String("n")},
			prefix + "Non-expression parameters: {QueryFilter} Expression parameters: {ProjectionExpression}"},
		{"KeyConditions with KeyConditionExpression", dynamodb.QueryInput{KeyConditions: keys,
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}},
			prefix + "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}"},
		{"everything", dynamodb.QueryInput{KeyConditions: keys, AttributesToGet: []string{"n"}, ConditionalOperator: types.ConditionalOperatorOr,
			QueryFilter: map[string]types.Condition{"n": eqCond(n("1"))}, KeyConditionExpression: aws.String("pk = :p"),
			FilterExpression: aws.String("n = :p"), ProjectionExpression: aws.String("n"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}},
			prefix + "Non-expression parameters: {AttributesToGet, QueryFilter, ConditionalOperator, KeyConditions} Expression parameters: {ProjectionExpression, FilterExpression, KeyConditionExpression}"},
		{"AttributesToGet with FilterExpression", dynamodb.QueryInput{KeyConditions: keys, AttributesToGet: []string{"n"},
			FilterExpression: aws.String("n = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}},
			prefix + "Non-expression parameters: {AttributesToGet} Expression parameters: {FilterExpression}"},
		{"values with only a projection", dynamodb.QueryInput{KeyConditions: keys, ProjectionExpression: aws.String("n"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}},
			"ExpressionAttributeValues can only be specified when using expressions: FilterExpression and KeyConditionExpression are null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.TableName = aws.String("Mix")
			_, err := c.Query(ctx, &in)
			wantAPIError(t, err, "ValidationException", tt.msg)
		})
	}
	_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Mix"), ProjectionExpression: aws.String("n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}})
	wantAPIError(t, err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null")
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Mix"), Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s")},
		AttributeUpdates: map[string]types.AttributeValueUpdate{"n": {Value: n("1")}}, Expected: map[string]types.ExpectedAttributeValue{"n": {Exists: aws.Bool(false)}},
		UpdateExpression: aws.String("SET n = :v"), ConditionExpression: aws.String("attribute_not_exists(n)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: "+prefix+"Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}")
	if got := tableState(t, c, "Mix"); len(got) != 0 {
		t.Errorf("rejected requests stored %v", got)
	}
}

// TestElectroDBParenthesizedUpdate: ElectroDB writes every numeric add and
// subtract as a parenthesized SET value.
func TestElectroDBParenthesizedUpdate(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Electro", true)
	key := map[string]types.AttributeValue{"pk": s("$app#id_1"), "sk": s("$counter")}
	update := func(expr string, vals map[string]types.AttributeValue) (*dynamodb.UpdateItemOutput, error) {
		return c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Electro"), Key: key,
			UpdateExpression:          aws.String(expr),
			ExpressionAttributeNames:  map[string]string{"#count": "count", "#at": "updatedAt"},
			ExpressionAttributeValues: vals, ReturnValues: types.ReturnValueAllNew})
	}
	add := map[string]types.AttributeValue{":count_u0": n("0"), ":count_u1": n("5"), ":at": s("t1")}
	for i, want := range []string{"5", "10"} {
		out, err := update("SET #count = (if_not_exists(#count, :count_u0) + :count_u1), #at = :at", add)
		if err != nil {
			t.Fatal(err)
		}
		if got := rnum(out.Attributes, "count"); got != want {
			t.Fatalf("add %d: got count %s, want %s", i, got, want)
		}
	}
	out, err := update("SET #count = (#count - :count_u2), #at = :at", map[string]types.AttributeValue{":count_u2": n("3"), ":at": s("t2")})
	if err != nil {
		t.Fatal(err)
	}
	if got := rnum(out.Attributes, "count"); got != "7" || rstr(out.Attributes, "updatedAt") != "t2" {
		t.Fatalf("subtract: got %v, want count 7, updatedAt t2", out.Attributes)
	}
	// The same inside a transaction.
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
		TableName: aws.String("Electro"), Key: key,
		UpdateExpression:          aws.String("SET #count = (if_not_exists(#count, :z) + :inc)"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND attribute_exists(sk)"),
		ExpressionAttributeNames:  map[string]string{"#count": "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":z": n("0"), ":inc": n("1")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	before := tableState(t, c, "Electro")
	if want := canonItem(ritem{"pk": key["pk"], "sk": key["sk"], "count": n("8"), "updatedAt": s("t2")}); len(before) != 1 || before[0] != want {
		t.Fatalf("after the transaction: got %v, want %s", before, want)
	}
	// One '+' or '-' per value, parenthesized or not.
	_, err = update("SET #count = (#count + :a) + :b", map[string]types.AttributeValue{":a": n("1"), ":b": n("1")})
	wantAPIError(t, err, "ValidationException", `1 validation error detected: Invalid UpdateExpression: Syntax error; token: "+", near: ") + :b"`)
	if after := tableState(t, c, "Electro"); !slices.Equal(after, before) {
		t.Errorf("a rejected update changed the table: %v, was %v", after, before)
	}
}

// TestTransactReplayCapacity: a retry with the same ClientRequestToken writes
// nothing; it reports read units for reading the items and no write units.
func TestTransactReplayCapacity(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Rep1", false)
	createTable(t, c, "Rep2", false)
	big := strings.Repeat("x", 5000) // 5 KB: 5 write units, 2 read units of 4 KB
	in := &dynamodb.TransactWriteItemsInput{
		ClientRequestToken:     aws.String("replay-1"),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("Rep1"), Item: map[string]types.AttributeValue{"pk": s("a"), "v": s(big)}}},
			{Put: &types.Put{TableName: aws.String("Rep1"), Item: map[string]types.AttributeValue{"pk": s("b")}}},
			{Update: &types.Update{TableName: aws.String("Rep2"), Key: map[string]types.AttributeValue{"pk": s("c")},
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}},
		},
	}
	first, err := c.TransactWriteItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	before := append(tableState(t, c, "Rep1"), tableState(t, c, "Rep2")...)
	again, err := c.TransactWriteItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if after := append(tableState(t, c, "Rep1"), tableState(t, c, "Rep2")...); !slices.Equal(after, before) {
		t.Fatalf("the replay changed the tables: %v, was %v", after, before)
	}
	type units struct {
		table             string
		total, read, writ float64
		readSet, writeSet bool
	}
	summary := func(ccs []types.ConsumedCapacity) []units {
		var out []units
		for _, cc := range ccs {
			u := units{table: aws.ToString(cc.TableName), total: aws.ToFloat64(cc.CapacityUnits),
				read: aws.ToFloat64(cc.ReadCapacityUnits), writ: aws.ToFloat64(cc.WriteCapacityUnits),
				readSet: cc.ReadCapacityUnits != nil, writeSet: cc.WriteCapacityUnits != nil}
			if cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != u.total {
				t.Errorf("%s: Table breakdown %+v, want %v units", u.table, cc.Table, u.total)
			}
			out = append(out, u)
		}
		slices.SortFunc(out, func(a, b units) int { return strings.Compare(a.table, b.table) })
		return out
	}
	// First: Rep1 (5 + 1) x 2 and Rep2 1 x 2 write units.
	if got, want := summary(first.ConsumedCapacity), []units{{"Rep1", 12, 0, 12, false, true}, {"Rep2", 2, 0, 2, false, true}}; !reflect.DeepEqual(got, want) {
		t.Errorf("first call: got %+v, want %+v", got, want)
	}
	// Replay: Rep1 (2 + 1) x 2 and Rep2 1 x 2 read units, no writes.
	if got, want := summary(again.ConsumedCapacity), []units{{"Rep1", 6, 6, 0, true, false}, {"Rep2", 2, 2, 0, true, false}}; !reflect.DeepEqual(got, want) {
		t.Errorf("replay: got %+v, want %+v", got, want)
	}
}
