package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
)

// QueryInput is Query's request.
type QueryInput struct {
	TableName              string  `ddb:"required;len=1..1024"`
	IndexName              *string `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	Select                 string  `json:",omitempty" ddb:"enum=ALL_ATTRIBUTES|ALL_PROJECTED_ATTRIBUTES|SPECIFIC_ATTRIBUTES|COUNT"`
	AttributesToGet        []string
	Limit                  *int32 `json:",omitempty" ddb:"min=1"`
	ConsistentRead         *bool  `json:",omitempty"`
	KeyConditions          map[string]expressions.LegacyCondition
	QueryFilter            map[string]expressions.LegacyCondition
	ConditionalOperator    *string `json:",omitempty" ddb:"enum=AND|OR"`
	ScanIndexForward       *bool   `json:",omitempty"`
	ExclusiveStartKey      attr.Item
	ReturnConsumedCapacity string  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ProjectionExpression   *string `json:",omitempty"`
	FilterExpression       *string `json:",omitempty"`
	KeyConditionExpression *string `json:",omitempty"`
	exprParams
}

// ScanInput is Scan's request.
type ScanInput struct {
	TableName              string  `ddb:"required;len=1..1024"`
	IndexName              *string `json:",omitempty" ddb:"len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	AttributesToGet        []string
	Limit                  *int32 `json:",omitempty" ddb:"min=1"`
	Select                 string `json:",omitempty" ddb:"enum=ALL_ATTRIBUTES|ALL_PROJECTED_ATTRIBUTES|SPECIFIC_ATTRIBUTES|COUNT"`
	ScanFilter             map[string]expressions.LegacyCondition
	ConditionalOperator    *string `json:",omitempty" ddb:"enum=AND|OR"`
	ExclusiveStartKey      attr.Item
	ReturnConsumedCapacity string  `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	TotalSegments          *int32  `json:",omitempty" ddb:"min=1;max=1000000"`
	Segment                *int32  `json:",omitempty" ddb:"min=0;max=999999"`
	ProjectionExpression   *string `json:",omitempty"`
	FilterExpression       *string `json:",omitempty"`
	ConsistentRead         *bool   `json:",omitempty"`
	exprParams
}

// ReadOutput is the response of Query and Scan.
type ReadOutput struct {
	Items            *[]attr.Item `json:",omitempty"` // nil only for Select COUNT
	Count            int
	ScannedCount     int
	LastEvaluatedKey attr.Item         `json:",omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
}

// KeysAndAttributes is one table's part of a BatchGetItem request.
type KeysAndAttributes struct {
	Keys                     []attr.Item       `ddb:"required;len=1..100"`
	AttributesToGet          []string          `json:",omitempty"`
	ConsistentRead           *bool             `json:",omitempty"`
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
}

// BatchGetItemInput is BatchGetItem's request.
type BatchGetItemInput struct {
	RequestItems           map[string]KeysAndAttributes `ddb:"required;len=1..100"`
	ReturnConsumedCapacity string                       `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
}

// BatchGetItemOutput is BatchGetItem's response.
type BatchGetItemOutput struct {
	Responses        map[string][]attr.Item
	UnprocessedKeys  map[string]KeysAndAttributes
	ConsumedCapacity []*ConsumedCapacity `json:",omitempty"`
}

// PutRequest is a BatchWriteItem put.
type PutRequest struct {
	Item attr.Item `ddb:"required"`
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
	RequestItems                map[string][]WriteRequest `ddb:"required;len=1..25"`
	ReturnConsumedCapacity      string                    `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ReturnItemCollectionMetrics string                    `json:",omitempty" ddb:"enum=SIZE|NONE"`
}

// BatchWriteItemOutput is BatchWriteItem's response.
type BatchWriteItemOutput struct {
	UnprocessedItems      map[string][]WriteRequest
	ConsumedCapacity      []*ConsumedCapacity                 `json:",omitempty"`
	ItemCollectionMetrics map[string][]*ItemCollectionMetrics `json:",omitempty"`
}
