package table

import (
	"context"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// lastLogSeq is the sequence of the last change-log record of table name.
func lastLogSeq(t *testing.T, s *Service, name string) uint64 {
	t.Helper()
	m, err := s.table(context.Background(), "r", name)
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	if err := s.db.View(func(tx *store.Tx) error {
		seq = tx.Space(m.ID).LastLogSeq()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return seq
}

// TestChangeLogOnlyWhenRead: writes to a table without global indexes or
// lagging reads leave no change-log record (nothing would read it); a
// table with a lag logs every write.
func TestChangeLogOnlyWhenRead(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		lag      consistency.Lag
		wantLogs uint64
	}{
		{"no lag, no index", consistency.Lag{}, 0},
		{"lagging reads", consistency.Lag{Min: 100, Max: 100}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memService(t, Options{EventualLag: tt.lag})
			if _, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "A", BillingMode: "PAY_PER_REQUEST",
				AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
				KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}); err != nil {
				t.Fatal(err)
			}
			for _, pk := range []string{"a", "b", "c"} {
				if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: attr.Item{"pk": sv(pk)}}); err != nil {
					t.Fatal(err)
				}
			}
			if got := lastLogSeq(t, s, "A"); got != tt.wantLogs {
				t.Errorf("log records = %d, want %d", got, tt.wantLogs)
			}
		})
	}
}

// TestStaleDefinitionStillLogsAfterIndexCreated: a writer holding the
// table's definition from before UpdateTable added a global index must log
// its write (the index's backfill may have read the table before it), so
// the mark UpdateTable leaves is read inside the write's own transaction.
func TestStaleDefinitionStillLogsAfterIndexCreated(t *testing.T) {
	ctx := context.Background()
	s, _ := txService(t)
	stale, err := s.table(context.Background(), "r", "A")
	if err != nil {
		t.Fatal(err)
	}
	put := func(m *tableMeta, pk string) {
		t.Helper()
		key, err := m.lookupKey(attr.Item{"pk": sv(pk)})
		if err != nil {
			t.Fatal(err)
		}
		item := attr.Item{"pk": sv(pk), "g": sv("x")}
		mu := &mutation{meta: m, key: key, next: func(attr.Item) (attr.Item, error) { return item, nil }}
		if _, err := s.commit(ctx, writeItems, mu); err != nil {
			t.Fatal(err)
		}
	}
	put(stale, "before")
	if got := lastLogSeq(t, s, "A"); got != 0 {
		t.Fatalf("log records before the index = %d, want 0", got)
	}
	_, err = s.UpdateTable(ctx, "r", &ddb.UpdateTableInput{TableName: "A",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "g", AttributeType: "S"}},
		GlobalSecondaryIndexUpdates: []ddb.GlobalSecondaryIndexUpdate{{Create: &ddb.GlobalSecondaryIndex{
			IndexName: "byG", KeySchema: []ddb.KeySchemaElement{{AttributeName: "g", KeyType: "HASH"}},
			Projection: &ddb.Projection{ProjectionType: "ALL"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	before := lastLogSeq(t, s, "A")
	put(stale, "after") // the definition without the index
	if got := lastLogSeq(t, s, "A"); got != before+1 {
		t.Errorf("log records after a stale write = %d, want %d", got, before+1)
	}
}
