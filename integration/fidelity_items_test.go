package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestUpdateItemOnMissingItem: an UpdateItem (or a transaction's Update)
// whose actions only remove (REMOVE, DELETE, AttributeUpdates DELETE)
// leaves a missing item missing and writes no stream record; an update with
// no action at all (empty AttributeUpdates) creates the key-only item, as
// any update with a SET/ADD/PUT does (API reference, AttributeValueUpdate:
// "DELETE - Nothing happens; there is no attribute to delete").
func TestUpdateItemOnMissingItem(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c := srv.client("us-east-1")
	arn := createStreamTable(t, c, "UpdMissing", types.StreamViewTypeNewAndOldImages)
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "sk": s("x")}
	}
	ss := &types.AttributeValueMemberSS{Value: []string{"a"}}
	noops := []struct {
		name string
		in   dynamodb.UpdateItemInput
	}{
		{"REMOVE", dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE a, b")}},
		{"DELETE", dynamodb.UpdateItemInput{UpdateExpression: aws.String("DELETE s :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": ss}}},
		{"REMOVE and DELETE", dynamodb.UpdateItemInput{UpdateExpression: aws.String("REMOVE a DELETE s :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": ss}, ReturnValues: types.ReturnValueAllNew}},
		{"legacy DELETE", dynamodb.UpdateItemInput{AttributeUpdates: map[string]types.AttributeValueUpdate{
			"a": {Action: types.AttributeActionDelete}, "s": {Action: types.AttributeActionDelete, Value: ss}}}},
	}
	for _, tt := range noops {
		in := tt.in
		in.TableName, in.Key = aws.String("UpdMissing"), key(tt.name)
		out, err := c.UpdateItem(ctx, &in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if out.Attributes != nil {
			t.Errorf("%s: Attributes %v, want none", tt.name, out.Attributes)
		}
		wantItem(t, c, "UpdMissing", key(tt.name), "")
	}
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		Update: &types.Update{TableName: aws.String("UpdMissing"), Key: key("transact"), UpdateExpression: aws.String("REMOVE a")}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantItem(t, c, "UpdMissing", key("transact"), "")
	if recs, _ := walkStream(t, streamsClient(srv.URL), arn); len(recs) != 0 {
		t.Fatalf("stream records after remove-only updates of missing items: got %d, want 0", len(recs))
	}

	// No action at all creates the key-only item, and its INSERT record.
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdMissing"), Key: key("empty"),
		AttributeUpdates: map[string]types.AttributeValueUpdate{}}); err != nil {
		t.Fatal(err)
	}
	wantItem(t, c, "UpdMissing", key("empty"), `M{pk:S"empty",sk:S"x"}`)
	recs, _ := walkStream(t, streamsClient(srv.URL), arn)
	if len(recs) != 1 || recs[0].EventName != "INSERT" || recs[0].Dynamodb.OldImage != nil || len(recs[0].Dynamodb.NewImage) != 2 {
		t.Fatalf("stream after an empty AttributeUpdates: got %+v, want one INSERT of the key-only item", recs)
	}
}

// wantItem asserts the stored item at key, read consistently, renders as
// want in canon form ("" for no item).
func wantItem(t *testing.T, c *dynamodb.Client, tableName string, key map[string]types.AttributeValue, want string) {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tableName), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	if out.Item != nil {
		got = canon(&types.AttributeValueMemberM{Value: out.Item})
	}
	if got != want {
		t.Fatalf("item %v: got %s, want %s", key, got, want)
	}
}

