package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item sizes follow "Item sizes and formats": attribute name lengths plus
// value lengths (UTF-8 bytes for strings); sizedItem builds them exactly.

func TestCapacityGetItem(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "CapGet", false)
	putAll(t, c, "CapGet", []ritem{sizedItem(t, "a", "", 4096), sizedItem(t, "b", "", 4097), sizedItem(t, "c", "", 8192)})
	tests := []struct {
		key        string
		consistent bool
		want       float64
	}{
		{"a", true, 1}, {"b", true, 2}, {"c", true, 2},
		{"a", false, 0.5}, {"b", false, 1}, {"c", false, 1},
		{"absent", true, 1}, {"absent", false, 0.5},
	}
	for _, tt := range tests {
		for _, mode := range []types.ReturnConsumedCapacity{types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes} {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("CapGet"), Key: ritem{"pk": s(tt.key)},
				ConsistentRead: aws.Bool(tt.consistent), ReturnConsumedCapacity: mode})
			if err != nil {
				t.Fatal(err)
			}
			if got := runits(t, out.ConsumedCapacity); got != tt.want {
				t.Errorf("GetItem %s consistent=%v %s: got %v units, want %v", tt.key, tt.consistent, mode, got, tt.want)
			}
			if aws.ToString(out.ConsumedCapacity.TableName) != "CapGet" {
				t.Errorf("TableName: got %q, want CapGet", aws.ToString(out.ConsumedCapacity.TableName))
			}
			if mode == types.ReturnConsumedCapacityIndexes {
				if tc := out.ConsumedCapacity.Table; tc == nil || aws.ToFloat64(tc.CapacityUnits) != tt.want {
					t.Errorf("INDEXES Table: got %+v, want %v units", tc, tt.want)
				}
			}
		}
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("CapGet"), Key: ritem{"pk": s("a")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityNone})
	if err != nil || out.ConsumedCapacity != nil {
		t.Errorf("NONE: got %+v, %v, want no ConsumedCapacity", out.ConsumedCapacity, err)
	}
}

func TestCapacityWrites(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "CapPut", false)
	put := func(it ritem) float64 {
		t.Helper()
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("CapPut"), Item: it, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		return runits(t, out.ConsumedCapacity)
	}
	del := func(key string) float64 {
		t.Helper()
		out, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("CapPut"), Key: ritem{"pk": s(key)}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		return runits(t, out.ConsumedCapacity)
	}
	steps := []struct {
		name string
		do   func() float64
		want float64
	}{
		{"put 1024", func() float64 { return put(sizedItem(t, "a", "", 1024)) }, 1},
		{"put 1025", func() float64 { return put(sizedItem(t, "b", "", 1025)) }, 2},
		{"overwrite 1025 with 100: the larger counts", func() float64 { return put(sizedItem(t, "b", "", 100)) }, 2},
		{"overwrite 100 with 100", func() float64 { return put(sizedItem(t, "b", "", 100)) }, 1},
		{"overwrite 100 with 3000", func() float64 { return put(sizedItem(t, "b", "", 3000)) }, 3},
		{"update 1024 to 2049", func() float64 {
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("CapPut"), Key: ritem{"pk": s("a")},
				// 1024 + len("more") + 1021 = 2049 bytes.
				UpdateExpression: aws.String("SET more = :m"), ExpressionAttributeValues: rvals(":m", s(string(make([]byte, 1021)))),
				ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				t.Fatal(err)
			}
			return runits(t, out.ConsumedCapacity)
		}, 3},
		{"delete absent", func() float64 { return del("absent") }, 1},
		{"delete 3000", func() float64 { return del("b") }, 3},
	}
	for _, st := range steps {
		if got := st.do(); got != st.want {
			t.Errorf("%s: got %v WCU, want %v", st.name, got, st.want)
		}
	}
	// A failed condition is charged by DynamoDB, but the SDK's
	// ConditionalCheckFailedException has no ConsumedCapacity to check; only
	// the error and the untouched item are visible.
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("CapPut"), Item: sizedItem(t, "a", "", 50),
		ConditionExpression: aws.String("attribute_not_exists(pk)"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Errorf("failed condition: got %v, want ConditionalCheckFailedException", err)
	}
}

