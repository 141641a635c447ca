package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const sampleDescription = "Write generated sample items into an existing table: every key attribute of the table and its indexes " +
	"gets a value of its declared type, spread over PartitionKeys distinct partition key values, plus a few plain attributes."

// SampleInput asks for generated items.
type SampleInput struct {
	TableName     string `json:"TableName"`
	Count         int    `json:"Count,omitempty" jsonschema:"how many items (1-1000; default 20)"`
	PartitionKeys int    `json:"PartitionKeys,omitempty" jsonschema:"how many distinct partition key values they share (default Count/5, at least 1)"`
}

// SampleResult says what load_sample_items wrote.
type SampleResult struct {
	TableName     string           `json:"TableName"`
	Written       int              `json:"Written"`
	PartitionKeys int              `json:"PartitionKeys"`
	Example       map[string]any   `json:"Example" jsonschema:"the first item written"`
	Items         []map[string]any `json:"-"`
}

func (t *tools) loadSamples(ctx context.Context, _ *sdk.CallToolRequest, in SampleInput) (*sdk.CallToolResult, SampleResult, error) {
	var res SampleResult
	if err := needTable(in.TableName); err != nil {
		return nil, res, err
	}
	if in.Count == 0 {
		in.Count = 20
	}
	if in.Count < 1 || in.Count > 1000 {
		return nil, res, fmt.Errorf("Count must be between 1 and 1000, not %d", in.Count)
	}
	if in.PartitionKeys == 0 {
		in.PartitionKeys = max(1, in.Count/5)
	}
	if in.PartitionKeys < 1 || in.PartitionKeys > in.Count {
		return nil, res, fmt.Errorf("PartitionKeys must be between 1 and Count (%d), not %d", in.Count, in.PartitionKeys)
	}
	var out struct {
		Table map[string]any `json:"Table"`
	}
	if err := t.ep.Call(ctx, "DescribeTable", map[string]any{"TableName": in.TableName}, &out); err != nil {
		return nil, res, err
	}
	sc, err := parseSchema(out.Table)
	if err != nil {
		return nil, res, err
	}
	items := sampleItems(sc, in.Count, in.PartitionKeys)
	if err := batchWrite(ctx, t.ep, in.TableName, items); err != nil {
		return nil, res, err
	}
	if len(items) == 0 {
		return nil, res, errors.New("no items generated")
	}
	return nil, SampleResult{TableName: in.TableName, Written: len(items), PartitionKeys: in.PartitionKeys, Example: items[0]}, nil
}

// sampleItems makes count items whose partition keys take pks values;
// index key attributes cycle through their own values so every index has
// entries.
func sampleItems(sc schema, count, pks int) []map[string]any {
	items := make([]map[string]any, count)
	for i := range items {
		it := map[string]any{
			"name":   map[string]any{"S": fmt.Sprintf("sample item %d", i)},
			"amount": map[string]any{"N": fmt.Sprint((i * 37) % 1000)},
			"active": map[string]any{"BOOL": i%3 != 0},
		}
		for attr := range sc.types {
			it[attr] = sc.value(attr, attr+"-", i%10)
		}
		it[sc.keys.hash] = sc.value(sc.keys.hash, "pk-", i%pks)
		if sc.keys.sort != "" {
			it[sc.keys.sort] = sc.value(sc.keys.sort, "sk-", i)
		}
		items[i] = it
	}
	return items
}
