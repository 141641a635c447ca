package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools holds what the data tools share: the endpoint they call.
type tools struct {
	ep       *Endpoint
	readOnly bool
}

// Reply is a DynamoDB reply, as the server sent it.
type Reply = map[string]any

// TableInput names a table.
type TableInput struct {
	TableName string `json:"TableName" jsonschema:"the table's name"`
}

// ListTablesInput pages ListTables.
type ListTablesInput struct {
	ExclusiveStartTableName string `json:"ExclusiveStartTableName,omitempty" jsonschema:"continue after this table (LastEvaluatedTableName of the previous page)"`
	Limit                   int    `json:"Limit,omitempty" jsonschema:"at most this many names (1-100)"`
}

// CreateTableInput is a CreateTable request.
type CreateTableInput struct {
	Definition map[string]any `json:"Definition" jsonschema:"a DynamoDB CreateTable request: TableName, KeySchema, AttributeDefinitions, and optionally BillingMode (PAY_PER_REQUEST when neither it nor ProvisionedThroughput is given), GlobalSecondaryIndexes, LocalSecondaryIndexes, StreamSpecification, Tags"`
}

// PutItemInput is a PutItem request.
type PutItemInput struct {
	TableName                 string            `json:"TableName"`
	Item                      map[string]any    `json:"Item" jsonschema:"the item in DynamoDB JSON, e.g. {\"pk\": {\"S\": \"user#1\"}, \"n\": {\"N\": \"3\"}}"`
	ConditionExpression       string            `json:"ConditionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]any    `json:"ExpressionAttributeValues,omitempty"`
	ReturnValues              string            `json:"ReturnValues,omitempty" jsonschema:"NONE or ALL_OLD"`
}

// GetItemInput is a GetItem request.
type GetItemInput struct {
	TableName                string            `json:"TableName"`
	Key                      map[string]any    `json:"Key" jsonschema:"the full primary key in DynamoDB JSON"`
	ConsistentRead           bool              `json:"ConsistentRead,omitempty"`
	ProjectionExpression     string            `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames map[string]string `json:"ExpressionAttributeNames,omitempty"`
}

