package ddb

import "github.com/ddblocal/ddblocal/attr"

// The request and response shapes of TransactWriteItems and TransactGetItems.
// Transactions accept only expression parameters, never the legacy ones.

// TransactWriteItemsInput is TransactWriteItems' request.
type TransactWriteItemsInput struct {
	TransactItems               []TransactWriteItem `ddb:"required;len=1..100"`
	ClientRequestToken          *string             `json:",omitempty" ddb:"len=1..36"`
	ReturnConsumedCapacity      string              `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ReturnItemCollectionMetrics string              `json:",omitempty" ddb:"enum=SIZE|NONE"`
}

// TransactWriteItem is one action of a TransactWriteItems request: exactly
// one of its members is set.
type TransactWriteItem struct {
	ConditionCheck *ConditionCheck `json:",omitempty"`
	Put            *TransactPut    `json:",omitempty"`
	Delete         *TransactDelete `json:",omitempty"`
	Update         *TransactUpdate `json:",omitempty"`
}

// ConditionCheck checks a condition on an item without writing it.
type ConditionCheck struct {
	TableName                           string    `ddb:"required;tablename"`
	Key                                 attr.Item `ddb:"required"`
	ConditionExpression                 *string   `ddb:"required"`
	ReturnValuesOnConditionCheckFailure string    `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
	ExprParams
}

// TransactPut writes a whole item, as PutItem does.
type TransactPut struct {
	TableName                           string    `ddb:"required;tablename"`
	Item                                attr.Item `ddb:"required"`
	ConditionExpression                 *string   `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure string    `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
	ExprParams
}

// TransactDelete deletes an item by key, as DeleteItem does.
type TransactDelete struct {
	TableName                           string    `ddb:"required;tablename"`
	Key                                 attr.Item `ddb:"required"`
	ConditionExpression                 *string   `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure string    `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
	ExprParams
}

// TransactUpdate edits an item's attributes, as UpdateItem does.
type TransactUpdate struct {
	TableName                           string    `ddb:"required;tablename"`
	Key                                 attr.Item `ddb:"required"`
	UpdateExpression                    *string   `ddb:"required"`
	ConditionExpression                 *string   `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure string    `json:",omitempty" ddb:"enum=ALL_OLD|NONE"`
	ExprParams
}

// TransactWriteItemsOutput is TransactWriteItems' response. ConsumedCapacity
// has one entry per table, in the order the tables first appear.
type TransactWriteItemsOutput struct {
	ConsumedCapacity      []*ConsumedCapacity                 `json:",omitempty"`
	ItemCollectionMetrics map[string][]*ItemCollectionMetrics `json:",omitempty"`
}

// TransactGetItemsInput is TransactGetItems' request.
type TransactGetItemsInput struct {
	TransactItems          []TransactGetItem `ddb:"required;len=1..100"`
	ReturnConsumedCapacity string            `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
}

// TransactGetItem is one action of a TransactGetItems request.
type TransactGetItem struct {
	Get *TransactGet `ddb:"required"`
}

// TransactGet reads one item by key, as a strongly consistent GetItem.
type TransactGet struct {
	TableName                string            `ddb:"required;tablename"`
	Key                      attr.Item         `ddb:"required"`
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
}

// ItemResponse is one entry of TransactGetItems' Responses: Item is absent
// when the item does not exist, and also (unlike GetItem and BatchGetItem)
// when a projection left nothing of it, as the service answers
// (ExtendDB/extenddb#74, nubo-db/dynoxide#53, captured from AWS).
type ItemResponse struct {
	Item attr.Item `json:",omitempty"`
}

// TransactGetItemsOutput is TransactGetItems' response. Responses are in
// request order.
type TransactGetItemsOutput struct {
	Responses        []ItemResponse
	ConsumedCapacity []*ConsumedCapacity `json:",omitempty"`
}