func TestCapacityQueryScan(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "CapQuery", true)
	var items []ritem
	for i := range 10 {
		items = append(items, sizedItem(t, "p", fmt.Sprintf("%02d", i), 500))
	}
	putAll(t, c, "CapQuery", items)
	tests := []struct {
		name       string
		filter     *string
		limit      *int32
		consistent bool
		want       float64
	}{
		// 10 x 500 = 5000 bytes: two 4 KB units, one eventually consistent.
		{"all strong", nil, nil, true, 2},
		{"all eventual", nil, nil, false, 1},
		{"filter matches none", aws.String("attribute_exists(nothing)"), nil, true, 2},
		{"Limit 3", nil, aws.Int32(3), true, 1},
		{"Limit 3 eventual", nil, aws.Int32(3), false, 0.5},
		{"Limit 9 = 4500 bytes", nil, aws.Int32(9), true, 2},
		{"Limit 8 = 4000 bytes", nil, aws.Int32(8), true, 1},
	}
	for _, tt := range tests {
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("CapQuery"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p")), FilterExpression: tt.filter, Limit: tt.limit,
			ConsistentRead: aws.Bool(tt.consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		if got := runits(t, q.ConsumedCapacity); got != tt.want {
			t.Errorf("Query %s: got %v RCU, want %v", tt.name, got, tt.want)
		}
		sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("CapQuery"), FilterExpression: tt.filter, Limit: tt.limit,
			ConsistentRead: aws.Bool(tt.consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		if got := runits(t, sc.ConsumedCapacity); got != tt.want {
			t.Errorf("Scan %s: got %v RCU, want %v", tt.name, got, tt.want)
		}
		if tc := sc.ConsumedCapacity.Table; tc == nil || aws.ToFloat64(tc.CapacityUnits) != tt.want {
			t.Errorf("Scan %s INDEXES Table: got %+v, want %v", tt.name, tc, tt.want)
		}
	}
}

func TestCapacityBatches(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "CapBatchA", false)
	createTable(t, c, "CapBatchB", false)
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		RequestItems: map[string][]types.WriteRequest{
			"CapBatchA": {
				{PutRequest: &types.PutRequest{Item: sizedItem(t, "a1", "", 1025)}},
				{PutRequest: &types.PutRequest{Item: sizedItem(t, "a2", "", 1025)}},
				{PutRequest: &types.PutRequest{Item: sizedItem(t, "a3", "", 1536)}},
				{DeleteRequest: &types.DeleteRequest{Key: ritem{"pk": s("absent")}}},
			},
			"CapBatchB": {
				{PutRequest: &types.PutRequest{Item: sizedItem(t, "b1", "", 6656)}},
				{PutRequest: &types.PutRequest{Item: sizedItem(t, "b2", "", 100)}},
			},
		}})
	if err != nil {
		t.Fatal(err)
	}
	// A: 2 + 2 + 2 + 1 = 7; B: 7 + 1 = 8.
	wantWrite := map[string]float64{"CapBatchA": 7, "CapBatchB": 8}
	got := map[string]float64{}
	for _, cc := range out.ConsumedCapacity {
		got[aws.ToString(cc.TableName)] += runits(t, &cc)
	}
	if fmt.Sprint(got) != fmt.Sprint(wantWrite) || len(out.ConsumedCapacity) != 2 {
		t.Errorf("BatchWriteItem: got %v in %d entries, want %v in 2", got, len(out.ConsumedCapacity), wantWrite)
	}

	// BatchGetItem rounds each item up to 4 KB: a3 (1.5 KB) + b1 (6.5 KB) =
	// 4 + 8 KB = 3 units strong, 1.5 eventual; a1 + a2 = 2 units.
	bg, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		RequestItems: map[string]types.KeysAndAttributes{
			"CapBatchA": {Keys: []ritem{{"pk": s("a1")}, {"pk": s("a2")}, {"pk": s("a3")}}, ConsistentRead: aws.Bool(true)},
			"CapBatchB": {Keys: []ritem{{"pk": s("b1")}}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	wantRead := map[string]float64{"CapBatchA": 3, "CapBatchB": 1}
	got = map[string]float64{}
	for _, cc := range bg.ConsumedCapacity {
		got[aws.ToString(cc.TableName)] += runits(t, &cc)
	}
	if fmt.Sprint(got) != fmt.Sprint(wantRead) || len(bg.ConsumedCapacity) != 2 {
		t.Errorf("BatchGetItem: got %v in %d entries, want %v in 2", got, len(bg.ConsumedCapacity), wantRead)
	}
}