// QueryInput is a Query request.
type QueryInput struct {
	TableName                 string            `json:"TableName"`
	IndexName                 string            `json:"IndexName,omitempty"`
	KeyConditionExpression    string            `json:"KeyConditionExpression" jsonschema:"e.g. pk = :pk AND begins_with(sk, :prefix)"`
	FilterExpression          string            `json:"FilterExpression,omitempty"`
	ProjectionExpression      string            `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]any    `json:"ExpressionAttributeValues,omitempty"`
	ScanIndexForward          *bool             `json:"ScanIndexForward,omitempty"`
	ConsistentRead            bool              `json:"ConsistentRead,omitempty"`
	Limit                     int               `json:"Limit,omitempty"`
	ExclusiveStartKey         map[string]any    `json:"ExclusiveStartKey,omitempty"`
}

// ScanInput is a Scan request.
type ScanInput struct {
	TableName                 string            `json:"TableName"`
	IndexName                 string            `json:"IndexName,omitempty"`
	FilterExpression          string            `json:"FilterExpression,omitempty"`
	ProjectionExpression      string            `json:"ProjectionExpression,omitempty"`
	ExpressionAttributeNames  map[string]string `json:"ExpressionAttributeNames,omitempty"`
	ExpressionAttributeValues map[string]any    `json:"ExpressionAttributeValues,omitempty"`
	ConsistentRead            bool              `json:"ConsistentRead,omitempty"`
	Limit                     int               `json:"Limit,omitempty"`
	ExclusiveStartKey         map[string]any    `json:"ExclusiveStartKey,omitempty"`
	Segment                   *int              `json:"Segment,omitempty"`
	TotalSegments             *int              `json:"TotalSegments,omitempty"`
}

// PartiQLInput is an ExecuteStatement request.
type PartiQLInput struct {
	Statement      string `json:"Statement" jsonschema:"a PartiQL statement, e.g. SELECT * FROM \"Orders\" WHERE pk = ?"`
	Parameters     []any  `json:"Parameters,omitempty" jsonschema:"values for the ? placeholders, in DynamoDB JSON"`
	ConsistentRead bool   `json:"ConsistentRead,omitempty"`
	Limit          int    `json:"Limit,omitempty"`
	NextToken      string `json:"NextToken,omitempty"`
}

// handler adapts a call of DynamoDB operation op to a tool handler; check
// validates the input first (nil means none).
func handler[In any](t *tools, op string, check func(*In) error) sdk.ToolHandlerFor[In, Reply] {
	return func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Reply, error) {
		if check != nil {
			if err := check(&in); err != nil {
				return nil, nil, err
			}
		}
		var out Reply
		if err := t.ep.Call(ctx, op, in, &out); err != nil {
			return nil, nil, err
		}
		if out == nil {
			out = Reply{}
		}
		return nil, out, nil
	}
}

func needTable(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("TableName is required")
	}
	return nil
}

// readOnlyHint marks a tool that changes nothing.
var readOnlyHint = &sdk.ToolAnnotations{ReadOnlyHint: true}

func addReadTools(s *sdk.Server, t *tools) {
	sdk.AddTool(s, &sdk.Tool{Name: "list_tables", Description: "List the tables (DynamoDB ListTables).", Annotations: readOnlyHint},
		handler[ListTablesInput](t, "ListTables", nil))
	sdk.AddTool(s, &sdk.Tool{Name: "describe_table", Description: "Describe a table: key schema, indexes, item count, status (DynamoDB DescribeTable).", Annotations: readOnlyHint},
		handler(t, "DescribeTable", func(in *TableInput) error { return needTable(in.TableName) }))
	sdk.AddTool(s, &sdk.Tool{Name: "get_item", Description: "Read one item by its full primary key (DynamoDB GetItem).", Annotations: readOnlyHint},
		handler(t, "GetItem", func(in *GetItemInput) error { return needTable(in.TableName) }))
	sdk.AddTool(s, &sdk.Tool{Name: "query", Description: "Read the items of one partition key value, optionally a sort key range, from the table or an index (DynamoDB Query). Reply has Items, Count, ScannedCount, LastEvaluatedKey.", Annotations: readOnlyHint},
		handler(t, "Query", func(in *QueryInput) error { return needTable(in.TableName) }))
	sdk.AddTool(s, &sdk.Tool{Name: "scan", Description: "Read every item of a table or index, a page at a time (DynamoDB Scan). Pass LastEvaluatedKey back as ExclusiveStartKey for the next page.", Annotations: readOnlyHint},
		handler(t, "Scan", func(in *ScanInput) error { return needTable(in.TableName) }))
	desc := "Run a PartiQL statement (DynamoDB ExecuteStatement): SELECT, INSERT, UPDATE, DELETE."
	if t.readOnly {
		desc = "Run a PartiQL SELECT statement (DynamoDB ExecuteStatement); the server is read-only."
	}
	sdk.AddTool(s, &sdk.Tool{Name: "execute_partiql", Description: desc, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.readOnly}},
		handler(t, "ExecuteStatement", t.checkStatement))
}

// checkStatement refuses an empty statement, and in read-only mode one that
// is not a SELECT.
func (t *tools) checkStatement(in *PartiQLInput) error {
	st := strings.TrimSpace(in.Statement)
	if st == "" {
		return errors.New("Statement is required")
	}
	verb, _, _ := strings.Cut(st, " ")
	if t.readOnly && !strings.EqualFold(verb, "SELECT") {
		return fmt.Errorf("the server is read-only (ddblocal mcp --read-only): only SELECT statements run, not %s", strings.ToUpper(verb))
	}
	return nil
}

func addWriteTools(s *sdk.Server, t *tools) {
	sdk.AddTool(s, &sdk.Tool{Name: "create_table", Description: "Create a table from a DynamoDB CreateTable definition and wait until it is ACTIVE."},
		t.createTable)
	sdk.AddTool(s, &sdk.Tool{Name: "put_item", Description: "Write one item, replacing any item with the same key (DynamoDB PutItem)."},
		handler(t, "PutItem", func(in *PutItemInput) error { return needTable(in.TableName) }))
	sdk.AddTool(s, &sdk.Tool{Name: "load_sample_items", Description: sampleDescription}, t.loadSamples)
}

// createTable creates the table and waits for it to be ACTIVE.
func (t *tools) createTable(ctx context.Context, _ *sdk.CallToolRequest, in CreateTableInput) (*sdk.CallToolResult, Reply, error) {
	def, err := tableDefinition(in.Definition)
	if err != nil {
		return nil, nil, err
	}
	var out Reply
	if err := t.ep.Call(ctx, "CreateTable", def, &out); err != nil {
		return nil, nil, err
	}
	desc, err := waitActive(ctx, t.ep, def["TableName"].(string))
	if err != nil {
		return nil, nil, err
	}
	return nil, desc, nil
}

// tableDefinition checks what DynamoDB would otherwise reject with a less
// helpful message, and defaults the billing mode to on-demand.
func tableDefinition(in map[string]any) (map[string]any, error) {
	if in == nil {
		return nil, errors.New("Definition is required: a CreateTable request with TableName, KeySchema and AttributeDefinitions")
	}
	def := make(map[string]any, len(in)+1)
	for k, v := range in {
		def[k] = v
	}
	if name, _ := def["TableName"].(string); strings.TrimSpace(name) == "" {
		return nil, errors.New("Definition.TableName is required (a string)")
	}
	for _, k := range []string{"KeySchema", "AttributeDefinitions"} {
		if l, _ := def[k].([]any); len(l) == 0 {
			return nil, fmt.Errorf("Definition.%s is required (a non-empty list)", k)
		}
	}
	_, billing := def["BillingMode"]
	_, provisioned := def["ProvisionedThroughput"]
	if !billing && !provisioned {
		def["BillingMode"] = "PAY_PER_REQUEST"
	}
	return def, nil
}
