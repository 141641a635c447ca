package integration

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// exec runs one PartiQL statement.
func stmt(t *testing.T, c *dynamodb.Client, text string, params ...types.AttributeValue) *dynamodb.ExecuteStatementOutput {
	t.Helper()
	out, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(text), Parameters: params})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return out
}

// execErr runs a statement that must fail and returns its error.
func execErr(t *testing.T, c *dynamodb.Client, stmt string, params ...types.AttributeValue) error {
	t.Helper()
	_, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Parameters: params})
	if err == nil {
		t.Fatalf("%s: succeeded, want an error", stmt)
	}
	return err
}

// sks returns the sort keys of items, in order.
func sks(items []map[string]types.AttributeValue) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it["sk"].(*types.AttributeValueMemberS).Value)
	}
	return out
}

func getItem(t *testing.T, c *dynamodb.Client, tbl string, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tbl), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func TestPartiQLInsertSelect(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "Music", true)
	stmt(t, c, `INSERT INTO "Music" VALUE {'pk': 'a', 'sk': '1', 'n': 1.50, 'tags': <<'x', 'y'>>, 'm': {'k': [true, null]}}`)
	stmt(t, c, `INSERT INTO Music VALUE {'pk': ?, 'sk': ?, 'n': ?}`, s("a"), s("2"), n("2"))
	stmt(t, c, `INSERT INTO Music VALUE {'pk': 'b', 'sk': '1'}`)

	got := getItem(t, c, "Music", map[string]types.AttributeValue{"pk": s("a"), "sk": s("1")})
	want := map[string]types.AttributeValue{"pk": s("a"), "sk": s("1"), "n": n("1.5"),
		"tags": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberNULL{Value: true}}}}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("inserted item: got %#v, want %#v", got, want)
	}

	err := execErr(t, c, `INSERT INTO Music VALUE {'pk': 'a', 'sk': '1'}`)
	var dup *types.DuplicateItemException
	if !errors.As(err, &dup) || dup.ErrorMessage() != "Duplicate primary key exists in table" {
		t.Fatalf("duplicate insert: got %v, want DuplicateItemException", err)
	}

	for _, tc := range []struct {
		stmt   string
		params []types.AttributeValue
		want   []string
	}{
		{`SELECT * FROM Music WHERE pk = 'a' AND sk = '1'`, nil, []string{"1"}},
		{`SELECT * FROM Music WHERE pk = ?`, []types.AttributeValue{s("a")}, []string{"1", "2"}},
		{`SELECT * FROM Music WHERE pk = 'a' ORDER BY sk DESC`, nil, []string{"2", "1"}},
		{`SELECT * FROM Music WHERE pk = 'a' AND sk > '1'`, nil, []string{"2"}},
		{`SELECT * FROM Music WHERE pk = 'a' AND n >= 2`, nil, []string{"2"}},
		{`SELECT * FROM Music WHERE pk IN ['b', 'a'] AND begins_with(sk, '1')`, nil, []string{"1", "1"}},
		{`SELECT * FROM Music WHERE pk = 'a' AND tags IS NOT MISSING`, nil, []string{"1"}},
		{`SELECT * FROM Music WHERE pk = 'a' AND contains(tags, 'x') AND attribute_type(n, 'N')`, nil, []string{"1"}},
		{`SELECT * FROM Music WHERE pk = 'nobody'`, nil, []string{}},
		{`SELECT * FROM Music WHERE pk = 'a' AND sk = '9'`, nil, []string{}},
	} {
		got := sks(stmt(t, c, tc.stmt, tc.params...).Items)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got sort keys %v, want %v", tc.stmt, got, tc.want)
		}
	}
	scan := sks(stmt(t, c, `SELECT * FROM Music WHERE n IS MISSING OR n < 2`).Items)
	sort.Strings(scan)
	if !reflect.DeepEqual(scan, []string{"1", "1"}) {
		t.Errorf("scan: got %v, want [1 1]", scan)
	}
	proj := stmt(t, c, `SELECT m.k[0], sk FROM Music WHERE pk = 'a' AND sk = '1'`).Items
	wantProj := []map[string]types.AttributeValue{{"sk": s("1"), "m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
		"k": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}}}}}}}
	if !reflect.DeepEqual(proj, wantProj) {
		t.Errorf("projection: got %#v, want %#v", proj, wantProj)
	}
}
