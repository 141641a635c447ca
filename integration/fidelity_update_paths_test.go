package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestUpdatePathsThroughMissingDocuments: an update path that goes through
// a document the item lacks (or that is not a map or list) is refused with
// "The document path provided in the update expression is invalid for
// update", for REMOVE and DELETE too, and on a missing item as on an
// existing one, where a top-level REMOVE or DELETE of a missing item writes
// nothing; a list index past the end appends on SET and removes nothing on
// REMOVE (architect/dynalite's suite, written against DynamoDB). Only the
// updates that change the item leave a stream record.
func TestUpdatePathsThroughMissingDocuments(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c := srv.client("us-east-1")
	arn := createStreamTable(t, c, "UpdPaths", types.StreamViewTypeNewAndOldImages)
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(pk), "sk": s("1")}
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("UpdPaths"), Item: withAttr(withAttr(withAttr(key("here"),
		"l", exL(n("1"), n("2"))), "m", exM("x", n("1"))), "s", s("str"))}); err != nil {
		t.Fatal(err)
	}
	update := func(pk, expr string, values map[string]types.AttributeValue) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdPaths"), Key: key(pk),
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: values})
		return err
	}
	ss := map[string]types.AttributeValue{":v": exSS("x")}
	const invalid = "The document path provided in the update expression is invalid for update"
	for _, tt := range []struct {
		pk, expr string
		values   map[string]types.AttributeValue
	}{
		{"gone", "REMOVE a.b", nil},
		{"gone", "REMOVE a[0]", nil},
		{"gone", "REMOVE c, a.b", nil},
		{"gone", "DELETE a.b :v", ss},
		{"here", "REMOVE y.a", nil},
		{"here", "REMOVE y[1]", nil},
		{"here", "REMOVE s.a", nil},
		{"here", "REMOVE m.nope.deeper", nil},
		{"here", "REMOVE l[1].x", nil},
		{"here", "REMOVE l[5].x", nil},
		{"here", "DELETE y.a :v", ss},
		{"here", "SET l[7].x = :v", ss},
	} {
		wantAPIError(t, update(tt.pk, tt.expr, tt.values), "ValidationException", invalid)
	}
	wantItem(t, c, "UpdPaths", key("gone"), "")
	// Top-level removals of a missing item, and removals of what is not
	// there, change nothing.
	for _, tt := range []struct {
		pk, expr string
		values   map[string]types.AttributeValue
	}{
		{"gone", "REMOVE a, b", nil},
		{"gone", "DELETE a :v", ss},
		{"here", "REMOVE m.nope", nil},
		{"here", "REMOVE l[50]", nil},
	} {
		if err := update(tt.pk, tt.expr, tt.values); err != nil {
			t.Errorf("%s on %s: %v", tt.expr, tt.pk, err)
		}
	}
	wantItem(t, c, "UpdPaths", key("gone"), "")
	const before = `M{l:L[N1,N2],m:M{x:N1},pk:S"here",s:S"str",sk:S"1"}`
	wantItem(t, c, "UpdPaths", key("here"), before)
	// An index past the end appends.
	if err := update("here", "SET l[10] = :a", map[string]types.AttributeValue{":a": s("a")}); err != nil {
		t.Fatal(err)
	}
	wantItem(t, c, "UpdPaths", key("here"), `M{l:L[N1,N2,S"a"],m:M{x:N1},pk:S"here",s:S"str",sk:S"1"}`)
	recs, _ := walkStream(t, streamsClient(srv.URL), arn)
	if len(recs) != 2 || recs[0].EventName != "INSERT" || recs[1].EventName != "MODIFY" {
		t.Fatalf("stream: got %d records, want the put's INSERT and the append's MODIFY", len(recs))
	}
}

// TestUpdateExpressionNamesAndNesting: what DynamoDB finds while parsing an
// update expression comes first, in source order: a reserved word used as a
// name and an unknown function (names are case-sensitive: LIST_APPEND is
// unknown), then a clause given twice, then placeholders; a bare name is
// letters, digits and underscores. Functions nest
// where a value may stand (list_append(if_not_exists(...), ...),
// if_not_exists(a, list_append(...))), but if_not_exists wants a document
// path first (architect/dynalite's suite, written against the service).
func TestUpdateExpressionNamesAndNesting(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "UpdNames", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	update := func(expr string, names map[string]string, values map[string]types.AttributeValue) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("UpdNames"), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
		return err
	}
	ab := map[string]string{"#a": "a", "#b": "b"}
	vals := map[string]types.AttributeValue{":a": s("a"), ":b": s("a")}
	const pre = "1 validation error detected: Invalid UpdateExpression: " // UpdateItem's envelope
	for _, tt := range []struct {
		expr   string
		names  map[string]string
		values map[string]types.AttributeValue
		want   string
	}{
		{"set #c = if_not_exist(:c) set c = d", ab, vals, pre + "Invalid function name; function: if_not_exist"},
		{" set #c = :c set abOrt = true ", ab, vals, pre + "Attribute name is a reserved keyword; reserved keyword: abOrt"},
		{"set a = #c set c = :d", ab, vals, pre + `The "SET" section can only be used once in an update expression;`},
		{"remove #d set a = b remove e", ab, vals, pre + `The "REMOVE" section can only be used once in an update expression;`},
		{"SET #c = if_not_exists(:c)", ab, vals, pre + "An expression attribute name used in the document path is not defined; attribute name: #c"},
		{"SET z = LIST_APPEND(a, b)", nil, nil, pre + "Invalid function name; function: LIST_APPEND"},
		{"SET z = If_Not_Exists(a, b)", nil, nil, pre + "Invalid function name; function: If_Not_Exists"},
		{"SET a-b = c", nil, nil, pre + `Syntax error; token: "-", near: "a-b"`},
		{"set a = if_not_exists(if_not_exists(a, b), c)", nil, nil, pre + "Operator or function requires a document path; operator or function: if_not_exists"},
		{"set a = if_not_exists(:a, c)", nil, map[string]types.AttributeValue{":a": s("a")}, pre + "Operator or function requires a document path; operator or function: if_not_exists"},
		{"set a = list_append(c)", nil, nil, pre + "Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
	} {
		wantAPIError(t, update(tt.expr, tt.names, tt.values), "ValidationException", tt.want)
	}
	wantItem(t, c, "UpdNames", key, "")
	l := func(vs ...string) types.AttributeValue {
		var out []types.AttributeValue
		for _, v := range vs {
			out = append(out, n(v))
		}
		return &types.AttributeValueMemberL{Value: out}
	}
	for _, tt := range []struct {
		expr   string
		values map[string]types.AttributeValue
		want   string
	}{
		{"SET l = list_append(if_not_exists(l, :e), :l)", map[string]types.AttributeValue{":e": l(), ":l": l("1")}, `M{l:L[N1],pk:S"k"}`},
		{"SET l = list_append(:l, if_not_exists(l, :e))", map[string]types.AttributeValue{":e": l(), ":l": l("0")}, `M{l:L[N0,N1],pk:S"k"}`},
		{"SET z = if_not_exists(z, list_append(l, :l))", map[string]types.AttributeValue{":l": l("2")}, `M{l:L[N0,N1],pk:S"k",z:L[N0,N1,N2]}`},
		{"SET y = if_not_exists(y, if_not_exists(z, :e))", map[string]types.AttributeValue{":e": l()}, `M{l:L[N0,N1],pk:S"k",y:L[N0,N1,N2],z:L[N0,N1,N2]}`},
	} {
		if err := update(tt.expr, nil, tt.values); err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		wantItem(t, c, "UpdNames", key, tt.want)
	}
}
