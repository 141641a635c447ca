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

func TestPartiQLUpdateDelete(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "Tab", false)
	stmt(t, c, `INSERT INTO Tab VALUE {'pk': 'k', 'a': 1, 'b': 'x', 'l': [1], 'ss': <<'p'>>, 'gone': 'soon'}`)
	out := stmt(t, c, `UPDATE Tab SET a = a + 2 SET l = list_append(l, [2]) SET ss = set_add(ss, <<'q'>>) REMOVE gone WHERE pk = 'k' AND b = 'x' RETURNING ALL NEW *`)
	want := map[string]types.AttributeValue{"pk": s("k"), "a": n("3"), "b": s("x"),
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), n("2")}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"p", "q"}}}
	if len(out.Items) != 1 || !reflect.DeepEqual(out.Items[0], want) {
		t.Fatalf("RETURNING ALL NEW *: got %#v, want %#v", out.Items, want)
	}
	out = stmt(t, c, `UPDATE Tab SET b = 'y', ss = set_delete(ss, <<'p'>>) WHERE pk = 'k' RETURNING MODIFIED OLD *`)
	wantOld := map[string]types.AttributeValue{"b": s("x"), "ss": &types.AttributeValueMemberSS{Value: []string{"p", "q"}}}
	if len(out.Items) != 1 || !reflect.DeepEqual(out.Items[0], wantOld) {
		t.Fatalf("RETURNING MODIFIED OLD *: got %#v, want %#v", out.Items, wantOld)
	}
	if out := stmt(t, c, `UPDATE Tab SET b = 'z' WHERE pk = 'k'`); len(out.Items) != 0 {
		t.Fatalf("UPDATE without RETURNING: got items %v", out.Items)
	}

	// A false condition changes nothing; with ALL_OLD it returns the item.
	_, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{
		Statement: aws.String(`UPDATE Tab SET a = 9 WHERE pk = 'k' AND b = 'nope'`), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) || ccf.ErrorMessage() != "The conditional request failed" || ccf.Item["b"].(*types.AttributeValueMemberS).Value != "z" {
		t.Fatalf("false UPDATE condition: got %v, want ConditionalCheckFailedException with the item", err)
	}
	// UPDATE never creates an item.
	wantAPIError(t, execErr(t, c, `UPDATE Tab SET a = 1 WHERE pk = 'absent'`), "ConditionalCheckFailedException", "The conditional request failed")
	if it := getItem(t, c, "Tab", map[string]types.AttributeValue{"pk": s("absent")}); it != nil {
		t.Fatalf("UPDATE created %v", it)
	}

	wantAPIError(t, execErr(t, c, `DELETE FROM Tab WHERE pk = 'k' AND a = 100`), "ConditionalCheckFailedException", "The conditional request failed")
	// DELETE of an absent item is a no-op, whatever its condition.
	if out := stmt(t, c, `DELETE FROM Tab WHERE pk = 'absent' AND a = 100 RETURNING ALL OLD *`); len(out.Items) != 0 {
		t.Fatalf("DELETE of absent item: got %v", out.Items)
	}
	out = stmt(t, c, `DELETE FROM Tab WHERE pk = ? AND a = 3 RETURNING ALL OLD *`, s("k"))
	if len(out.Items) != 1 || out.Items[0]["b"].(*types.AttributeValueMemberS).Value != "z" {
		t.Fatalf("DELETE RETURNING ALL OLD *: got %v", out.Items)
	}
	if it := getItem(t, c, "Tab", map[string]types.AttributeValue{"pk": s("k")}); it != nil {
		t.Fatalf("DELETE left %v", it)
	}
}

