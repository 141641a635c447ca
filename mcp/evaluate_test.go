package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/mcp"
)

func pattern(name, op string, rate float64, extra map[string]any) map[string]any {
	p := map[string]any{"Name": name, "Operation": op, "RatePerSecond": rate}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func hasWarning(r mcp.Report, kind string) bool {
	for _, w := range r.Warnings {
		if w.Kind == kind && w.Remedy != "" {
			return true
		}
	}
	return false
}

// TestEvaluateHotKey: one key taking 90% of 3,000 writes a second of 1 KB
// items asks 2,700 units a second of one partition, whose limit is 1,000;
// the same rate spread over many keys fits. The run is scaled down (1,000
// requests of 15,000), which must not change either verdict.
func TestEvaluateHotKey(t *testing.T) {
	cs := connect(t, mcp.Options{Evaluator: &mcp.Evaluator{MaxRequests: 1000, MaxPreload: 200}})
	table := map[string]any{"TableName": "Events",
		"KeySchema":            []any{map[string]any{"AttributeName": "device", "KeyType": "HASH"}, map[string]any{"AttributeName": "at", "KeyType": "RANGE"}},
		"AttributeDefinitions": []any{map[string]any{"AttributeName": "device", "AttributeType": "S"}, map[string]any{"AttributeName": "at", "AttributeType": "S"}}}
	var hot, spread mcp.Report
	mustCall(t, cs, "evaluate_data_model", map[string]any{"Table": table, "Seconds": 5, "AccessPatterns": []any{
		pattern("record event", "PutItem", 3000, map[string]any{"HotKeyShare": 0.9, "ItemSizeBytes": 1000})}}, &hot)
	mustCall(t, cs, "evaluate_data_model", map[string]any{"Table": table, "Seconds": 5, "AccessPatterns": []any{
		pattern("record event", "PutItem", 3000, map[string]any{"DistinctKeys": 100000, "ItemSizeBytes": 1000})}}, &spread)
	if hot.Scale > 0.07 || hot.Scale < 0.065 {
		t.Errorf("scale %g, want 1/15 (1,000 of 15,000 requests)", hot.Scale)
	}
	// 2,700 units/s against 1,000: about 63% of the hot key's writes, 57% of all, fail.
	p := hot.Patterns[0]
	if p.ThrottledShare < 0.4 || p.ThrottledShare > 0.7 || p.ThrottleErrors["ThrottlingException"]+p.ThrottleErrors["ProvisionedThroughputExceededException"] != p.Throttled {
		t.Errorf("hot key: %+v, want about 57%% throttled, as throttling errors", p)
	}
	if !hasWarning(hot, "hot-key") || len(hot.HotKeys) == 0 || hot.Partitions[0].ShareOfUnits < 0.5 {
		t.Errorf("hot key: warnings %+v, hot keys %+v, hottest partition %+v; want a hot-key warning and one partition with most units",
			hot.Warnings, hot.HotKeys, hot.Partitions[0])
	}
	if !strings.Contains(hot.Summary[0], "record event (PutItem)") {
		t.Errorf("summary %q, want it to start with the throttled pattern", hot.Summary)
	}
	if sp := spread.Patterns[0]; sp.Throttled != 0 || sp.Requests < 990 || hasWarning(spread, "hot-key") {
		t.Errorf("spread keys: %+v, warnings %+v; want about 1000 requests, none throttled, no hot-key warning", sp, spread.Warnings)
	}
}

// TestEvaluateReadAmplification: a Query whose filter keeps a tenth of the
// items reads ten items per item returned, and insights warns about it.
func TestEvaluateReadAmplification(t *testing.T) {
	ev := &mcp.Evaluator{MaxRequests: 300, MaxPreload: 1000}
	table := map[string]any{"TableName": "Orders",
		"KeySchema":            []any{map[string]any{"AttributeName": "customer", "KeyType": "HASH"}, map[string]any{"AttributeName": "order", "KeyType": "RANGE"}},
		"AttributeDefinitions": []any{map[string]any{"AttributeName": "customer", "AttributeType": "S"}, map[string]any{"AttributeName": "order", "AttributeType": "N"}}}
	r, err := ev.Evaluate(context.Background(), mcp.Model{Table: table, Seconds: 3, AccessPatterns: []mcp.Pattern{
		{Name: "open orders", Operation: "Query", RatePerSecond: 100, ItemsPerQuery: 20, DistinctKeys: 50, FilterKeeps: 0.1}}})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Patterns[0]
	if p.Requests != 300 || p.ReadAmplification != 10 {
		t.Errorf("%+v, want 300 requests reading 10 items per item returned", p)
	}
	if !hasWarning(*r, "filter-discards") {
		t.Errorf("warnings %+v, want filter-discards with a remedy", r.Warnings)
	}
}