// TestProjectionMatchingNothing: a read whose projection names no attribute
// of an existing item returns that item as {} (present, empty) on GetItem
// and BatchGetItem, but TransactGetItems omits its Item, as for a missing
// item (the service's answers as captured in ExtendDB/extenddb#74 and
// nubo-db/dynoxide#53); a missing item stays absent everywhere.
func TestProjectionMatchingNothing(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "ProjNone", false)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ProjNone"),
		Item: map[string]types.AttributeValue{"pk": s("here"), "a": s("1")}}); err != nil {
		t.Fatal(err)
	}
	here := map[string]types.AttributeValue{"pk": s("here")}
	gone := map[string]types.AttributeValue{"pk": s("gone")}
	for _, key := range []map[string]types.AttributeValue{here, gone} {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ProjNone"), Key: key, ProjectionExpression: aws.String("nope, a.b")})
		if err != nil {
			t.Fatal(err)
		}
		if exists := key["pk"] == here["pk"]; (out.Item != nil) != exists || len(out.Item) != 0 {
			t.Errorf("GetItem %v: Item %v (nil %v), want empty and present: %v", key, out.Item, out.Item == nil, exists)
		}
	}
	bg, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"ProjNone": {Keys: []map[string]types.AttributeValue{here, gone}, ProjectionExpression: aws.String("nope")}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := bg.Responses["ProjNone"]; len(got) != 1 || got[0] == nil || len(got[0]) != 0 {
		t.Errorf("BatchGetItem: got %v, want one empty item", got)
	}
	tg, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("ProjNone"), Key: here, ProjectionExpression: aws.String("nope")}},
		{Get: &types.Get{TableName: aws.String("ProjNone"), Key: gone, ProjectionExpression: aws.String("nope")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if r := tg.Responses; len(r) != 2 || r[0].Item != nil || r[1].Item != nil {
		t.Errorf("TransactGetItems: got %+v, want no Item in either response", r)
	}
}

// TestBodyNotAnObject: a body that is JSON but not an object is refused
// with a SerializationException and executes nothing.
func TestBodyNotAnObject(t *testing.T) {
	srv := startServer(t, table.Options{})
	for _, body := range []string{"null", " null ", "[]", `"x"`, "1", "true"} {
		for _, op := range []string{"ListTables", "CreateTable"} {
			status, typ, msg := rawCall(t, srv.URL, op, body)
			if status != 400 || !strings.HasSuffix(typ, "#SerializationException") {
				t.Errorf("%s %s: got %d %s %q, want 400 SerializationException", op, body, status, typ, msg)
			}
		}
	}
}

// TestGSIKeySchemaReusingTableKeys: a multi-attribute GSI whose key
// attributes include the table's own key attributes is described with its
// key schema exactly as created.
func TestGSIKeySchemaReusingTableKeys(t *testing.T) {
	c := newClient(t)
	gsis := []types.GlobalSecondaryIndex{
		gsiDef("gsi1", []string{"country"}, []string{"sk", "pk"}, types.ProjectionTypeAll),
		gsiDef("gsi2", []string{"sk", "country"}, []string{"pk", "city"}, types.ProjectionTypeKeysOnly),
		gsiDef("gsi3", []string{"pk"}, []string{"city", "sk"}, types.ProjectionTypeKeysOnly),
	}
	createIndexed(t, c, "GsiReuse", true, map[string]types.ScalarAttributeType{"country": "S", "city": "S"}, gsis, nil)
	d := describeIndexes(t, c, "GsiReuse")
	got := map[string]string{}
	for _, g := range d.GlobalSecondaryIndexes {
		got[aws.ToString(g.IndexName)] = ksString(g.KeySchema)
	}
	for _, g := range gsis {
		if want := ksString(g.KeySchema); got[*g.IndexName] != want {
			t.Errorf("%s KeySchema: got %s, want %s", *g.IndexName, got[*g.IndexName], want)
		}
	}
	if got, want := ksString(d.KeySchema), "pk:HASH,sk:RANGE"; got != want {
		t.Errorf("table KeySchema: got %s, want %s", got, want)
	}
	// The same index added by UpdateTable.
	g := gsiDef("gsi4", []string{"country"}, []string{"sk", "pk"}, types.ProjectionTypeAll)
	out, err := c.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("GsiReuse"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("country"), AttributeType: "S"},
			{AttributeName: aws.String("sk"), AttributeType: "S"}, {AttributeName: aws.String("pk"), AttributeType: "S"}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][]types.GlobalSecondaryIndexDescription{out.TableDescription.GlobalSecondaryIndexes,
		describeIndexes(t, c, "GsiReuse").GlobalSecondaryIndexes} {
		for _, ix := range d {
			if *ix.IndexName == "gsi4" && ksString(ix.KeySchema) != ksString(g.KeySchema) {
				t.Errorf("gsi4 KeySchema: got %s, want %s", ksString(ix.KeySchema), ksString(g.KeySchema))
			}
		}
	}
}