func TestPartiQLErrors(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "Tab", true)
	stmt(t, c, `INSERT INTO Tab VALUE {'pk': 'k', 'sk': 's', 'a': 1}`)
	const malformed = "Statement wasn't well formed, can't be processed: "
	for _, tc := range []struct {
		stmt   string
		params []types.AttributeValue
		code   string
		msg    string
	}{
		{`SELECT * FROM Tab WHERE pk = 1 foo`, nil, "ValidationException", malformed + "Unexpected token after expression"},
		{`SELECT * FROM Tab WHERE`, nil, "ValidationException", malformed + "Unexpected term"},
		{`SELECT * FROM Tab WHERE pk = 'p1' AND`, nil, "ValidationException", malformed + "Missing right-hand side expression of infix operator"},
		{`DELETE FROM`, nil, "ValidationException", malformed + "Expected identifier for simple path"},
		{`CREATE TABLE x`, nil, "ValidationException", malformed + "Expected data manipulation"},
		{`SELECT * FROM Tab t WHERE pk = 'k'`, nil, "ValidationException", "Aliasing is not supported"},
		{`SELECT * FROM Tab WHERE pk = ?`, nil, "ValidationException", "Number of parameters in request and statement don't match."},
		{`SELECT * FROM Tab WHERE pk = 1e126`, nil, "ValidationException", "Number overflow. Attempting to store a number with magnitude larger than supported range under root"},
		{`INSERT INTO Tab VALUE {'pk': 'x', 'sk': 'y', 'm': {'x': 1e-131}}`, nil, "ValidationException", "Number underflow. Attempting to store a number with magnitude smaller than supported range under root.x"},
		{`SELECT * FROM Nope WHERE pk = 'k'`, nil, "ResourceNotFoundException", "Requested resource not found"},
		{`FROM Nope WHERE pk = 'x' SET c = 1`, nil, "ResourceNotFoundException", "Requested resource not found"},
		{`FROM Tab SET c = 1`, nil, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"},
		{`UPDATE Tab SET a = 2 WHERE pk = 'k'`, nil, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM Tab WHERE a = 1`, nil, "ValidationException", "Where clause does not contain a mandatory equality on all key attributes"},
		{`DELETE FROM Tab WHERE pk = 'k' AND sk = 's' RETURNING MODIFIED OLD *`, nil, "ValidationException", "Invalid returning clause: RETURNING MODIFIED OLD *. Only RETURNING ALL OLD * is allowed in DELETE statements."},
		{`EXISTS(SELECT * FROM Tab WHERE pk = 'k' AND sk = 's' AND a = 1)`, nil, "ValidationException", "EXISTS can only be used in ExecuteTransaction write requests."},
		{`SELECT * FROM Tab WHERE a = MISSING`, nil, "ValidationException", "MISSING must be compared using IS operator"},
		{`SELECT * FROM Tab WHERE nope(a)`, nil, "ValidationException", "Unrecognized function: nope at 1:25:4"},
		{`SELECT * FROM Tab ORDER BY sk`, nil, "ValidationException", "Must have WHERE clause in the statement when using ORDER BY clause."},
		{`SELECT * FROM Tab WHERE a = 1 ORDER BY sk`, nil, "ValidationException", "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."},
		{`SELECT * FROM Tab WHERE pk = 'k' ORDER BY a`, nil, "ValidationException", "Variable reference a in ORDER BY clause must be part of the primary key"},
		{`INSERT INTO Tab VALUE {'pk': 'x'}`, nil, "ValidationException", "One or more parameter values were invalid: Missing the key sk in the item"},
		{`INSERT INTO Tab VALUE {'pk': 'x', 'sk': 'y', 's': <<>>}`, nil, "ValidationException", "Empty bags are not supported"},
		{`UPDATE Tab SET a = set_add(b, <<1>>) WHERE pk = 'k' AND sk = 's'`, nil, "ValidationException", "The first argument to SET_ADD must equal the assignment value at 1:20:7"},
		{`SELECT * FROM Tab."nope" WHERE pk = 'k'`, nil, "ValidationException", "The table does not have the specified index"},
	} {
		_, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.stmt), Parameters: tc.params})
		if err == nil {
			t.Errorf("%s: succeeded, want %s", tc.stmt, tc.code)
			continue
		}
		t.Run(tc.stmt, func(t *testing.T) { wantAPIError(t, err, tc.code, tc.msg) })
	}
	// An empty Parameters list is refused by the request's shape.
	_, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM Tab`), Parameters: []types.AttributeValue{}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '[]' at 'parameters' failed to satisfy constraint: Member must have length greater than or equal to 1")
	// Nothing was changed by any of the refused statements.
	if it := getItem(t, c, "Tab", map[string]types.AttributeValue{"pk": s("k"), "sk": s("s")}); it["a"].(*types.AttributeValueMemberN).Value != "1" || len(it) != 3 {
		t.Fatalf("item after refused statements: %v", it)
	}
}

// pages runs a SELECT to its end with Limit, returning the sort keys page by page.
func pages(t *testing.T, c *dynamodb.Client, text string, limit int32) [][]string {
	t.Helper()
	var out [][]string
	var token *string
	for i := 0; i < 50; i++ {
		res, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(text), Limit: aws.Int32(limit), NextToken: token})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		out = append(out, sks(res.Items))
		if token = res.NextToken; token == nil {
			return out
		}
	}
	t.Fatalf("%s: no end after 50 pages", text)
	return nil
}

