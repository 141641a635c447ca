package mcp_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ddblocal/ddblocal/ddbtest"
	"github.com/ddblocal/ddblocal/mcp"
)

// connect serves New(opts) to an SDK client over in-memory transports, the
// tools working on a fresh ddbtest server.
func connect(t *testing.T, opts mcp.Options) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	opts.Endpoint = &mcp.Endpoint{URL: ddbtest.NewServer(t), Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.New(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out (nil
// skips); it returns the result's text when the tool reported an error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args any, out any) (errText string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if out != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: decode %s: %v", tool, data, err)
		}
	}
	return ""
}

// mustCall is call that fails the test when the tool reports an error.
func mustCall(t *testing.T, cs *sdk.ClientSession, tool string, args any, out any) {
	t.Helper()
	if e := call(t, cs, tool, args, out); e != "" {
		t.Fatalf("%s: %s", tool, e)
	}
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func TestListTools(t *testing.T) {
	for _, tc := range []struct {
		readOnly bool
		want     []string
	}{
		{false, []string{"create_table", "describe_table", "evaluate_data_model", "execute_partiql", "get_item", "list_tables", "load_sample_items", "put_item", "query", "scan"}},
		{true, []string{"describe_table", "evaluate_data_model", "execute_partiql", "get_item", "list_tables", "query", "scan"}},
	} {
		got := toolNames(t, connect(t, mcp.Options{ReadOnly: tc.readOnly}))
		if !slices.Equal(got, tc.want) {
			t.Errorf("read-only %v: tools %v, want %v", tc.readOnly, got, tc.want)
		}
	}
}

var ordersTable = map[string]any{
	"TableName":            "Orders",
	"KeySchema":            []any{map[string]any{"AttributeName": "pk", "KeyType": "HASH"}, map[string]any{"AttributeName": "sk", "KeyType": "RANGE"}},
	"AttributeDefinitions": []any{map[string]any{"AttributeName": "pk", "AttributeType": "S"}, map[string]any{"AttributeName": "sk", "AttributeType": "N"}},
}

func s(v string) map[string]any { return map[string]any{"S": v} }
func n(v string) map[string]any { return map[string]any{"N": v} }

func TestItemTools(t *testing.T) {
	cs := connect(t, mcp.Options{})
	var desc map[string]any
	mustCall(t, cs, "create_table", map[string]any{"Definition": ordersTable}, &desc)
	if desc["TableStatus"] != "ACTIVE" || desc["BillingModeSummary"].(map[string]any)["BillingMode"] != "PAY_PER_REQUEST" {
		t.Errorf("create_table: %v, want an ACTIVE on-demand table", desc)
	}
	for _, sk := range []string{"1", "2", "3"} {
		mustCall(t, cs, "put_item", map[string]any{"TableName": "Orders", "Item": map[string]any{"pk": s("c#1"), "sk": n(sk), "total": n("12345678901234567890.123456789")}}, nil)
	}
	var got struct{ Item map[string]map[string]string }
	mustCall(t, cs, "get_item", map[string]any{"TableName": "Orders", "Key": map[string]any{"pk": s("c#1"), "sk": n("2")}}, &got)
	if got.Item["total"]["N"] != "12345678901234567890.123456789" {
		t.Errorf("get_item: %v, want total 12345678901234567890.123456789 exactly (no float)", got.Item)
	}
	var q struct{ Count, ScannedCount int }
	mustCall(t, cs, "query", map[string]any{"TableName": "Orders", "KeyConditionExpression": "pk = :p AND sk > :s",
		"ExpressionAttributeValues": map[string]any{":p": s("c#1"), ":s": n("1")}}, &q)
	if q.Count != 2 {
		t.Errorf("query: Count %d, want 2", q.Count)
	}
	var p struct{ Items []map[string]any }
	mustCall(t, cs, "execute_partiql", map[string]any{"Statement": `SELECT * FROM "Orders" WHERE pk = ?`, "Parameters": []any{s("c#1")}}, &p)
	if len(p.Items) != 3 {
		t.Errorf("execute_partiql: %d items, want 3", len(p.Items))
	}
	var sample struct{ Written int }
	mustCall(t, cs, "load_sample_items", map[string]any{"TableName": "Orders", "Count": 40, "PartitionKeys": 4}, &sample)
	var sc struct{ Count int }
	mustCall(t, cs, "scan", map[string]any{"TableName": "Orders"}, &sc)
	if sample.Written != 40 || sc.Count != 43 {
		t.Errorf("load_sample_items wrote %d, scan counts %d; want 40 and 43", sample.Written, sc.Count)
	}
	var lt struct{ TableNames []string }
	mustCall(t, cs, "list_tables", map[string]any{}, &lt)
	if !slices.Equal(lt.TableNames, []string{"Orders"}) {
		t.Errorf("list_tables: %v", lt.TableNames)
	}
}

// TestToolErrors: bad input is a tool error (IsError) whose text says what
// is wrong, whether the tool or DynamoDB found it.
func TestToolErrors(t *testing.T) {
	cs := connect(t, mcp.Options{})
	ro := connect(t, mcp.Options{ReadOnly: true})
	for _, tc := range []struct {
		cs   *sdk.ClientSession
		tool string
		args map[string]any
		want string
	}{
		{cs, "describe_table", map[string]any{"TableName": "Nope"}, "ResourceNotFoundException: Requested resource not found: Table: Nope not found"},
		{cs, "describe_table", map[string]any{"TableName": " "}, "TableName is required"},
		{cs, "create_table", map[string]any{"Definition": map[string]any{"TableName": "T"}}, "Definition.KeySchema is required (a non-empty list)"},
		{cs, "load_sample_items", map[string]any{"TableName": "T", "Count": 5000}, "Count must be between 1 and 1000, not 5000"},
		{cs, "execute_partiql", map[string]any{"Statement": ""}, "Statement is required"},
		{ro, "execute_partiql", map[string]any{"Statement": `INSERT INTO "T" VALUE {'pk': 'a'}`}, "the server is read-only (ddblocal mcp --read-only): only SELECT statements run, not INSERT"},
		{cs, "evaluate_data_model", map[string]any{"Table": ordersTable, "AccessPatterns": []any{map[string]any{"Name": "x", "Operation": "Delete", "RatePerSecond": 1}}},
			`AccessPatterns[0] (x): Operation must be one of PutItem, UpdateItem, GetItem, Query, Scan, not "Delete"`},
		{cs, "evaluate_data_model", map[string]any{"Table": ordersTable, "AccessPatterns": []any{map[string]any{"Name": "x", "Operation": "Query", "IndexName": "byDate", "RatePerSecond": 1}}},
			`AccessPatterns[0] (x): table Orders has no index byDate`},
		{cs, "evaluate_data_model", map[string]any{"Table": ordersTable, "AccessPatterns": []any{map[string]any{"Name": "x", "Operation": "GetItem", "RatePerSecond": 1, "HotKeyShare": 2}}},
			`AccessPatterns[0] (x): HotKeyShare must be between 0 and 1, not 2`},
	} {
		if got := call(t, tc.cs, tc.tool, tc.args, nil); !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: error %q, want it to contain %q", tc.tool, tc.args, got, tc.want)
		}
	}
	// A missing required member is refused by the input schema before the
	// tool runs.
	if got := call(t, cs, "get_item", map[string]any{"TableName": "T"}, nil); !strings.Contains(got, "Key") {
		t.Errorf("get_item without Key: %q, want an error naming Key", got)
	}
}
