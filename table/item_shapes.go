package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
)

// The request and response shapes of the single-item operations.

// exprParams are the expression members shared by the item operations.
type exprParams struct {
	ExpressionAttributeNames  map[string]string     `json:",omitempty"`
	ExpressionAttributeValues map[string]attr.Value `json:",omitempty"`
}

// writeParams are the members PutItem, DeleteItem and UpdateItem share.
type writeParams struct {
	ConditionExpression                 *string `json:",omitempty"`
	Expected                            map[string]expressions.ExpectedAttributeValue
	ConditionalOperator                 *string `json:",omitempty" ddb:"enum=AND|OR"`
	ReturnValues                        string  `json:",omitempty" ddb:"enum=NONE|ALL_OLD|UPDATED_OLD|ALL_NEW|UPDATED_NEW"`
	ReturnConsumedCapacity              string  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ReturnItemCollectionMetrics         string  `json:",omitempty" ddb:"enum=SIZE|NONE"`
	ReturnValuesOnConditionCheckFailure string  `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
	exprParams
}

// exprInput is the compiler's input for what every single-item write may
// carry: a condition, in either form, and its placeholders.
func (p *writeParams) exprInput() expressions.Input {
	return expressions.Input{
		ConditionExpression: p.ConditionExpression, Expected: p.Expected, ConditionalOperator: p.ConditionalOperator,
		Names: p.ExpressionAttributeNames, Values: p.ExpressionAttributeValues, Op: expressions.OpWrite,
	}
}

// PutItemInput is PutItem's request.
type PutItemInput struct {
	TableName string    `ddb:"required;tablename"`
	Item      attr.Item `ddb:"required"`
	writeParams
}

// DeleteItemInput is DeleteItem's request.
type DeleteItemInput struct {
	TableName string    `ddb:"required;tablename"`
	Key       attr.Item `ddb:"required"`
	writeParams
}

// UpdateItemInput is UpdateItem's request.
type UpdateItemInput struct {
	TableName        string    `ddb:"required;tablename"`
	Key              attr.Item `ddb:"required"`
	UpdateExpression *string   `json:",omitempty"`
	AttributeUpdates map[string]expressions.AttributeValueUpdate
	writeParams
}

// GetItemInput is GetItem's request.
type GetItemInput struct {
	TableName                string            `ddb:"required;tablename"`
	Key                      attr.Item         `ddb:"required"`
	ConsistentRead           *bool             `json:",omitempty"`
	ProjectionExpression     *string           `json:",omitempty"`
	AttributesToGet          []string          `json:",omitempty" ddb:"len=1..1000"`
	ReturnConsumedCapacity   string            `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
}

// WriteOutput is the response of PutItem, UpdateItem and DeleteItem.
type WriteOutput struct {
	Attributes            attr.Item              `json:",omitempty"`
	ConsumedCapacity      *ConsumedCapacity      `json:",omitempty"`
	ItemCollectionMetrics *ItemCollectionMetrics `json:",omitempty"`
}

// ItemCollectionMetrics reports the size of an item collection (tables with LSIs).
type ItemCollectionMetrics struct {
	ItemCollectionKey   attr.Item
	SizeEstimateRangeGB []float64
}