func TestPartiQLPaging(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "Pages", true)
	for _, pk := range []string{"a", "b"} {
		for _, sk := range []string{"1", "2", "3", "4", "5"} {
			stmt(t, c, `INSERT INTO Pages VALUE {'pk': ?, 'sk': ?}`, s(pk), s(sk))
		}
	}
	// A page that stops at its Limit carries a NextToken even when nothing
	// is left, so the last page may be empty; IN reads its partitions in turn.
	for _, tc := range []struct {
		stmt  string
		limit int32
		want  [][]string
	}{
		{`SELECT * FROM Pages WHERE pk = 'a'`, 2, [][]string{{"1", "2"}, {"3", "4"}, {"5"}}},
		{`SELECT * FROM Pages WHERE pk = 'a' ORDER BY sk DESC`, 3, [][]string{{"5", "4", "3"}, {"2", "1"}}},
		{`SELECT * FROM Pages WHERE pk IN ['b', 'a'] AND sk >= '4'`, 1, [][]string{{"4"}, {"5"}, {"4"}, {"5"}, {}}},
		{`SELECT * FROM Pages WHERE pk IN ['b', 'a'] AND sk <= '2' ORDER BY pk DESC`, 2, [][]string{{"1", "2"}, {"1", "2"}, {}}},
		{`SELECT * FROM Pages WHERE pk = 'b' AND sk = '1' OR pk = 'a' AND sk >= '5'`, 5, [][]string{{"1", "5"}}},
	} {
		if got := pages(t, c, tc.stmt, tc.limit); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s Limit %d: got pages %v, want %v", tc.stmt, tc.limit, got, tc.want)
		}
	}
	// A Scan pages through every item exactly once.
	var all []string
	for _, p := range pages(t, c, `SELECT * FROM Pages WHERE sk <> '3'`, 3) {
		all = append(all, p...)
	}
	if len(all) != 8 {
		t.Errorf("scan pages: got %d items %v, want 8", len(all), all)
	}
	// A token is for its own statement only.
	first, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM Pages WHERE pk = 'a'`), Limit: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM Pages WHERE pk = 'b'`), NextToken: first.NextToken})
	wantAPIError(t, err, "ValidationException", "NextToken does not match request")
	_, err = c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM Pages WHERE pk = 'a'`), NextToken: aws.String("garbage!")})
	wantAPIError(t, err, "ValidationException", "Invalid NextToken")
}

// TestPartiQLMatchesExpressionAPI runs statements and their expression-API
// equivalents on two identical tables and asserts the same items and the
// same consumed capacity.
func TestPartiQLMatchesExpressionAPI(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Left", true)
	createTable(t, c, "Right", true)
	putTwins(t, c)
	read := func(text string) *dynamodb.ExecuteStatementOutput {
		out, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(text), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return out
	}
	sameReads(t, c, read)
	sameWrites(t, c)
	sameItems(t, "after writes", read(`SELECT * FROM "Left" WHERE pk = 'p'`).Items, read(`SELECT * FROM "Right" WHERE pk = 'p'`).Items)
}

// putTwins writes the same four items into Left by INSERT and into Right
// by PutItem, and checks they cost the same.
func putTwins(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	big := make([]byte, 3000)
	for i := range big {
		big[i] = 'x'
	}
	for i, sk := range []string{"1", "2", "3", "4"} {
		item := map[string]types.AttributeValue{"pk": s("p"), "sk": s(sk), "n": n(string(rune('0' + i))), "pad": s(string(big))}
		// The same item, written by INSERT on one side and PutItem on the other.
		res, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "Left" VALUE {'pk': ?, 'sk': ?, 'n': ?, 'pad': ?}`),
			Parameters: []types.AttributeValue{item["pk"], item["sk"], item["n"], item["pad"]}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		put, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Right"), Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		sameCapacity(t, "INSERT", res.ConsumedCapacity, put.ConsumedCapacity)
	}
}

