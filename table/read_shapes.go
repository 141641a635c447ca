package table

import (
	"bytes"
	"encoding/json"
	"strconv"

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

// ReadOutput is the response of Query and Scan. Query and Scan leave Items
// nil and keep the items as the JSON they were transcoded to from storage,
// which AppendJSON and MarshalJSON write in their place (ItemList decodes
// them); a ReadOutput built with Items set is written from Items.
type ReadOutput struct {
	Items            *[]attr.Item `json:",omitempty"` // nil for Select COUNT, or see itemsJSON
	Count            int
	ScannedCount     int
	LastEvaluatedKey attr.Item         `json:",omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
	// itemsJSON is the JSON of the items, comma-separated, when Items is nil;
	// nil for Select COUNT.
	itemsJSON []byte
	release   func() // gives itemsJSON's buffer back; nil if not pooled
}

// Release gives the buffer behind the output's items back to the Service
// for reuse by a later read. Calling it is optional (an unreleased buffer is
// left to the GC), and o must not be used afterwards: the api layer calls it
// once the response has been encoded.
func (o *ReadOutput) Release() {
	if o.release != nil {
		o.release()
		o.release, o.itemsJSON = nil, nil
	}
}

// AppendJSON appends o's JSON to dst and returns the extended slice: what
// encoding/json writes for the struct (without HTML escaping), with the
// items taken from the read's JSON when Items is nil.
func (o ReadOutput) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	switch {
	case o.Items != nil:
		dst = append(dst, `"Items":`...)
		if *o.Items == nil {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, '[')
			for i, it := range *o.Items {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = attr.AppendItemJSON(dst, it)
			}
			dst = append(dst, ']')
		}
		dst = append(dst, ',')
	case o.itemsJSON != nil:
		dst = append(dst, `"Items":[`...)
		dst = append(dst, o.itemsJSON...)
		dst = append(dst, "],"...)
	}
	dst = append(dst, `"Count":`...)
	dst = strconv.AppendInt(dst, int64(o.Count), 10)
	dst = append(dst, `,"ScannedCount":`...)
	dst = strconv.AppendInt(dst, int64(o.ScannedCount), 10)
	if len(o.LastEvaluatedKey) > 0 {
		dst = append(dst, `,"LastEvaluatedKey":`...)
		dst = attr.AppendItemJSON(dst, o.LastEvaluatedKey)
	}
	if o.ConsumedCapacity != nil {
		var err error
		if dst, err = appendCapacity(append(dst, `,"ConsumedCapacity":`...), o.ConsumedCapacity); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendCapacity appends cc's JSON as encoding/json writes it (without HTML
// escaping). Rare, small and not on the hot path: encoding/json writes it.
func appendCapacity(dst []byte, cc *ConsumedCapacity) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(cc); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// MarshalJSON returns o's JSON (see AppendJSON).
func (o ReadOutput) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(make([]byte, 0, 64+len(o.itemsJSON)))
}

// ItemList returns the items of the page: *Items when set, else the items
// decoded from the read's JSON; nil for Select COUNT.
func (o *ReadOutput) ItemList() ([]attr.Item, error) {
	if o.Items != nil {
		return *o.Items, nil
	}
	if o.itemsJSON == nil {
		return nil, nil
	}
	var items []attr.Item
	b := append(append(append(make([]byte, 0, len(o.itemsJSON)+2), '['), o.itemsJSON...), ']')
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, err
	}
	if items == nil {
		items = []attr.Item{}
	}
	return items, nil
}

// GetItemOutput is GetItem's response. GetItem leaves Item nil and keeps the
// item as the JSON it was transcoded to from storage, which AppendJSON and
// MarshalJSON write in its place (ReadItem decodes it); a GetItemOutput
// built with Item set is written from Item.
type GetItemOutput struct {
	Item             attr.Item         `json:",omitempty"`
	ConsumedCapacity *ConsumedCapacity `json:",omitempty"`
	// itemJSON is the item's JSON when Item is nil; nil when no item was found.
	itemJSON []byte
}

// AppendJSON appends o's JSON to dst and returns the extended slice: what
// encoding/json writes for the struct (without HTML escaping), with the
// item taken from the stored item's JSON when Item is nil.
func (o GetItemOutput) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	switch {
	case len(o.Item) > 0:
		dst = attr.AppendItemJSON(append(dst, `"Item":`...), o.Item)
	case o.Item == nil && o.itemJSON != nil:
		dst = append(append(dst, `"Item":`...), o.itemJSON...)
	}
	if o.ConsumedCapacity != nil {
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendCapacity(append(dst, `"ConsumedCapacity":`...), o.ConsumedCapacity); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// MarshalJSON returns o's JSON (see AppendJSON).
func (o GetItemOutput) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(make([]byte, 0, 16+len(o.itemJSON)))
}

// ReadItem returns the item read: Item when set, else the item decoded from
// its JSON; nil when there was none.
func (o *GetItemOutput) ReadItem() (attr.Item, error) {
	if o.Item != nil || o.itemJSON == nil {
		return o.Item, nil
	}
	var item attr.Item
	if err := json.Unmarshal(o.itemJSON, &item); err != nil {
		return nil, err
	}
	return item, nil
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
