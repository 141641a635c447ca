package integration

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var exUpdValues = map[string]types.AttributeValue{
	":zero": n("0"), ":one": n("1"), ":five": n("5"), ":neg": n("-10.5"), ":z": s("z"),
	":l": exL(s("z")), ":ssxy": exSS("x", "y"), ":ssa": exSS("a"), ":ssabc": exSS("a", "b", "c"),
	":ns3": exNS("3"), ":ns1z": exNS("1", "9"), ":bs3": &types.AttributeValueMemberBS{Value: [][]byte{{3}}},
	":p1": n("0.1"), ":p2": n("0.2"), ":big": n("12345678901234567890123456789012345678"),
	":nines": n("99999999999999999999999999999999999999"), ":tiny": n("0.000000000000000000000000000000000001"),
	":m": exM("k", s("v")),
}

var exUpdNames = map[string]string{"#d": "my.dotted", "#s": "status"}

// TestUpdateExpressions applies one UpdateExpression per case to a fresh
// exSeed item and compares the whole stored item.
func TestUpdateExpressions(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "Upd", false)
	// changes lists the attributes the update must change: a nil value means removed.
	tests := []updateCase{
		{"SET a = :one", map[string]types.AttributeValue{"a": n("1")}},
		{"SET a = :one, b = :z", map[string]types.AttributeValue{"a": n("1"), "b": s("z")}},
		{"SET num = num + :one", map[string]types.AttributeValue{"num": n("11")}},
		{"SET num = num - :one", map[string]types.AttributeValue{"num": n("9")}},
		{"SET num = :one - num", map[string]types.AttributeValue{"num": n("-9")}},
		{"SET num = num + :neg", map[string]types.AttributeValue{"num": n("-0.5")}},
		{"SET a = num + mp.in1.v", map[string]types.AttributeValue{"a": n("15")}},
		{"SET a = lst[0]", map[string]types.AttributeValue{"a": n("1")}},
		{"SET a = mp", map[string]types.AttributeValue{"a": exSeed("")["mp"]}},
		{"SET str = :m", map[string]types.AttributeValue{"str": exM("k", s("v"))}},
		{"SET x = if_not_exists(x, :zero)", map[string]types.AttributeValue{"x": n("0")}},
		{"SET num = if_not_exists(num, :zero)", nil},
		{"SET cnt = if_not_exists(cnt, :zero) + :one", map[string]types.AttributeValue{"cnt": n("1")}},
		{"SET num = if_not_exists(num, :zero) + :one", map[string]types.AttributeValue{"num": n("11")}},
		{"SET lst = list_append(lst, :l)", map[string]types.AttributeValue{"lst": exL(n("1"), s("x"), exM("deep", s("y")), s("z"))}},
		{"SET lst = list_append(:l, lst)", map[string]types.AttributeValue{"lst": exL(s("z"), n("1"), s("x"), exM("deep", s("y")))}},
		{"SET nl = list_append(if_not_exists(nl, :l), :l)", map[string]types.AttributeValue{"nl": exL(s("z"), s("z"))}},
		{"SET lst[10] = :z", map[string]types.AttributeValue{"lst": exL(n("1"), s("x"), exM("deep", s("y")), s("z"))}},
		{"SET lst[0] = :z", map[string]types.AttributeValue{"lst": exL(s("z"), s("x"), exM("deep", s("y")))}},
		{"SET lst[2].deep = :z", map[string]types.AttributeValue{"lst": exL(n("1"), s("x"), exM("deep", s("z")))}},
		{"SET mp.in1.w = :one", map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("5"), "w", n("1")), "nm", s("n"), "tags", exL(s("t1")))}},
		{"SET mp.tags[1] = :z", map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("5")), "nm", s("n"), "tags", exL(s("t1"), s("z")))}},
		{"SET #d = :z", map[string]types.AttributeValue{"my.dotted": s("z")}},
		{"SET #s = :z", map[string]types.AttributeValue{"status": s("z")}},
		{"REMOVE str", map[string]types.AttributeValue{"str": nil}},
		{"REMOVE str, num, #d", map[string]types.AttributeValue{"str": nil, "num": nil, "my.dotted": nil}},
		{"REMOVE mp.in1.v", map[string]types.AttributeValue{"mp": exM("in1", exM(), "nm", s("n"), "tags", exL(s("t1")))}},
		{"REMOVE lst[0]", map[string]types.AttributeValue{"lst": exL(s("x"), exM("deep", s("y")))}},
		{"REMOVE lst[0], lst[2]", map[string]types.AttributeValue{"lst": exL(s("x"))}},
		{"REMOVE lst[2].deep", map[string]types.AttributeValue{"lst": exL(n("1"), s("x"), exM())}},
		{"REMOVE lst[7]", nil},
		{"REMOVE nope", nil},
		{"ADD num :one", map[string]types.AttributeValue{"num": n("11")}},
		{"ADD cnt :five", map[string]types.AttributeValue{"cnt": n("5")}},
		{"ADD mp.in1.v :five", map[string]types.AttributeValue{"mp": exM("in1", exM("v", n("10")), "nm", s("n"), "tags", exL(s("t1")))}},
		{"ADD ss :ssxy", map[string]types.AttributeValue{"ss": exSS("a", "b", "c", "x", "y")}},
		{"ADD ss :ssa", nil},
		{"ADD ns :ns3", map[string]types.AttributeValue{"ns": exNS("1", "2", "3")}},
		{"ADD bs :bs3", map[string]types.AttributeValue{"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}, {3}}}}},
		{"ADD newss :ssxy", map[string]types.AttributeValue{"newss": exSS("x", "y")}},
		{"ADD num :one, cnt :one", map[string]types.AttributeValue{"num": n("11"), "cnt": n("1")}},
		{"DELETE ss :ssa", map[string]types.AttributeValue{"ss": exSS("b", "c")}},
		{"DELETE ss :ssxy", nil},
		{"DELETE ss :ssabc", map[string]types.AttributeValue{"ss": nil}},
		{"DELETE ns :ns1z", map[string]types.AttributeValue{"ns": exNS("2")}},
		{"DELETE nope :ssa", nil},
		{"SET a = :one REMOVE str ADD num :one DELETE ss :ssa", map[string]types.AttributeValue{"a": n("1"), "str": nil, "num": n("11"), "ss": exSS("b", "c")}},
		{"REMOVE str SET a = :one", map[string]types.AttributeValue{"a": n("1"), "str": nil}},
		{"set a = :one remove str", map[string]types.AttributeValue{"a": n("1"), "str": nil}},
		// 38-digit decimal arithmetic is exact.
		{"SET d = :p1 + :p2", map[string]types.AttributeValue{"d": n("0.3")}},
		{"SET d = :big + :one", map[string]types.AttributeValue{"d": n("12345678901234567890123456789012345679")}},
		{"SET d = :nines + :one", map[string]types.AttributeValue{"d": n("100000000000000000000000000000000000000")}},
		{"SET d = :zero - :nines", map[string]types.AttributeValue{"d": n("-99999999999999999999999999999999999999")}},
		{"ADD num :tiny", map[string]types.AttributeValue{"num": n("10.000000000000000000000000000000000001")}},
	}
	for i, tc := range tests {
		t.Run(tc.update, func(t *testing.T) { checkUpdate(t, c, i, tc) })
	}
}

