package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestMultiKeyReusesTableKey: a multi-attribute global index whose RANGE
// (or HASH) attributes include the table's own key attributes is described
// with its key schema as defined, each attribute defined once, and is
// queried and paged through with every key attribute once in
// LastEvaluatedKey.
func TestMultiKeyReusesTableKey(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "Reuse", true, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS}, []types.GlobalSecondaryIndex{
		gsiDef("bySkPk", []string{"g"}, []string{"sk", "pk"}, types.ProjectionTypeKeysOnly),
		gsiDef("byPkG", []string{"pk", "g"}, []string{"sk"}, types.ProjectionTypeAll),
	}, nil)
	d := describeIndexes(t, c, "Reuse")
	want := map[string]string{"bySkPk": "g:HASH,sk:RANGE,pk:RANGE", "byPkG": "pk:HASH,g:HASH,sk:RANGE"}
	if len(d.GlobalSecondaryIndexes) != 2 {
		t.Fatalf("got %d global indexes, want 2", len(d.GlobalSecondaryIndexes))
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if got := ksString(g.KeySchema); got != want[aws.ToString(g.IndexName)] {
			t.Errorf("%s KeySchema: got %s, want %s", aws.ToString(g.IndexName), got, want[aws.ToString(g.IndexName)])
		}
	}
	if got := ksString(d.KeySchema); got != "pk:HASH,sk:RANGE" {
		t.Errorf("table KeySchema: got %s, want pk:HASH,sk:RANGE", got)
	}
	var defs []string
	for _, a := range d.AttributeDefinitions {
		defs = append(defs, aws.ToString(a.AttributeName))
	}
	slices.Sort(defs)
	if fmt.Sprint(defs) != "[g pk sk]" {
		t.Errorf("AttributeDefinitions: got %v, want g, pk and sk once each", defs)
	}

	var items []ritem
	for i := range 7 {
		items = append(items, ritem{"pk": s(fmt.Sprintf("p%d", i%2)), "sk": s(fmt.Sprintf("s%d", i)), "g": s("G")})
	}
	putAll(t, c, "Reuse", items)
	got, pages := queryPages(t, c, dynamodb.QueryInput{TableName: aws.String("Reuse"), IndexName: aws.String("bySkPk"),
		KeyConditionExpression: aws.String("g = :g AND sk = :s AND pk = :p"), ExpressionAttributeValues: rvals(":g", s("G"), ":s", s("s3"), ":p", s("p1"))}, nil)
	if len(got) != 1 || rstr(got[0], "sk") != "s3" || pages != 1 {
		t.Errorf("bySkPk on its full key: got %v in %d pages, want the item s3", got, pages)
	}
	got, pages = queryPages(t, c, dynamodb.QueryInput{TableName: aws.String("Reuse"), IndexName: aws.String("bySkPk"),
		KeyConditionExpression: aws.String("g = :g AND sk > :s"), ExpressionAttributeValues: rvals(":g", s("G"), ":s", s("s1")), Limit: aws.Int32(2)},
		[]string{"g", "sk", "pk"})
	if len(got) != 5 || pages != 3 {
		t.Errorf("bySkPk paged: got %d items in %d pages, want 5 in 3", len(got), pages)
	}
	got, _ = queryPages(t, c, dynamodb.QueryInput{TableName: aws.String("Reuse"), IndexName: aws.String("byPkG"),
		KeyConditionExpression: aws.String("pk = :p AND g = :g"), ExpressionAttributeValues: rvals(":g", s("G"), ":p", s("p0")), Limit: aws.Int32(3)},
		[]string{"g", "sk", "pk"})
	if len(got) != 4 {
		t.Errorf("byPkG paged: got %d items, want 4", len(got))
	}
	_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Reuse"), IndexName: aws.String("bySkPk"),
		KeyConditionExpression: aws.String("g = :g AND pk = :p"), ExpressionAttributeValues: rvals(":g", s("G"), ":p", s("p0"))})
	wantAPIError(t, err, "ValidationException",
		"RANGE key attributes sk must have equality conditions specified in the query because a condition is present on key attribute pk")
}

