package integration

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// pks returns the sorted partition keys of items.
func rpks(items []ritem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, rstr(it, "pk"))
	}
	sort.Strings(out)
	return out
}

func TestBatchGetItem(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "BgA", false)
	createTable(t, c, "BgB", true)
	putAll(t, c, "BgA", []ritem{{"pk": s("a1"), "x": s("1"), "y": s("2")}, {"pk": s("a2"), "x": s("3")}})
	putAll(t, c, "BgB", []ritem{{"pk": s("b1"), "sk": s("s"), "x": s("4")}})
	out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"BgA": {Keys: []ritem{{"pk": s("a1")}, {"pk": s("missing")}, {"pk": s("a2")}},
			ProjectionExpression: aws.String("#x, pk"), ExpressionAttributeNames: map[string]string{"#x": "x"}},
		"BgB": {Keys: []ritem{{"pk": s("b1"), "sk": s("s")}, {"pk": s("b1"), "sk": s("t")}}, ConsistentRead: aws.Bool(true)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rpks(out.Responses["BgA"]), []string{"a1", "a2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("BgA: got %v, want %v", got, want)
	}
	for _, it := range out.Responses["BgA"] {
		if _, ok := it["y"]; ok || len(it) != 2 {
			t.Errorf("projection #x, pk: got %v", it)
		}
	}
	if got := out.Responses["BgB"]; len(got) != 1 || rstr(got[0], "x") != "4" {
		t.Errorf("BgB: got %v, want the b1/s item", got)
	}
	if len(out.UnprocessedKeys) != 0 {
		t.Errorf("UnprocessedKeys: got %v, want none", out.UnprocessedKeys)
	}

	// Only absent keys: the table's response is empty.
	out, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"BgA": {Keys: []ritem{{"pk": s("zzz")}}}}})
	if err != nil || len(out.Responses["BgA"]) != 0 {
		t.Errorf("absent keys: got %+v, %v", out, err)
	}
}

func TestBatchGetItemErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "BgeA", false)
	createTable(t, c, "BgeB", false)
	keys := func(prefix string, count int) []ritem {
		var out []ritem
		for i := range count {
			out = append(out, ritem{"pk": s(fmt.Sprintf("%s%d", prefix, i))})
		}
		return out
	}
	tests := []struct {
		name string
		req  map[string]types.KeysAndAttributes
		code string
		msg  string
	}{
		{"101 keys over two tables", map[string]types.KeysAndAttributes{"BgeA": {Keys: keys("a", 60)}, "BgeB": {Keys: keys("b", 41)}},
			"ValidationException", "Too many items requested for the BatchGetItem call"},
		{"duplicate keys", map[string]types.KeysAndAttributes{"BgeA": {Keys: []ritem{{"pk": s("x")}, {"pk": s("x")}}}},
			"ValidationException", "Provided list of item keys contains duplicates"},
		{"wrong key", map[string]types.KeysAndAttributes{"BgeA": {Keys: []ritem{{"id": s("x")}}}},
			"ValidationException", "The provided key element does not match the schema"},
		{"missing table", map[string]types.KeysAndAttributes{"Nope": {Keys: []ritem{{"pk": s("x")}}}},
			"ResourceNotFoundException", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: tt.req})
			wantAPIError(t, err, tt.code, tt.msg)
		})
	}
	// Exactly 100 keys is fine.
	out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"BgeA": {Keys: keys("a", 50)}, "BgeB": {Keys: keys("b", 50)}}})
	if err != nil || len(out.UnprocessedKeys) != 0 {
		t.Errorf("100 keys: got %+v, %v", out, err)
	}
}

func TestBatchWriteItem(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "BwA", false)
	createTable(t, c, "BwB", true)
	putAll(t, c, "BwA", []ritem{{"pk": s("old")}})
	out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"BwA": {
			{PutRequest: &types.PutRequest{Item: ritem{"pk": s("a1"), "v": n("1")}}},
			{DeleteRequest: &types.DeleteRequest{Key: ritem{"pk": s("old")}}},
			{DeleteRequest: &types.DeleteRequest{Key: ritem{"pk": s("never")}}},
		},
		"BwB": {{PutRequest: &types.PutRequest{Item: ritem{"pk": s("b1"), "sk": s("s")}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if out.UnprocessedItems == nil || len(out.UnprocessedItems) != 0 {
		t.Errorf("UnprocessedItems: got %#v, want an empty map", out.UnprocessedItems)
	}
	scan := func(name string) []string {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		return rpks(out.Items)
	}
	if got := scan("BwA"); fmt.Sprint(got) != "[a1]" {
		t.Errorf("BwA after batch: got %v, want [a1]", got)
	}
	if got := scan("BwB"); fmt.Sprint(got) != "[b1]" {
		t.Errorf("BwB after batch: got %v, want [b1]", got)
	}
}

func TestBatchWriteItemErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "BweA", false)
	createTable(t, c, "BweB", false)
	puts := func(prefix string, count int) []types.WriteRequest {
		var out []types.WriteRequest
		for i := range count {
			out = append(out, types.WriteRequest{PutRequest: &types.PutRequest{Item: ritem{"pk": s(fmt.Sprintf("%s%d", prefix, i))}}})
		}
		return out
	}
	tests := []struct {
		name string
		req  map[string][]types.WriteRequest
		code string
		msg  string
	}{
		{"26 requests over two tables", map[string][]types.WriteRequest{"BweA": puts("a", 13), "BweB": puts("b", 13)},
			"ValidationException", "Too many items requested for the BatchWriteItem call"},
		// One table over 25 fails the member constraint; its exact wording
		// (which prints the whole map) is not checked.
		{"26 requests in one table", map[string][]types.WriteRequest{"BweA": puts("a", 26)}, "ValidationException", ""},
		{"duplicate puts", map[string][]types.WriteRequest{"BweA": append(puts("a", 2), puts("a", 1)...)},
			"ValidationException", "Provided list of item keys contains duplicates"},
		{"put and delete of one key", map[string][]types.WriteRequest{"BweA": append(puts("a", 1),
			types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: ritem{"pk": s("a0")}}})},
			"ValidationException", "Provided list of item keys contains duplicates"},
		{"ritem without key", map[string][]types.WriteRequest{"BweA": {{PutRequest: &types.PutRequest{Item: ritem{"x": s("1")}}}}},
			"ValidationException", "The provided key element does not match the schema"},
		{"missing table", map[string][]types.WriteRequest{"Nope": puts("a", 1)}, "ResourceNotFoundException", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: tt.req})
			wantAPIError(t, err, tt.code, tt.msg)
		})
	}
	// Nothing of a failed batch was applied.
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("BweA")})
	if err != nil || out.Count != 0 {
		t.Errorf("after failed batches: got %d items, %v, want 0", out.Count, err)
	}
	// The same key in two tables is not a duplicate.
	if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"BweA": puts("k", 1), "BweB": puts("k", 1)}}); err != nil {
		t.Errorf("same key in two tables: %v", err)
	}
}
