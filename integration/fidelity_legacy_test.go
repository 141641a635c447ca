package integration

import (
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/table"
)

// TestConditionalOperatorNeedsTwoConditions: a legacy ConditionalOperator
// joins the conditions of Expected, QueryFilter or ScanFilter, so DynamoDB
// refuses it without them (KeyConditions and AttributesToGet do not count)
// and with only one, in every operation that takes it, before it looks
// for the missing key condition of a Query, and after the check that
// refuses mixing it with expressions. Wording: DynamoDB's, as recorded
// from the service by a dual-target conformance suite (2026).
func TestConditionalOperatorNeedsTwoConditions(t *testing.T) {
	srv := startServer(t, table.Options{})
	createTable(t, srv.client("us-east-1"), "CondOp", false)
	const (
		without = "ConditionalOperator cannot be used without Filter or Expected"
		one     = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
		eq      = `{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"v"}]}`
		// PutItem, UpdateItem and DeleteItem send it in the envelope
		// (table.requestError).
		env = "1 validation error detected: "
	)
	tests := []struct{ op, body, msg string }{
		{"Scan", `{"TableName":"CondOp","ConditionalOperator":"OR"}`, without},
		{"Scan", `{"TableName":"CondOp","ConditionalOperator":"AND","ScanFilter":{}}`, without},
		{"Scan", `{"TableName":"CondOp","ConditionalOperator":"AND","AttributesToGet":["x"]}`, without},
		{"Scan", `{"TableName":"CondOp","ConditionalOperator":"AND","ScanFilter":{"x":` + eq + `}}`, one},
		{"Query", `{"TableName":"CondOp","ConditionalOperator":"AND"}`, without},
		{"Query", `{"TableName":"CondOp","ConditionalOperator":"AND","KeyConditions":{"pk":` + eq + `}}`, without},
		{"Query", `{"TableName":"CondOp","ConditionalOperator":"OR","KeyConditions":{"pk":` + eq + `},"QueryFilter":{"x":` + eq + `}}`, one},
		{"PutItem", `{"TableName":"CondOp","Item":{"pk":{"S":"a"}},"ConditionalOperator":"AND"}`, env + without},
		{"PutItem", `{"TableName":"CondOp","Item":{"pk":{"S":"a"}},"ConditionalOperator":"AND","Expected":{}}`, env + without},
		{"PutItem", `{"TableName":"CondOp","Item":{"pk":{"S":"a"}},"ConditionalOperator":"OR","Expected":{"x":` + eq + `}}`, env + one},
		{"DeleteItem", `{"TableName":"CondOp","Key":{"pk":{"S":"a"}},"ConditionalOperator":"AND"}`, env + without},
		{"DeleteItem", `{"TableName":"CondOp","Key":{"pk":{"S":"a"}},"ConditionalOperator":"AND","Expected":{"x":` + eq + `}}`, env + one},
		{"UpdateItem", `{"TableName":"CondOp","Key":{"pk":{"S":"a"}},"ConditionalOperator":"AND"}`, env + without},
		{"UpdateItem", `{"TableName":"CondOp","Key":{"pk":{"S":"a"}},"ConditionalOperator":"AND","AttributeUpdates":{"x":{"Action":"PUT","Value":{"S":"v"}}}}`, env + without},
		{"UpdateItem", `{"TableName":"CondOp","Key":{"pk":{"S":"a"}},"ConditionalOperator":"AND","Expected":{"x":` + eq + `}}`, env + one},
		// Mixing with an expression is found first.
		{"Scan", `{"TableName":"CondOp","ConditionalOperator":"AND","ProjectionExpression":"x"}`,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ConditionalOperator} Expression parameters: {ProjectionExpression}"},
	}
	for _, tt := range tests {
		status, typ, msg := rawCall(t, srv.URL, tt.op, tt.body)
		if status != 400 || !strings.HasSuffix(typ, "#ValidationException") || msg != tt.msg {
			t.Errorf("%s %s: got %d %s %q, want ValidationException %q", tt.op, tt.body, status, typ, msg, tt.msg)
		}
	}
	// Two conditions are accepted.
	if status, typ, msg := rawCall(t, srv.URL, "Scan", `{"TableName":"CondOp","ConditionalOperator":"OR","ScanFilter":{"x":`+eq+`,"y":`+eq+`}}`); status != 200 {
		t.Fatalf("two conditions: got %d %s %q", status, typ, msg)
	}
}