// sameReads checks that PartiQL SELECTs on Left (through read) return the
// items and capacity of the equivalent Query, GetItem and Scan on Right.
func sameReads(t *testing.T, c *dynamodb.Client, read func(string) *dynamodb.ExecuteStatementOutput) {
	t.Helper()
	ctx := context.Background()
	rcc := types.ReturnConsumedCapacityIndexes
	sel := read(`SELECT pk, sk, n FROM "Left" WHERE pk = 'p' AND sk BETWEEN '2' AND '4' AND n > 1`)
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Right"), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: rcc,
		KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :a AND :b"), FilterExpression: aws.String("n > :one"),
		ProjectionExpression:      aws.String("pk, sk, n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p"), ":a": s("2"), ":b": s("4"), ":one": n("1")}})
	if err != nil {
		t.Fatal(err)
	}
	sameItems(t, "Query", sel.Items, q.Items)
	sameCapacity(t, "Query", sel.ConsumedCapacity, q.ConsumedCapacity)

	sel = read(`SELECT * FROM "Left" WHERE pk = 'p' AND sk = '3'`)
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Right"), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: rcc,
		Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("3")}})
	if err != nil {
		t.Fatal(err)
	}
	sameItems(t, "GetItem", sel.Items, []map[string]types.AttributeValue{g.Item})
	sameCapacity(t, "GetItem", sel.ConsumedCapacity, g.ConsumedCapacity)

	sel = read(`SELECT * FROM "Left" WHERE n <> 2`)
	sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Right"), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: rcc,
		FilterExpression: aws.String("n <> :two"), ExpressionAttributeValues: map[string]types.AttributeValue{":two": n("2")}})
	if err != nil {
		t.Fatal(err)
	}
	sameItems(t, "Scan", sel.Items, sc.Items)
	sameCapacity(t, "Scan", sel.ConsumedCapacity, sc.ConsumedCapacity)
}

// sameWrites checks that a PartiQL UPDATE and DELETE on Left cost what the
// equivalent UpdateItem and DeleteItem on Right cost.
func sameWrites(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	rcc := types.ReturnConsumedCapacityIndexes
	up, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{ReturnConsumedCapacity: rcc,
		Statement: aws.String(`UPDATE "Left" SET n = n + 5 REMOVE pad WHERE pk = 'p' AND sk = '1'`)})
	if err != nil {
		t.Fatal(err)
	}
	ui, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Right"), ReturnConsumedCapacity: rcc,
		Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("1")}, UpdateExpression: aws.String("SET n = n + :five REMOVE #pad"),
		ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeNames: map[string]string{"#pad": "pad"}, ExpressionAttributeValues: map[string]types.AttributeValue{":five": n("5")}})
	if err != nil {
		t.Fatal(err)
	}
	sameCapacity(t, "UPDATE", up.ConsumedCapacity, ui.ConsumedCapacity)

	del, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{ReturnConsumedCapacity: rcc, Statement: aws.String(`DELETE FROM "Left" WHERE pk = 'p' AND sk = '2'`)})
	if err != nil {
		t.Fatal(err)
	}
	di, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Right"), ReturnConsumedCapacity: rcc, Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("2")}})
	if err != nil {
		t.Fatal(err)
	}
	sameCapacity(t, "DELETE", del.ConsumedCapacity, di.ConsumedCapacity)
}

func sameItems(t *testing.T, what string, got, want []map[string]types.AttributeValue) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the equivalent read returned nothing; the comparison would prove nothing", what)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: PartiQL items %#v, expression API %#v", what, got, want)
	}
}

