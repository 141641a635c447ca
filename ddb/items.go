package ddb

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
)

// The request and response shapes of the single-item operations.

// ExprParams are the expression members shared by the item operations.
type ExprParams struct {
	ExpressionAttributeNames  map[string]string     `json:",omitempty"`
	ExpressionAttributeValues map[string]attr.Value `json:",omitempty"`
}

// WriteParams are the members PutItem, DeleteItem and UpdateItem share.
type WriteParams struct {
	ConditionExpression                 *string `json:",omitempty"`
	Expected                            map[string]expressions.ExpectedAttributeValue
	ConditionalOperator                 *string `json:",omitempty" ddb:"enum=OR|AND"`
	ReturnValues                        string  `json:",omitempty" ddb:"enum=ALL_NEW|UPDATED_OLD|ALL_OLD|NONE|UPDATED_NEW"`
	ReturnConsumedCapacity              string  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ReturnItemCollectionMetrics         string  `json:",omitempty" ddb:"enum=SIZE|NONE"`
	ReturnValuesOnConditionCheckFailure string  `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
	ExprParams
}

// PutItemInput is PutItem's request.
type PutItemInput struct {
	TableName string    `ddb:"required;tablename"`
	Item      attr.Item `ddb:"required"`
	WriteParams
}

// DeleteItemInput is DeleteItem's request.
type DeleteItemInput struct {
	TableName string    `ddb:"required;tablename"`
	Key       attr.Item `ddb:"required"`
	WriteParams
}

// UpdateItemInput is UpdateItem's request.
type UpdateItemInput struct {
	TableName        string    `ddb:"required;tablename"`
	Key              attr.Item `ddb:"required"`
	UpdateExpression *string   `json:",omitempty"`
	AttributeUpdates map[string]expressions.AttributeValueUpdate
	WriteParams
	// FinishedSizeOnly (never on the wire) sizes the update by the item
	// it leaves alone, as PartiQL's UPDATE is sized, not by what it writes
	// as UpdateItem's own requests are.
	FinishedSizeOnly bool `json:"-"`
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

// ConditionalOperatorSent is the request's ConditionalOperator, for api,
// which refuses one outside its enum in the service's newer words.
func (p *WriteParams) ConditionalOperatorSent() *string { return p.ConditionalOperator }

// CheckOldReturnValues refuses a ReturnValues that PutItem and DeleteItem do
// not take (anything but NONE and ALL_OLD) in DynamoDB's words; a value
// outside the enum fails at the wire. api calls it too, ahead of a value
// nested too deeply, as the service reports them.
func CheckOldReturnValues(rv string) error {
	if rv == "" || rv == "NONE" || rv == "ALL_OLD" {
		return nil
	}
	return Errorf(ValidationException, "ReturnValues can only be ALL_OLD or NONE")
}
