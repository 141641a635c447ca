// Package mcp is ddblocal's Model Context Protocol server (`ddblocal mcp`):
// tools through which a coding agent lists, describes and creates tables,
// reads and writes items, runs PartiQL, loads sample items, and evaluates a
// data model against a described workload on a scratch in-memory server
// with production throttling (Evaluate).
//
// The tools speak DynamoDB's own JSON protocol to an Endpoint, so their
// inputs are DynamoDB's request members (TableName, Key, Item in DynamoDB
// JSON, KeyConditionExpression ...) and their outputs DynamoDB's replies.
// It is built on the official Go SDK, github.com/modelcontextprotocol/go-sdk.
package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures New.
type Options struct {
	// Endpoint is the server the data tools call.
	Endpoint *Endpoint
	// ReadOnly leaves out the tools that write (create_table, put_item,
	// load_sample_items) and lets execute_partiql run only SELECT. The
	// evaluator stays: it writes only to its own scratch server.
	ReadOnly bool
	// Version is reported to clients as the server's version.
	Version string
	// Evaluator runs evaluate_data_model; nil means a default one.
	Evaluator *Evaluator
}

// New returns an MCP server with ddblocal's tools; serve it with
// s.Run(ctx, &sdk.StdioTransport{}) or an HTTP handler of the SDK.
func New(opts Options) *sdk.Server {
	v := opts.Version
	if v == "" {
		v = "devel"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "ddblocal", Title: "ddblocal (local DynamoDB)", Version: v},
		&sdk.ServerOptions{Instructions: instructions})
	t := &tools{ep: opts.Endpoint, readOnly: opts.ReadOnly}
	addReadTools(s, t)
	if !opts.ReadOnly {
		addWriteTools(s, t)
	}
	ev := opts.Evaluator
	if ev == nil {
		ev = &Evaluator{}
	}
	sdk.AddTool(s, &sdk.Tool{Name: "evaluate_data_model", Description: evaluateDescription,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in Model) (*sdk.CallToolResult, *Report, error) {
			r, err := ev.Evaluate(ctx, in)
			return nil, r, err
		})
	return s
}

const instructions = "ddblocal is a local DynamoDB. The data tools take DynamoDB's request members " +
	"(TableName, Key, Item, KeyConditionExpression, ExpressionAttributeValues ...) with attribute values in DynamoDB JSON " +
	`({"S": "text"}, {"N": "42"}, {"M": {...}}) and return DynamoDB's replies. ` +
	"evaluate_data_model runs a described workload against a table design on a scratch server with DynamoDB's " +
	"partition throughput limits and reports hot partitions, throttling, read amplification and design warnings with remedies."