func sameCapacity(t *testing.T, what string, got, want *types.ConsumedCapacity) {
	t.Helper()
	if got == nil || want == nil || *got.CapacityUnits == 0 {
		t.Fatalf("%s: capacity %v vs %v", what, got, want)
	}
	g, w := *got, *want
	g.TableName, w.TableName = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: PartiQL capacity %+v (table %+v), expression API %+v (table %+v)", what, g, g.Table, w, w.Table)
	}
}

func TestPartiQLIndexes(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "Idx", true, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS, "l": types.ScalarAttributeTypeN},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeAll)},
		[]types.LocalSecondaryIndex{lsiDef("byL", "l", types.ProjectionTypeKeysOnly)})
	for i, sk := range []string{"1", "2", "3"} {
		stmt(t, c, `INSERT INTO Idx VALUE {'pk': 'p', 'sk': ?, 'g': 'G', 'l': ?}`, s(sk), n(string(rune('3'-i))))
	}
	if got := sks(stmt(t, c, `SELECT * FROM "Idx"."byG" WHERE g = 'G' AND sk <> '2'`).Items); len(got) != 2 {
		t.Errorf("GSI query: got %v, want two items", got)
	}
	if got := sks(stmt(t, c, `SELECT sk FROM "Idx"."byL" WHERE pk = 'p' AND l >= 2 ORDER BY l`).Items); !reflect.DeepEqual(got, []string{"2", "1"}) {
		t.Errorf("LSI query by l: got %v, want [2 1]", got)
	}
	_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "Idx"."byG" WHERE g = 'G'`), ConsistentRead: aws.Bool(true)})
	wantAPIError(t, err, "ValidationException", "Strongly consistent read is not supported on Global Secondary Indexes")

	// IN on the partition key reads each partition and charges each Query.
	in, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM Idx WHERE pk IN ['p', 'q', 'r']`),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Items) != 3 || *in.ConsumedCapacity.CapacityUnits != 1.5 {
		t.Errorf("IN over three partitions: got %d items, %v units; want 3 items, 1.5 units (three eventually consistent Queries)", len(in.Items), *in.ConsumedCapacity.CapacityUnits)
	}
	// So does an OR of branches that each fix a partition.
	or, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM Idx WHERE pk = 'p' AND sk = '1' OR pk = 'q'`),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if len(or.Items) != 1 || *or.ConsumedCapacity.CapacityUnits != 1 {
		t.Errorf("OR of two partitions: got %d items, %v units; want 1 item, 1 unit (two eventually consistent Queries)", len(or.Items), *or.ConsumedCapacity.CapacityUnits)
	}
}

// TestPartiQLLastEvaluatedKey: a SELECT page that stops at its Limit
// carries, beside its NextToken, the key of the last item it evaluated as
// LastEvaluatedKey; the last page has neither.
func TestPartiQLLastEvaluatedKey(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "LEK", true)
	for _, sk := range []string{"1", "2", "3"} {
		stmt(t, c, `INSERT INTO LEK VALUE {'pk': 'a', 'sk': ?, 'n': 1}`, s(sk))
	}
	for _, text := range []string{`SELECT * FROM LEK WHERE pk = 'a'`, `SELECT * FROM LEK`} {
		var token *string
		var got []string
		for range 5 {
			res, err := c.ExecuteStatement(context.Background(), &dynamodb.ExecuteStatementInput{Statement: aws.String(text), Limit: aws.Int32(2), NextToken: token})
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			if token = res.NextToken; token == nil {
				if res.LastEvaluatedKey != nil {
					t.Errorf("%s: last page: got LastEvaluatedKey %v, want none", text, res.LastEvaluatedKey)
				}
				break
			}
			last := res.Items[len(res.Items)-1]
			want := map[string]types.AttributeValue{"pk": last["pk"], "sk": last["sk"]}
			if !reflect.DeepEqual(res.LastEvaluatedKey, want) {
				t.Errorf("%s: page %v: got LastEvaluatedKey %v, want %v", text, sks(res.Items), res.LastEvaluatedKey, want)
			}
			got = append(got, sks(res.Items)...)
		}
		if !reflect.DeepEqual(got, []string{"1", "2"}) {
			t.Errorf("%s: pages with a NextToken held %v, want [1 2]", text, got)
		}
	}
}
