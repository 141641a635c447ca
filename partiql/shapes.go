package partiql

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// ExecuteStatementInput is ExecuteStatement's request.
type ExecuteStatementInput struct {
	Statement                           string     `ddb:"required;len=1..8192"`
	Parameters                          Parameters `json:",omitempty" ddb:"len=1.."`
	ConsistentRead                      *bool      `json:",omitempty"`
	NextToken                           *string    `json:",omitempty" ddb:"len=1..32768"`
	ReturnConsumedCapacity              string     `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	Limit                               *int32     `json:",omitempty" ddb:"min=1"`
	ReturnValuesOnConditionCheckFailure string     `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
}

// ExecuteStatementOutput is ExecuteStatement's response. Items is always
// present (empty for a write without RETURNING).
type ExecuteStatementOutput struct {
	Items            []attr.Item
	NextToken        *string               `json:",omitempty"`
	ConsumedCapacity *ddb.ConsumedCapacity `json:",omitempty"`
	LastEvaluatedKey attr.Item             `json:",omitempty"`
}

// BatchStatementRequest is one statement of a BatchExecuteStatement.
type BatchStatementRequest struct {
	Statement                           string       `ddb:"required;len=1..8192"`
	Parameters                          []attr.Value `json:",omitempty" ddb:"len=1.."`
	ConsistentRead                      *bool        `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure string       `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
}

// BatchExecuteStatementInput is BatchExecuteStatement's request.
type BatchExecuteStatementInput struct {
	Statements             []BatchStatementRequest `ddb:"required;len=1..25"`
	ReturnConsumedCapacity string                  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
}

// BatchStatementError is a statement's failure inside a batch.
type BatchStatementError struct {
	Code    string
	Message string
	Item    attr.Item `json:",omitempty"`
}

// BatchStatementResponse is one statement's outcome, in request order.
type BatchStatementResponse struct {
	Error     *BatchStatementError `json:",omitempty"`
	TableName string               `json:",omitempty"`
	Item      attr.Item            `json:",omitempty"`
}

// BatchExecuteStatementOutput is BatchExecuteStatement's response.
type BatchExecuteStatementOutput struct {
	Responses        []BatchStatementResponse
	ConsumedCapacity []*ddb.ConsumedCapacity `json:",omitempty"`
}

// ParameterizedStatement is one statement of an ExecuteTransaction.
type ParameterizedStatement struct {
	Statement                           string     `ddb:"required;len=1..8192"`
	Parameters                          Parameters `json:",omitempty" ddb:"len=1.."`
	ReturnValuesOnConditionCheckFailure string     `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
}

// ExecuteTransactionInput is ExecuteTransaction's request.
type ExecuteTransactionInput struct {
	TransactStatements     []ParameterizedStatement `ddb:"required;len=1..100"`
	ClientRequestToken     *string                  `json:",omitempty" ddb:"len=1..36"`
	ReturnConsumedCapacity string                   `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
}

// ExecuteTransactionOutput is ExecuteTransaction's response: one entry per
// statement for a read transaction, none for a write transaction.
type ExecuteTransactionOutput struct {
	Responses        []ddb.ItemResponse      `json:",omitempty"`
	ConsumedCapacity []*ddb.ConsumedCapacity `json:",omitempty"`
}
