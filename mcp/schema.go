package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// schema is what the item generators need of a table: its key attributes,
// their types, and each index's keys. It reads a CreateTable request or a
// DescribeTable's Table, which name these members alike.
type schema struct {
	name    string
	keys    indexKeys            // the base table's
	types   map[string]string    // attribute name → S, N or B
	indexes map[string]indexKeys // index name → its keys
}

// indexKeys are a table's or index's partition and sort key attributes.
type indexKeys struct{ hash, sort string }

// parseSchema reads def (a CreateTable request or a table description).
func parseSchema(def map[string]any) (schema, error) {
	sc := schema{types: map[string]string{}, indexes: map[string]indexKeys{}}
	sc.name, _ = def["TableName"].(string)
	for _, a := range list(def["AttributeDefinitions"]) {
		name, _ := a["AttributeName"].(string)
		typ, _ := a["AttributeType"].(string)
		sc.types[name] = typ
	}
	var err error
	if sc.keys, err = keysOf(def["KeySchema"]); err != nil {
		return sc, fmt.Errorf("KeySchema: %w", err)
	}
	for _, member := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		for _, ix := range list(def[member]) {
			name, _ := ix["IndexName"].(string)
			if sc.indexes[name], err = keysOf(ix["KeySchema"]); err != nil {
				return sc, fmt.Errorf("%s %s: KeySchema: %w", member, name, err)
			}
		}
	}
	return sc, nil
}

// keysOf reads a KeySchema list.
func keysOf(v any) (indexKeys, error) {
	var k indexKeys
	for _, e := range list(v) {
		name, _ := e["AttributeName"].(string)
		switch e["KeyType"] {
		case "HASH":
			k.hash = name
		case "RANGE":
			k.sort = name
		}
	}
	if k.hash == "" {
		return k, errors.New("no HASH key")
	}
	return k, nil
}

// list reads a JSON list of objects, skipping what is not an object.
func list(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// keysFor returns the keys of index ("" for the table).
func (sc schema) keysFor(index string) (indexKeys, error) {
	if index == "" {
		return sc.keys, nil
	}
	k, ok := sc.indexes[index]
	if !ok {
		return k, fmt.Errorf("table %s has no index %s", sc.name, index)
	}
	return k, nil
}

// value is the n-th value of attribute name in its declared type: distinct
// n give distinct values, and equal n equal ones.
func (sc schema) value(name, prefix string, n int) map[string]any {
	return sc.typed(name, fmt.Sprintf("%s%d", prefix, n), n)
}

// typed is text as a value of attribute name's type, or n for a number.
func (sc schema) typed(name, text string, n int) map[string]any {
	switch sc.types[name] {
	case "N":
		return map[string]any{"N": strconv.Itoa(n)}
	case "B":
		return map[string]any{"B": base64.StdEncoding.EncodeToString([]byte(text))}
	}
	return map[string]any{"S": text}
}

// waitActive polls DescribeTable until the table and its global indexes
// are ACTIVE, and returns the description.
func waitActive(ctx context.Context, ep *Endpoint, table string) (map[string]any, error) {
	for {
		var out struct {
			Table map[string]any `json:"Table"`
		}
		if err := ep.Call(ctx, "DescribeTable", map[string]any{"TableName": table}, &out); err != nil {
			return nil, err
		}
		if active(out.Table) {
			return out.Table, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func active(t map[string]any) bool {
	if t["TableStatus"] != "ACTIVE" {
		return false
	}
	for _, ix := range list(t["GlobalSecondaryIndexes"]) {
		if ix["IndexStatus"] != "ACTIVE" {
			return false
		}
	}
	return true
}

// batchWrite puts items into table 25 at a time, resending what comes back
// unprocessed.
func batchWrite(ctx context.Context, ep *Endpoint, table string, items []map[string]any) error {
	for len(items) > 0 {
		n := min(25, len(items))
		reqs := make([]any, n)
		for i, it := range items[:n] {
			reqs[i] = map[string]any{"PutRequest": map[string]any{"Item": it}}
		}
		items = items[n:]
		pending := map[string]any{table: reqs}
		for len(pending) > 0 {
			var out struct {
				UnprocessedItems map[string]any `json:"UnprocessedItems"`
			}
			if err := ep.Call(ctx, "BatchWriteItem", map[string]any{"RequestItems": pending}, &out); err != nil {
				return err
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}
