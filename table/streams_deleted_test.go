package table

import (
	"context"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// TestDeleteTableKeepsStreamSpace: DeleteTable keeps the space of a table
// with a stream, emptied of items, until the stream expires, and drops the
// space of a table without one at once.
func TestDeleteTableKeepsStreamSpace(t *testing.T) {
	ctx := context.Background()
	on := true
	for _, tc := range []struct {
		name     string
		stream   *ddb.StreamSpecification
		wantKept bool
	}{
		{"no stream", nil, false},
		{"stream", &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "KEYS_ONLY"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clk := txService(t)
			_, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{
				TableName: "S", BillingMode: "PAY_PER_REQUEST", StreamSpecification: tc.stream,
				AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
				KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "S", Item: keyOfPK("x")}); err != nil {
				t.Fatal(err)
			}
			m, err := s.catalog.get(s.db, "r", "S")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.DeleteTable(ctx, "r", &ddb.TableNameInput{TableName: "S"}); err != nil {
				t.Fatal(err)
			}
			kept, items := spaceItems(t, s.db, m.ID)
			if kept != tc.wantKept || items != 0 {
				t.Errorf("after DeleteTable: got space kept %v with %d items, want kept %v with 0", kept, items, tc.wantKept)
			}
			clk.advance(24 * time.Hour)
			if err := s.runDue(ctx); err != nil {
				t.Fatal(err)
			}
			if kept, _ := spaceItems(t, s.db, m.ID); kept != tc.wantKept {
				t.Errorf("24h after DeleteTable: got space kept %v, want %v", kept, tc.wantKept)
			}
			clk.advance(time.Second)
			if err := s.runDue(ctx); err != nil {
				t.Fatal(err)
			}
			if kept, _ := spaceItems(t, s.db, m.ID); kept {
				t.Errorf("24h 1s after DeleteTable: got space kept, want dropped")
			}
			err = s.db.View(func(tx *store.Tx) error {
				return eachDeletedStreams(tx, nil, func(k []byte, _ deletedStreams, _ *store.Space) bool {
					t.Errorf("registry entry %q left after the stream expired", k)
					return true
				})
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// spaceItems reports whether space id exists and how many items it holds.
func spaceItems(t *testing.T, db *store.DB, id string) (exists bool, items int) {
	t.Helper()
	err := db.View(func(tx *store.Tx) error {
		sp := tx.Space(id)
		if sp == nil {
			return nil
		}
		exists = true
		return sp.Ascend(nil, nil, func(_, _ []byte) bool { items++; return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	return exists, items
}