// TestMultiKeyLegacyKeyConditions: the legacy KeyConditions parameter
// queries a multi-attribute index as KeyConditionExpression does. Issue 32
// asked for it to be refused, but no recorded answer of the service
// refuses it: ScyllaDB's Alternator tests of composite-key GSIs, which run
// against DynamoDB too, first guessed that it "seems to be rejected" and
// now record that "real DynamoDB appears to allow it", and getmoto/moto's
// aws_verified tests of multi-attribute indexes (test_key_conditions_hash_only,
// test_key_conditions_with_range_keys) record the service answering it;
// ddblocal takes it.
func TestMultiKeyLegacyKeyConditions(t *testing.T) {
	c := newClient(t)
	createIndexed(t, c, "LegacyMulti", false, map[string]types.ScalarAttributeType{
		"h1": types.ScalarAttributeTypeS, "h2": types.ScalarAttributeTypeS, "r1": types.ScalarAttributeTypeS, "r2": types.ScalarAttributeTypeS,
	}, []types.GlobalSecondaryIndex{gsiDef("idx", []string{"h1", "h2"}, []string{"r1", "r2"}, types.ProjectionTypeAll)}, nil)
	var items []ritem
	for i, r2 := range []string{"a", "b", "c", "d"} {
		items = append(items, ritem{"pk": s(fmt.Sprintf("p%d", i)), "h1": s("v"), "h2": s("w"), "r1": s("r"), "r2": s(r2)})
	}
	items = append(items, ritem{"pk": s("other"), "h1": s("v"), "h2": s("x"), "r1": s("r"), "r2": s("a")})
	putAll(t, c, "LegacyMulti", items)
	eq := func(v string) types.Condition {
		return types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s(v)}}
	}
	for _, tc := range []struct {
		name  string
		conds map[string]types.Condition
		want  []string
	}{
		{"every HASH attribute", map[string]types.Condition{"h1": eq("v"), "h2": eq("w")}, []string{"p0", "p1", "p2", "p3"}},
		{"a RANGE prefix and a final LE", map[string]types.Condition{"h1": eq("v"), "h2": eq("w"), "r1": eq("r"),
			"r2": {ComparisonOperator: types.ComparisonOperatorLe, AttributeValueList: []types.AttributeValue{s("b")}}}, []string{"p0", "p1"}},
		{"a RANGE prefix and a final BETWEEN", map[string]types.Condition{"h1": eq("v"), "h2": eq("w"), "r1": eq("r"),
			"r2": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{s("b"), s("c")}}}, []string{"p1", "p2"}},
	} {
		got, _ := queryPages(t, c, dynamodb.QueryInput{TableName: aws.String("LegacyMulti"), IndexName: aws.String("idx"), KeyConditions: tc.conds}, nil)
		var pks []string
		for _, it := range got {
			pks = append(pks, rstr(it, "pk"))
		}
		if !slices.Equal(pks, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, pks, tc.want)
		}
	}
	_, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("LegacyMulti"), IndexName: aws.String("idx"),
		KeyConditions: map[string]types.Condition{"h1": eq("v")}})
	wantAPIError(t, err, "ValidationException", "Query condition missed key schema element: h2")
	// Skipping a RANGE attribute is refused naming it (getmoto/moto's
	// aws_verified test_key_conditions_error_skip_range_key).
	_, err = c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("LegacyMulti"), IndexName: aws.String("idx"),
		KeyConditions: map[string]types.Condition{"h1": eq("v"), "h2": eq("w"),
			"r2": {ComparisonOperator: types.ComparisonOperatorGt, AttributeValueList: []types.AttributeValue{s("a")}}}})
	wantAPIError(t, err, "ValidationException",
		"RANGE key attributes r1 must have equality conditions specified in the query because a condition is present on key attribute r2")
}
