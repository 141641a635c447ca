package table

import (
	"context"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/gsi"
)

// createGSITable creates table name with hash key pk and a global index
// "byG" on attribute g.
func createGSITable(t *testing.T, s *Service, name string) {
	t.Helper()
	_, err := s.CreateTable(context.Background(), "r", &ddb.CreateTableInput{
		TableName: name, BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "g", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "byG",
			KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}}, Projection: &ddb.Projection{ProjectionType: "ALL"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (s *Service) runningAppliers() map[string]*gsi.Applier {
	s.appliers.mu.Lock()
	defer s.appliers.mu.Unlock()
	out := map[string]*gsi.Applier{}
	for id, a := range s.appliers.m {
		out[id] = a
	}
	return out
}

// TestAppliersOnlyForLoggedTables checks that writes, reads and Settle start
// no applier for a table whose writes are not logged, that a table with a
// global index gets one, and that Close stops every applier.
func TestAppliersOnlyForLoggedTables(t *testing.T) {
	s, _ := txService(t) // tables A and B, no indexes
	ctx := context.Background()
	createGSITable(t, s, "G")
	for _, name := range []string{"A", "B", "G"} {
		item := attr.Item{"pk": sv("k"), "g": sv("x")}
		if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: name, Item: item}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateItem(ctx, "r", &ddb.UpdateItemInput{TableName: name, Key: keyOfPK("k"),
			UpdateExpression: ptr("SET v = :v"), WriteParams: ddb.WriteParams{ExprParams: values(":v", sv("1"))}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{
			name: {{DeleteRequest: &ddb.DeleteRequest{Key: keyOfPK("k")}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Query(ctx, "r", &ddb.QueryInput{TableName: "G", IndexName: ptr("byG"), KeyConditionExpression: ptr("g = :g"),
		ExprParams: values(":g", sv("x"))}); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	running := s.runningAppliers()
	g, err := s.table(context.Background(), "r", "G")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := running[g.ID]; !ok || len(running) != 1 {
		t.Fatalf("appliers running for %d tables (%v); want one, for G (%s)", len(running), running, g.ID)
	}
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
	if n := len(s.runningAppliers()); n != 0 {
		t.Errorf("after Close: %d appliers, want 0", n)
	}
	// A closed applier's WaitFor returns at once instead of waiting.
	if err := running[g.ID].WaitFor(ctx, 1<<62); err != gsi.ErrClosed {
		t.Errorf("WaitFor after Close: got %v, want gsi.ErrClosed", err)
	}
}
