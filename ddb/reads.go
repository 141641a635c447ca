package ddb

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
)

// QueryInput is Query's request.
type QueryInput struct {
	TableName              string  `ddb:"required;tablename"`
	IndexName              *string `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	Select                 string  `json:",omitempty" ddb:"enum=SPECIFIC_ATTRIBUTES|COUNT|ALL_ATTRIBUTES|ALL_PROJECTED_ATTRIBUTES"`
	AttributesToGet        []string
	Limit                  *int32 `json:",omitempty" ddb:"min=1"`
	ConsistentRead         *bool  `json:",omitempty"`
	KeyConditions          map[string]expressions.LegacyCondition
	QueryFilter            map[string]expressions.LegacyCondition
	ConditionalOperator    *string `json:",omitempty" ddb:"enum=OR|AND"`
	ScanIndexForward       *bool   `json:",omitempty"`
	ExclusiveStartKey      attr.Item
	ReturnConsumedCapacity string  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ProjectionExpression   *string `json:",omitempty"`
	FilterExpression       *string `json:",omitempty"`
	KeyConditionExpression *string `json:",omitempty"`
	ExprParams
}

// ScanInput is Scan's request.
type ScanInput struct {
	TableName              string  `ddb:"required;tablename"`
	IndexName              *string `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	AttributesToGet        []string
	Limit                  *int32 `json:",omitempty" ddb:"min=1"`
	Select                 string `json:",omitempty" ddb:"enum=SPECIFIC_ATTRIBUTES|COUNT|ALL_ATTRIBUTES|ALL_PROJECTED_ATTRIBUTES"`
	ScanFilter             map[string]expressions.LegacyCondition
	ConditionalOperator    *string `json:",omitempty" ddb:"enum=OR|AND"`
	ExclusiveStartKey      attr.Item
	ReturnConsumedCapacity string  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	TotalSegments          *int32  `json:",omitempty" ddb:"min=1;max=1000000"`
	Segment                *int32  `json:",omitempty" ddb:"min=0;max=999999"`
	ProjectionExpression   *string `json:",omitempty"`
	FilterExpression       *string `json:",omitempty"`
	ConsistentRead         *bool   `json:",omitempty"`
	ExprParams
}

// ReadOutput is the response of Query and Scan. Query and Scan leave Items
// nil and keep the page's items in RenderedItems, written as DynamoDB JSON
// straight from storage; the api layer writes them in Items' place
// (ItemList decodes them).
type ReadOutput struct {
	Items            *[]attr.Item `json:",omitempty"` // nil for Select COUNT, or see RenderedItems
	Count            int
	ScannedCount     int
	LastEvaluatedKey attr.Item         `json:",omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
	// RenderedItems is the page's items when Items is nil; nil for Select
	// COUNT. It is not a wire member of its own.
	RenderedItems attr.ItemsJSON `json:"-"`
	// Recycle gives RenderedItems' buffer back; nil if not pooled. It is
	// not a wire member.
	Recycle func() `json:"-"`
}

// Release gives the buffer behind the output's items back to the Service
// for reuse by a later read. Calling it is optional (an unreleased buffer is
// left to the GC), and o must not be used afterwards: the api layer calls it
// once the response has been encoded.
func (o *ReadOutput) Release() {
	if o.Recycle != nil {
		o.Recycle()
		o.Recycle, o.RenderedItems = nil, nil
	}
}

// ItemList returns the items of the page: *Items when set, else the items
// decoded from RenderedItems; nil for Select COUNT.
func (o *ReadOutput) ItemList() ([]attr.Item, error) {
	if o.Items != nil {
		return *o.Items, nil
	}
	return o.RenderedItems.Items()
}

// GetItemOutput is GetItem's response. GetItem leaves Item nil and keeps the
// item in RenderedItem, written as DynamoDB JSON straight from storage; the
// api layer writes it in Item's place (ReadItem decodes it).
type GetItemOutput struct {
	// Item is {} (not nil) for an existing item that a projection left
	// empty: DynamoDB returns "Item": {} then, and omits Item only when
	// there is no item.
	Item             attr.Item         `json:",omitzero"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
	// RenderedItem is the item when Item is nil; nil when no item was
	// found. It is not a wire member of its own.
	RenderedItem attr.ItemJSON `json:"-"`
}

// ReadItem returns the item read: Item when set, else the item decoded from
// RenderedItem; nil when there was none.
func (o *GetItemOutput) ReadItem() (attr.Item, error) {
	if o.Item != nil {
		return o.Item, nil
	}
	return o.RenderedItem.Item()
}

// KeysAndAttributes is one table's part of a BatchGetItem request.
type KeysAndAttributes struct {
	Keys                     []attr.Item       `ddb:"required"` // 1 to 100, checked by table.BatchGetItem in the service's newer words
	AttributesToGet          []string          `json:",omitempty"`
	ConsistentRead           *bool             `json:",omitempty"`
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
}

// BatchGetItemInput is BatchGetItem's request.
type BatchGetItemInput struct {
	// An empty RequestItems is refused by table.BatchGetItem, in its own words.
	RequestItems           map[string]KeysAndAttributes `ddb:"required;len=..100;tablenamekeys"`
	ReturnConsumedCapacity string                       `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
}

// BatchGetItemOutput is BatchGetItem's response.
type BatchGetItemOutput struct {
	Responses        map[string][]attr.Item
	UnprocessedKeys  map[string]KeysAndAttributes
	ConsumedCapacity []*ConsumedCapacity `json:",omitempty"`
}

// PutRequest is a BatchWriteItem put. Its item is kept in its storage
// encoding, decoded from the request's JSON without building an attr.Item
// (see attr.Encoded): a batch put only validates, keys and stores it.
type PutRequest struct {
	Item attr.Encoded `ddb:"required"`
}

// DeleteRequest is a BatchWriteItem delete.
type DeleteRequest struct {
	Key attr.Item `ddb:"required"`
}

// WriteRequest is one BatchWriteItem request: exactly one of its members.
type WriteRequest struct {
	PutRequest    *PutRequest    `json:",omitempty"`
	DeleteRequest *DeleteRequest `json:",omitempty"`
}

// BatchWriteItemInput is BatchWriteItem's request.
type BatchWriteItemInput struct {
	// An empty RequestItems is refused by table.BatchWriteItem, in its own words.
	RequestItems                map[string][]WriteRequest `ddb:"required;len=..25;writerequestitems"`
	ReturnConsumedCapacity      string                    `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ReturnItemCollectionMetrics string                    `json:",omitempty" ddb:"enum=SIZE|NONE"`
}

// BatchWriteItemOutput is BatchWriteItem's response.
type BatchWriteItemOutput struct {
	UnprocessedItems      map[string][]WriteRequest
	ConsumedCapacity      []*ConsumedCapacity                 `json:",omitempty"`
	ItemCollectionMetrics map[string][]*ItemCollectionMetrics `json:",omitempty"`
}

// ConditionalOperatorSent is the request's ConditionalOperator (see
// WriteParams.ConditionalOperatorSent).
func (in *QueryInput) ConditionalOperatorSent() *string { return in.ConditionalOperator }

// ConditionalOperatorSent is the request's ConditionalOperator (see
// WriteParams.ConditionalOperatorSent).
func (in *ScanInput) ConditionalOperatorSent() *string { return in.ConditionalOperator }
