package partiql

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// benchTables returns an in-memory table "T" (pk S, sk S) with a 100-item
// partition "p", and a PartiQL Service over it.
func benchTables(b *testing.B) (*table.Service, *Service) {
	b.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	ts := table.New(db, table.Options{})
	b.Cleanup(func() { ts.Close(); db.Close() })
	ctx := context.Background()
	_, err = ts.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		item := attr.Item{"pk": attr.String("p"), "sk": attr.String(fmt.Sprintf("s%03d", i)), "v": attr.String(strings.Repeat("v", 200))}
		if _, err := ts.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "T", Item: item}); err != nil {
			b.Fatal(err)
		}
	}
	return ts, New(ts)
}

// BenchmarkStatementGet and BenchmarkDirectGet measure what PartiQL adds to
// a GetItem: parsing, describing the table and planning.
func BenchmarkStatementGet(b *testing.B) {
	_, ql := benchTables(b)
	in := &ExecuteStatementInput{Statement: `SELECT * FROM "T" WHERE pk = ? AND sk = ?`, Parameters: []attr.Value{attr.String("p"), attr.String("s042")}}
	for b.Loop() {
		out, err := ql.ExecuteStatement(context.Background(), "r", in)
		if err != nil || len(out.Items) != 1 {
			b.Fatal(err, out)
		}
	}
}

func BenchmarkDirectGet(b *testing.B) {
	ts, _ := benchTables(b)
	in := &ddb.GetItemInput{TableName: "T", Key: attr.Item{"pk": attr.String("p"), "sk": attr.String("s042")}}
	for b.Loop() {
		out, err := ts.GetItem(context.Background(), "r", in)
		if err != nil {
			b.Fatal(err)
		}
		if it, _ := out.ReadItem(); it == nil {
			b.Fatal("no item")
		}
	}
}

// BenchmarkStatementQuery and BenchmarkDirectQuery do the same for a
// 100-item Query.
func BenchmarkStatementQuery(b *testing.B) {
	_, ql := benchTables(b)
	in := &ExecuteStatementInput{Statement: `SELECT * FROM "T" WHERE pk = 'p'`}
	for b.Loop() {
		out, err := ql.ExecuteStatement(context.Background(), "r", in)
		if err != nil || len(out.Items) != 100 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDirectQuery(b *testing.B) {
	ts, _ := benchTables(b)
	kc := "pk = :p"
	for b.Loop() {
		in := &ddb.QueryInput{TableName: "T", KeyConditionExpression: &kc}
		in.ExpressionAttributeValues = map[string]attr.Value{":p": attr.String("p")}
		out, err := ts.Query(context.Background(), "r", in)
		if err != nil {
			b.Fatal(err)
		}
		if items, _ := out.ItemList(); len(items) != 100 {
			b.Fatal(len(items))
		}
		out.Release()
	}
}
