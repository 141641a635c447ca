package table

import (
	"context"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestBlindPutAccounting: a put that needs no old item (no condition, no
// ALL_OLD) takes a shorter path through the store; its capacity (the larger
// of the old and new item) and the table's counters must be what the full
// path gives, which the conditional and ALL_OLD puts here take.
func TestBlindPutAccounting(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	item := func(n int) attr.Item { return attr.Item{"pk": sv("k"), "v": sv(strings.Repeat("x", n))} }
	exists := "attribute_exists(pk)"
	steps := []struct {
		name     string
		in       *ddb.PutItemInput
		wantCU   float64
		wantSize int
	}{
		{"blind, new item", &ddb.PutItemInput{Item: item(10)}, 1, item(10).Size()},
		{"blind, larger replaces", &ddb.PutItemInput{Item: item(3000)}, 3, item(3000).Size()},
		{"blind, smaller replaces: the old size counts", &ddb.PutItemInput{Item: item(10)}, 3, item(10).Size()},
		{"conditional, larger", &ddb.PutItemInput{Item: item(2000), WriteParams: ddb.WriteParams{ConditionExpression: &exists}}, 2, item(2000).Size()},
		{"ALL_OLD, smaller", &ddb.PutItemInput{Item: item(5), WriteParams: ddb.WriteParams{ReturnValues: "ALL_OLD"}}, 2, item(5).Size()},
		{"blind, same size", &ddb.PutItemInput{Item: item(5)}, 1, item(5).Size()},
	}
	for _, st := range steps {
		st.in.TableName, st.in.ReturnConsumedCapacity = "A", "TOTAL"
		out, err := s.PutItem(ctx, "r", st.in)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := out.ConsumedCapacity.CapacityUnits; got != st.wantCU {
			t.Errorf("%s: CapacityUnits = %v, want %v", st.name, got, st.wantCU)
		}
		d, err := s.DescribeTable(ctx, "r", &ddb.TableNameInput{TableName: "A"})
		if err != nil {
			t.Fatal(err)
		}
		if d.Table.ItemCount != 1 || d.Table.TableSizeBytes != int64(st.wantSize) {
			t.Errorf("%s: ItemCount, TableSizeBytes = %d, %d; want 1, %d", st.name, d.Table.ItemCount, d.Table.TableSizeBytes, st.wantSize)
		}
	}
}
