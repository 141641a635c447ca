package table

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// TestReplicatedWriteAdmittedOnce checks that a replicated write into a
// throttled replica goes through the write envelope: it reads and decodes
// its old item once, and its units come from the replica's buckets, forced
// (a write made before a settle) or admitted.
func TestReplicatedWriteAdmittedOnce(t *testing.T) {
	ctx := context.Background()
	for _, settled := range []bool{true, false} {
		t.Run(fmt.Sprintf("settled=%v", settled), func(t *testing.T) {
			s, clk := globalService(t, Options{Throttling: true})
			put := func(v string) {
				t.Helper()
				if _, err := s.PutItem(ctx, "us-east-1", &ddb.PutItemInput{TableName: "glob", Item: attr.Item{"pk": sv("k"), "v": sv(v)}}); err != nil {
					t.Fatal(err)
				}
			}
			put("1") // the replicated write below has an old item
			if err := s.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			loads := 0
			s.loadSeam = func(m *mutation) {
				if m.meta.Region == "eu-west-1" {
					mu.Lock()
					loads++
					mu.Unlock()
				}
			}
			clk.advance(time.Millisecond) // after the settle
			put("2")
			if settled {
				if err := s.Settle(ctx); err != nil {
					t.Fatal(err)
				}
			}
			eu, err := s.table(ctx, "eu-west-1", "glob")
			if err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); replicaValue(t, s, eu) != "2"; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the write never reached eu-west-1")
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if loads != 1 {
				t.Errorf("the replicated write read its old item %d times, want once", loads)
			}
			if _, touched := s.Partitions(eu.ID, ""); !touched {
				t.Error("eu-west-1's partitions untouched: the replicated writes took no units")
			}
		})
	}
}

// replicaValue is item k's v in table m, read from the store.
func replicaValue(t *testing.T, s *Service, m *tableMeta) string {
	t.Helper()
	key, err := m.lookupKey(attr.Item{"pk": sv("k")})
	if err != nil {
		t.Fatal(err)
	}
	var v string
	err = s.db.View(func(tx *store.Tx) error {
		raw := tx.Space(m.ID).Get(key)
		if raw == nil {
			return nil
		}
		item, err := attr.DecodeBinary(raw)
		v = item["v"].S
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v
}
