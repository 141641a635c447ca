package table

import (
	"context"
	"fmt"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// TestLoggedReadsLogMetaPerTransaction: a blind put reads its table's log
// mark (logMeta) once per transaction (spaceWrites), never from an earlier
// one. Writes through a definition without a stream or a global index
// append no change-log record until the mark is set, as UpdateTable sets
// it in a transaction of its own while writers still hold the old
// definition; from the next transaction on, every put through that same
// definition appends one, as does a put through no spaceWrites.
func TestLoggedReadsLogMetaPerTransaction(t *testing.T) {
	ctx := context.Background()
	s := memService(t, Options{})
	if _, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}); err != nil {
		t.Fatal(err)
	}
	m, err := s.catalog.get(s.db, "r", "T")
	if err != nil {
		t.Fatal(err)
	}
	put := func(keys ...string) {
		t.Helper()
		muts := make([]mutation, len(keys))
		for i, k := range keys {
			it := attr.Item{"pk": sv(k)}
			key, err := m.itemKey(it)
			if err != nil {
				t.Fatal(err)
			}
			muts[i] = mutation{meta: m, key: key, enc: attr.EncodeItem(it).Bytes(), blind: true}
		}
		nop := func(*store.Tx) error { return nil }
		if _, err := s.applyLoad(muts, make([]written, len(muts)), nop, func(*store.Tx, []condFailure) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	logged := func() string {
		t.Helper()
		n := 0
		err := s.db.View(func(tx *store.Tx) error {
			return tx.Space(m.ID).AscendLog(0, func(uint64, []byte) bool {
				n++
				return true
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(n)
	}
	put("a", "b")
	if n := logged(); n != "0" {
		t.Fatalf("%s change-log records before the mark, want 0", n)
	}
	if err := s.db.Update(ctx, func(tx *store.Tx) error { return tx.Space(m.ID).PutMeta(logMeta, []byte{1}) }); err != nil {
		t.Fatal(err)
	}
	put("c", "d", "e")
	if n := logged(); n != "3" {
		t.Fatalf("%s change-log records after the mark, want 3: the mark was read stale", n)
	}
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		mu := mutation{meta: m, key: []byte("f"), enc: attr.EncodeItem(attr.Item{"pk": sv("f")}).Bytes()}
		if !mu.loggedIn(tx.Space(m.ID), nil) {
			return fmt.Errorf("loggedIn without spaceWrites: the mark not seen")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
