package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestFaultPartiQL: a rule's table and key select PartiQL statements by
// the table they name and the key they fix, as they select the items of
// the other operations; a transaction is cancelled with the reason on the
// matching statement, and a batch reports it on the matching statement.
func TestFaultPartiQL(t *testing.T) {
	ctx := context.Background()
	fs := startFaultServer(t)
	createTable(t, fs.c, "Faulty", false)
	createTable(t, fs.c, "Fine", false)
	run := func(text string, params ...types.AttributeValue) error {
		_, err := fs.c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(text), Parameters: params})
		return err
	}

	fs.addRule(t, `{"operation":"ExecuteStatement","table":"Faulty","key":{"pk":{"S":"c"}},"error":"TransactionConflict"}`)
	for _, ok := range []string{`INSERT INTO Fine VALUE {'pk': 'c'}`, `INSERT INTO Faulty VALUE {'pk': 'd'}`, `SELECT * FROM Faulty WHERE pk = 'd'`} {
		if err := run(ok); err != nil {
			t.Fatalf("%s: %v, want it served", ok, err)
		}
	}
	wantAPIError(t, run(`UPDATE "Faulty" SET n = 1 WHERE pk = ?`, s("c")), "TransactionConflictException", "Transaction is ongoing for the item")
	if got := fs.hits(t); len(got) != 1 || got[0] != 1 {
		t.Fatalf("ExecuteStatement: got hits %v, want [1]", got)
	}

	fs.addRule(t, `{"operation":"ExecuteTransaction","table":"Faulty","key":{"pk":{"S":"c"}},"error":"TransactionConflict"}`)
	_, err := fs.c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
		{Statement: aws.String(`INSERT INTO Faulty VALUE {'pk': 'x'}`)},
		{Statement: aws.String(`UPDATE Faulty SET n = 1 WHERE pk = 'c'`)},
	}})
	if got, want := reasonCodes(txCancelled(t, err)), "None,TransactionConflict"; got != want {
		t.Errorf("ExecuteTransaction: got reasons %s, want %s", got, want)
	}

	fs.addRule(t, `{"operation":"BatchExecuteStatement","table":"Faulty","error":"ProvisionedThroughputExceeded"}`)
	out, err := fs.c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
		{Statement: aws.String(`INSERT INTO Fine VALUE {'pk': 'b'}`)},
		{Statement: aws.String(`INSERT INTO Faulty VALUE {'pk': 'b'}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 2 || out.Responses[0].Error != nil || out.Responses[1].Error == nil ||
		out.Responses[1].Error.Code != types.BatchStatementErrorCodeEnumProvisionedThroughputExceeded {
		t.Fatalf("BatchExecuteStatement: got responses %+v, want the second failed with ProvisionedThroughputExceeded", out.Responses)
	}
	if got := getItem(t, fs.c, "Fine", txKey("b")); got == nil {
		t.Errorf("BatchExecuteStatement: the statement on Fine was not served")
	}
	if got := getItem(t, fs.c, "Faulty", txKey("b")); got != nil {
		t.Errorf("BatchExecuteStatement: the failed statement wrote %v", got)
	}
	if got := fs.hits(t); len(got) != 3 || got[1] != 1 || got[2] != 1 {
		t.Errorf("got hits %v, want [1 1 1]", got)
	}
}
