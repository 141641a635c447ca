package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestPartiQLBatch(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Batch", true)
	createTable(t, c, "Other", false)
	stmt(t, c, `INSERT INTO Batch VALUE {'pk': 'a', 'sk': '1', 'v': 1}`)

	w, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`INSERT INTO Batch VALUE {'pk': 'a', 'sk': '2'}`)},
			{Statement: aws.String(`INSERT INTO Batch VALUE {'pk': 'a', 'sk': '1'}`)},
			{Statement: aws.String(`UPDATE Batch SET v = v + 1 WHERE pk = ? AND sk = ?`), Parameters: []types.AttributeValue{s("a"), s("1")}},
			{Statement: aws.String(`UPDATE Batch SET v = 0 WHERE pk = 'a' AND sk = '1' AND v = 99`), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
			{Statement: aws.String(`DELETE FROM Batch WHERE pk = 'a'`)},
			{Statement: aws.String(`INSERT INTO Other VALUE {'pk': 'o'}`)},
			{Statement: aws.String(`INSERT INTO Absent VALUE {'pk': 'o'}`)},
			{Statement: aws.String(`INSERT INTO Other VALUE {'pk': ?}`)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []types.BatchStatementResponse{
		{TableName: aws.String("Batch")},
		{TableName: aws.String("Batch"), Error: &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumDuplicateItem, Message: aws.String("Duplicate primary key exists in table")}},
		{TableName: aws.String("Batch")},
		{TableName: aws.String("Batch"), Error: &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumConditionalCheckFailed, Message: aws.String("The conditional request failed"),
			Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("1"), "v": n("2")}}},
		{TableName: aws.String("Batch"), Error: &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumValidationError, Message: aws.String("Where clause does not contain a mandatory equality on all key attributes")}},
		{TableName: aws.String("Other")},
		{Error: &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumResourceNotFound, Message: aws.String("Requested resource not found")}},
		{Error: &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumValidationError, Message: aws.String("Number of parameters in request and statement don't match.")}},
	}
	if !reflect.DeepEqual(w.Responses, want) {
		t.Fatalf("write batch responses:\n got %s\nwant %s", dump(w.Responses), dump(want))
	}
	if len(w.ConsumedCapacity) != 2 || *w.ConsumedCapacity[0].TableName != "Batch" || *w.ConsumedCapacity[0].CapacityUnits != 2 || *w.ConsumedCapacity[1].CapacityUnits != 1 {
		t.Errorf("write batch capacity: got %s, want 2 units on Batch then 1 on Other", dump(w.ConsumedCapacity))
	}

	r, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		Statements: []types.BatchStatementRequest{
			{Statement: aws.String(`SELECT v FROM Batch WHERE pk = 'a' AND sk = '1'`), ConsistentRead: aws.Bool(true)},
			{Statement: aws.String(`SELECT * FROM Batch WHERE pk = 'a' AND sk = '9'`)},
			{Statement: aws.String(`SELECT * FROM Batch WHERE pk = 'a'`)},
			{Statement: aws.String(`SELECT * FROM Other WHERE pk = 'o'`)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	wantR := []types.BatchStatementResponse{
		{TableName: aws.String("Batch"), Item: map[string]types.AttributeValue{"v": n("2")}},
		{TableName: aws.String("Batch")},
		{TableName: aws.String("Batch"), Error: &types.BatchStatementError{Code: types.BatchStatementErrorCodeEnumValidationError,
			Message: aws.String("Select statements within BatchExecuteStatement must specify the primary key in the where clause.")}},
		{TableName: aws.String("Other"), Item: map[string]types.AttributeValue{"pk": s("o")}},
	}
	if !reflect.DeepEqual(r.Responses, wantR) {
		t.Fatalf("read batch responses:\n got %s\nwant %s", dump(r.Responses), dump(wantR))
	}
	if len(r.ConsumedCapacity) != 2 || *r.ConsumedCapacity[0].CapacityUnits != 1.5 || *r.ConsumedCapacity[1].CapacityUnits != 0.5 {
		t.Errorf("read batch capacity: got %s, want 1.5 (one strong, one eventual read) on Batch, 0.5 on Other", dump(r.ConsumedCapacity))
	}

	_, err = c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`SELECT * FROM Batch WHERE pk = 'a' AND sk = '1'`)},
		{Statement: aws.String(`DELETE FROM Batch WHERE pk = 'a' AND sk = '1'`)},
	}})
	wantAPIError(t, err, "ValidationException", "Statements in a batch must be either all reads or all writes")
	many := make([]types.BatchStatementRequest, 26)
	for i := range many {
		many[i].Statement = aws.String(`SELECT * FROM Batch WHERE pk = 'a' AND sk = '1'`)
	}
	_, err = c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: many})
	wantAPIError(t, err, "ValidationException", "")
	if msg := err.Error(); !strings.Contains(msg, "1 validation error detected: Value '[{Statement: SELECT") ||
		!strings.HasSuffix(msg, "' at 'statements' failed to satisfy constraint: Member must have length less than or equal to 25") {
		t.Fatalf("26 statements: got %q", msg)
	}
}