// updateCase is an update expression and the attributes it must change
// (a nil value means removed).
type updateCase struct {
	update  string
	changes map[string]types.AttributeValue
}

// checkUpdate applies tc to a fresh seed item u<i> and compares the whole
// item with the seed plus tc's changes.
func checkUpdate(t *testing.T, c *dynamodb.Client, i int, tc updateCase) {
	t.Helper()
	ctx := context.Background()
	pk := fmt.Sprint("u", i)
	exPut(t, c, "Upd", exSeed(pk))
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Upd"), Key: map[string]types.AttributeValue{"pk": s(pk)},
		UpdateExpression:          aws.String(tc.update),
		ExpressionAttributeNames:  exNames(exUpdNames, tc.update),
		ExpressionAttributeValues: exValues(exUpdValues, tc.update)})
	if err != nil {
		t.Fatalf("got %v, want success", err)
	}
	want := exSeed(pk)
	for k, v := range tc.changes {
		if v == nil {
			delete(want, k)
		} else {
			want[k] = v
		}
	}
	if got, want := exRender(exGet(t, c, "Upd", pk)), exRender(want); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestUpdateRuntimeErrors covers updates that are valid expressions but cannot
// apply to the stored item; the item must be left unchanged.
func TestUpdateRuntimeErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "UpdErr", false)
	exPut(t, c, "UpdErr", exSeed("k"))
	const (
		wrongType = "An operand in the update expression has an incorrect data type"
		noAttr    = "The provided expression refers to an attribute that does not exist in the item"
		badPath   = "The document path provided in the update expression is invalid for update"
	)
	tests := []struct{ update, msg string }{
		{"SET a = str + :one", wrongType},
		{"SET a = nope + :one", noAttr},
		{"SET a = mp.nope", noAttr},
		{"ADD str :one", wrongType},
		{"ADD ss :ns3", wrongType},
		{"DELETE ss :ns3", wrongType},
		{"DELETE num :ssa", wrongType},
		{"SET lst = list_append(str, :l)", wrongType},
		{"SET lst = list_append(nope, :l)", noAttr},
		{"SET mp.nope.x = :one", badPath},
		{"SET str.x = :one", badPath},
		{"SET num[0] = :one", badPath},
		{"SET nope[0] = :one", badPath},
		{"SET mp.in1[0] = :one", badPath},
		{"ADD mp.nope.x :one", badPath},
	}
	for _, tc := range tests {
		t.Run(tc.update, func(t *testing.T) {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdErr"), Key: map[string]types.AttributeValue{"pk": s("k")},
				UpdateExpression: aws.String(tc.update), ExpressionAttributeValues: exValues(exUpdValues, tc.update)})
			wantAPIError(t, err, "ValidationException", tc.msg)
		})
	}
	if got, want := exRender(exGet(t, c, "UpdErr", "k")), exRender(exSeed("k")); got != want {
		t.Fatalf("failed updates changed the item:\ngot  %s\nwant %s", got, want)
	}
	// More than 38 significant digits is refused, never rounded.
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdErr"), Key: map[string]types.AttributeValue{"pk": s("k")},
		UpdateExpression: aws.String("SET d = :nines + :tiny"), ExpressionAttributeValues: exValues(exUpdValues, ":nines :tiny")})
	wantAPIError(t, err, "ValidationException", "")
}

