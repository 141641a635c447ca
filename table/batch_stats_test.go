package table

import (
	"context"
	"fmt"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestBatchWriteStats: BatchWriteItem adds its counter changes once per
// table at the end; the totals must still be those of the items written.
func TestBatchWriteStats(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	item := func(i int) attr.Item {
		return attr.Item{"pk": attr.String(fmt.Sprint(i)), "v": attr.String("value")}
	}
	put := func(i int) ddb.WriteRequest {
		return ddb.WriteRequest{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(item(i))}}
	}
	del := func(i int) ddb.WriteRequest {
		return ddb.WriteRequest{DeleteRequest: &ddb.DeleteRequest{Key: attr.Item{"pk": attr.String(fmt.Sprint(i))}}}
	}
	var puts []ddb.WriteRequest
	for i := range 10 {
		puts = append(puts, put(i))
	}
	batches := []map[string][]ddb.WriteRequest{
		{"A": puts, "B": {put(0)}},
		{"A": {put(0), put(10), del(1), del(99)}, "B": {del(0)}}, // replace, new, delete, absent
	}
	for _, reqs := range batches {
		if _, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: reqs}); err != nil {
			t.Fatal(err)
		}
	}
	size := int64(item(0).Size())
	for _, tc := range []struct {
		table        string
		items, bytes int64
	}{
		{"A", 10, 9*size + int64(item(10).Size())}, // 0, 2…9 and 10
		{"B", 0, 0},
	} {
		out, err := s.DescribeTable(ctx, "r", &ddb.TableNameInput{TableName: tc.table})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Table.ItemCount; got != tc.items {
			t.Errorf("%s ItemCount: got %d, want %d", tc.table, got, tc.items)
		}
		if got := out.Table.TableSizeBytes; got != tc.bytes {
			t.Errorf("%s TableSizeBytes: got %d, want %d", tc.table, got, tc.bytes)
		}
	}
}