func TestPartiQLTransaction(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Txn", true)
	stmt(t, c, `INSERT INTO Txn VALUE {'pk': 'a', 'sk': '1', 'v': 1}`)
	run := func(token *string, stmts ...string) (*dynamodb.ExecuteTransactionOutput, error) {
		in := &dynamodb.ExecuteTransactionInput{ClientRequestToken: token, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		for _, s := range stmts {
			in.TransactStatements = append(in.TransactStatements, types.ParameterizedStatement{Statement: aws.String(s)})
		}
		return c.ExecuteTransaction(ctx, in)
	}
	txnWrites(t, run)
	txnCancelled(t, run)

	rd, err := run(nil, `SELECT v FROM Txn WHERE pk = 'a' AND sk = '1'`, `SELECT * FROM Txn WHERE pk = 'a' AND sk = '9'`, `SELECT * FROM Txn WHERE pk = 'a' AND sk = '2'`)
	if err != nil {
		t.Fatal(err)
	}
	wantRd := []types.ItemResponse{{Item: map[string]types.AttributeValue{"v": n("2")}}, {},
		{Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("2"), "v": n("10")}}}
	if !reflect.DeepEqual(rd.Responses, wantRd) || *rd.ConsumedCapacity[0].CapacityUnits != 6 {
		t.Fatalf("read transaction: got %s capacity %s, want %s and 6 units", dump(rd.Responses), dump(rd.ConsumedCapacity), dump(wantRd))
	}

	txnRefused(t, run)
	if it := getItem(t, c, "Txn", map[string]types.AttributeValue{"pk": s("a"), "sk": s("1")}); it["v"].(*types.AttributeValueMemberN).Value != "2" {
		t.Fatalf("item after refused transactions: %v", it)
	}
}

// txnRun is ExecuteTransaction of stmts with token, on TestPartiQLTransaction's client.
type txnRun func(token *string, stmts ...string) (*dynamodb.ExecuteTransactionOutput, error)

// txnWrites checks a write transaction on table Txn: refused when two
// statements touch one item, charged two units a write, and idempotent
// under its token.
func txnWrites(t *testing.T, run txnRun) {
	t.Helper()
	out, err := run(aws.String("tok-1"),
		`INSERT INTO Txn VALUE {'pk': 'a', 'sk': '2', 'v': 10}`,
		`UPDATE Txn SET v = v + 1 WHERE pk = 'a' AND sk = '1'`,
		`EXISTS(SELECT * FROM Txn WHERE pk = 'a' AND sk = '1' AND v = 1)`)
	if err == nil {
		t.Fatal("a transaction updating and checking the same item succeeded")
	}
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")

	out, err = run(aws.String("tok-2"),
		`INSERT INTO Txn VALUE {'pk': 'a', 'sk': '2', 'v': 10}`,
		`UPDATE Txn SET v = v + 1 WHERE pk = 'a' AND sk = '1' AND v = 1`)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ConsumedCapacity) != 1 || *out.ConsumedCapacity[0].CapacityUnits != 4 {
		t.Errorf("write transaction capacity: got %s, want 4 (two transactional writes)", dump(out.ConsumedCapacity))
	}
	// The same token and statements again: nothing is written twice.
	if _, err = run(aws.String("tok-2"),
		`INSERT INTO Txn VALUE {'pk': 'a', 'sk': '2', 'v': 10}`,
		`UPDATE Txn SET v = v + 1 WHERE pk = 'a' AND sk = '1' AND v = 1`); err != nil {
		t.Fatalf("idempotent replay: %v", err)
	}
	_, err = run(aws.String("tok-2"), `DELETE FROM Txn WHERE pk = 'a' AND sk = '2'`)
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
}