// TestUpdateUpsertAndKeys covers UpdateItem on a missing item and on key attributes.
func TestUpdateUpsertAndKeys(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "UpdKey", true)
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": s("s")}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdKey"), Key: key,
		UpdateExpression: aws.String("SET a = :one ADD cnt :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")},
		ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if out.Attributes != nil {
		t.Errorf("ALL_OLD of an upsert: got %s, want none", exRender(out.Attributes))
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("UpdKey"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := exRender(got.Item), exRender(map[string]types.AttributeValue{"pk": s("p"), "sk": s("s"), "a": n("1"), "cnt": n("1")}); got != want {
		t.Errorf("upsert: got %s, want %s", got, want)
	}
	// An UpdateItem with no update at all upserts the key-only item.
	key2 := map[string]types.AttributeValue{"pk": s("p"), "sk": s("t")}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdKey"), Key: key2}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("UpdKey"), Key: key2}); err != nil || exRender(got.Item) != exRender(key2) {
		t.Errorf("empty update upsert: got %v, %v, want %s", got, err, exRender(key2))
	}

	for _, tc := range []struct{ update, attr string }{
		{"SET pk = :one", "pk"}, {"SET sk = :one", "sk"}, {"REMOVE sk", "sk"}, {"ADD pk :one", "pk"},
		{"SET a = :one, #k = :one", "pk"},
	} {
		in := &dynamodb.UpdateItemInput{TableName: aws.String("UpdKey"), Key: key, UpdateExpression: aws.String(tc.update),
			ExpressionAttributeValues: exValues(map[string]types.AttributeValue{":one": n("1")}, tc.update),
			ExpressionAttributeNames:  exNames(map[string]string{"#k": "pk"}, tc.update)}
		_, err := c.UpdateItem(ctx, in)
		wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Cannot update attribute "+tc.attr+". This attribute is part of the key")
	}
}