// txnCancelled checks the cancellation reasons of a transaction on table
// Txn whose statements fail in different ways.
func txnCancelled(t *testing.T, run txnRun) {
	t.Helper()
	_, err := run(nil,
		`INSERT INTO Txn VALUE {'pk': 'a', 'sk': '2'}`,
		`EXISTS(SELECT * FROM Txn WHERE pk = 'a' AND sk = '1' AND v = 7)`,
		`DELETE FROM Txn WHERE pk = 'a' AND sk = '3'`)
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("cancelled transaction: got %v", err)
	}
	wantReasons := []types.CancellationReason{
		{Code: aws.String("DuplicateItem"), Message: aws.String("Duplicate primary key exists in table")},
		{Code: aws.String("ConditionalCheckFailed"), Message: aws.String("The conditional request failed")},
		{Code: aws.String("None")},
	}
	if !reflect.DeepEqual(tce.CancellationReasons, wantReasons) || tce.ErrorMessage() != "Transaction cancelled, please refer cancellation reasons for specific reasons [DuplicateItem, ConditionalCheckFailed, None]" {
		t.Fatalf("cancellation: got %q %s, want %s", tce.ErrorMessage(), dump(tce.CancellationReasons), dump(wantReasons))
	}
}

// txnRefused checks the transactions on table Txn that are refused before
// they run.
func txnRefused(t *testing.T, run txnRun) {
	t.Helper()
	for _, tc := range []struct {
		stmts []string
		msg   string
	}{
		{[]string{`SELECT * FROM Txn WHERE pk = 'a'`}, "Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must specify the primary key in the where clause."},
		{[]string{`SELECT * FROM Txn WHERE pk = 'a' AND sk = '1'`, `DELETE FROM Txn WHERE pk = 'a' AND sk = '1'`}, "Transactions must contain either all reads or all writes"},
		{[]string{`DELETE FROM Txn WHERE pk = 'a' AND sk = '1'`, `UPDATE Txn SET v = 1 WHERE pk = 'a' AND sk = '2' RETURNING ALL NEW *`}, "Validation failed in TransactStatements[1]: RETURNING clause is not supported in ExecuteTransaction."},
		{[]string{`EXISTS(SELECT * FROM Txn WHERE pk = 'a' AND sk = '1')`}, "Validation failed in TransactStatements[0]: EXISTS() must contain a single item read with additional condition"},
		{[]string{`SELECT * FROM Txn WHERE`}, "Validation failed in TransactStatements[0]: Statement wasn't well formed, can't be processed: Unexpected term"},
	} {
		_, err := run(nil, tc.stmts...)
		wantAPIError(t, err, "ValidationException", tc.msg)
	}
}

// dump renders SDK values for failure messages.
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// TestPartiQLReadmeExamples runs docs/partiql.md's examples in order.
func TestPartiQLReadmeExamples(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Music"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("Artist"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SongTitle"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("Genre"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("Artist"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SongTitle"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byGenre"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("Genre"), KeyType: types.KeyTypeHash}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		text  string
		items int
	}{
		{`INSERT INTO "Music" VALUE {'Artist': 'A', 'SongTitle': 'S', 'Tags': <<'x', 'y'>>, 'Info': {'Year': 2024, 'Live': [true, null]}}`, 0},
		{`INSERT INTO "Music" VALUE {'Artist': 'A', 'SongTitle': 'Love Me', 'Plays': 5, 'Genre': 'Jazz', 'Title': 't'}`, 0},
		{`UPDATE "Music" SET Plays = 0 SET L = [] SET Old = 1 WHERE Artist = 'A' AND SongTitle = 'S'`, 0},
		{`FROM "Music" WHERE Artist = 'A' AND SongTitle = 'S' SET Plays = 1`, 0},
		{`SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = 'S'`, 1},
		{`SELECT Title, Info.Year FROM "Music" WHERE Artist = 'A' AND begins_with(SongTitle, 'Love') AND Plays > 3 ORDER BY SongTitle DESC`, 1},
		{`SELECT * FROM "Music"."byGenre" WHERE Genre = 'Jazz'`, 1},
		{`SELECT * FROM "Music" WHERE Awards > 2 OR Awards IS MISSING`, 2},
		{`UPDATE "Music" SET Plays = Plays + 1 SET Tags = set_add(Tags, <<'z'>>) SET L = list_append(L, [1]) REMOVE Old WHERE Artist = 'A' AND SongTitle = 'S' AND Plays < 10 RETURNING MODIFIED NEW *`, 1},
		{`DELETE FROM "Music" WHERE Artist = 'A' AND SongTitle = 'Love Me' AND Plays = 5 RETURNING ALL OLD *`, 1},
	} {
		if got := len(stmt(t, c, q.text).Items); got != q.items {
			t.Errorf("%s: got %d items, want %d", q.text, got, q.items)
		}
	}
	if _, err := c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`EXISTS(SELECT * FROM "Music" WHERE Artist = 'A' AND SongTitle = 'S' AND Plays > 0)`)},
		{Statement: aws.String(`INSERT INTO "Music" VALUE {'Artist': 'B', 'SongTitle': 'S'}`)}}}); err != nil {
		t.Fatal(err)
	}
}