// TestUpdateReturnValues checks each ReturnValues setting on the same update.
func TestUpdateReturnValues(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "UpdRV", false)
	base := map[string]types.AttributeValue{"pk": s("k"), "a": n("1"), "b": n("2"), "c": n("3"), "m": exM("x", n("1"), "y", n("2"))}
	tests := []struct {
		rv   types.ReturnValue
		want map[string]types.AttributeValue
	}{
		{types.ReturnValueNone, nil},
		{"", nil},
		{types.ReturnValueAllOld, base},
		{types.ReturnValueUpdatedOld, map[string]types.AttributeValue{"a": n("1"), "b": n("2"), "m": exM("x", n("1"))}},
		{types.ReturnValueAllNew, map[string]types.AttributeValue{"pk": s("k"), "a": n("10"), "c": n("3"), "d": n("1"), "m": exM("x", n("2"), "y", n("2"))}},
		{types.ReturnValueUpdatedNew, map[string]types.AttributeValue{"a": n("10"), "d": n("1"), "m": exM("x", n("2"))}},
	}
	for _, tc := range tests {
		t.Run(string(tc.rv), func(t *testing.T) {
			exPut(t, c, "UpdRV", maps.Clone(base))
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdRV"), Key: map[string]types.AttributeValue{"pk": s("k")},
				UpdateExpression:          aws.String("SET a = :ten, d = :one, m.x = m.x + :one REMOVE b, nope"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":ten": n("10"), ":one": n("1")},
				ReturnValues:              tc.rv})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := exRender(out.Attributes), exRender(tc.want); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	// UPDATED_OLD of attributes that did not exist returns nothing.
	exPut(t, c, "UpdRV", map[string]types.AttributeValue{"pk": s("k")})
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdRV"), Key: map[string]types.AttributeValue{"pk": s("k")},
		UpdateExpression: aws.String("SET z = :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}, ReturnValues: types.ReturnValueUpdatedOld})
	if err != nil || out.Attributes != nil {
		t.Errorf("UPDATED_OLD of a new attribute: got %s, %v, want none", exRender(out.Attributes), err)
	}
	// PutItem and DeleteItem accept only NONE and ALL_OLD.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("UpdRV"), Item: base, ReturnValues: types.ReturnValueAllNew})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE")
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("UpdRV"), Key: map[string]types.AttributeValue{"pk": s("k")}, ReturnValues: types.ReturnValueUpdatedOld})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE")
}

// TestUpdateExpressionBuilder drives UpdateItem with the SDK's update builder.
func TestUpdateExpressionBuilder(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "UpdB", false)
	exPut(t, c, "UpdB", exSeed("k"))
	upd := expression.Set(expression.Name("num"), expression.Name("num").Plus(expression.Value(5))).
		Set(expression.Name("status"), expression.Value("done")).
		Set(expression.Name("lst"), expression.ListAppend(expression.Name("lst"), expression.Value([]string{"z"}))).
		Set(expression.Name("seen"), expression.IfNotExists(expression.Name("seen"), expression.Value(true))).
		Remove(expression.Name("mp.in1")).
		Add(expression.Name("ss"), expression.Value(&types.AttributeValueMemberSS{Value: []string{"q"}})).
		Delete(expression.Name("ns"), expression.Value(&types.AttributeValueMemberNS{Value: []string{"1"}}))
	cond := expression.Name("status").Equal(expression.Value("active"))
	e, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdB"), Key: map[string]types.AttributeValue{"pk": s("k")},
		UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(), ReturnValues: types.ReturnValueUpdatedNew})
	if err != nil {
		t.Fatalf("%s IF %s: %v", aws.ToString(e.Update()), aws.ToString(e.Condition()), err)
	}
	want := map[string]types.AttributeValue{
		"num": n("15"), "status": s("done"), "lst": exL(n("1"), s("x"), exM("deep", s("y")), s("z")),
		"seen": &types.AttributeValueMemberBOOL{Value: true}, "ss": exSS("a", "b", "c", "q"), "ns": exNS("2"),
	}
	if got, want := exRender(out.Attributes), exRender(want); got != want {
		t.Errorf("UPDATED_NEW:\ngot  %s\nwant %s", got, want)
	}
}
