package ddb

import "github.com/ddblocal/ddblocal/attr"

// VectorAttributeDefinition names a vector index's vector attribute.
type VectorAttributeDefinition struct {
	AttributeName string `ddb:"required;len=1..255"`
}

// SearchSchemaElement is one attribute of a vector index's search schema:
// its partition key (HASH) or an inline filter (INLINE_FILTER).
type SearchSchemaElement struct {
	AttributeName           string `ddb:"required;len=1..255"`
	SearchSchemaElementType string `ddb:"required;enum=HASH|INLINE_FILTER"`
}

// VectorIndex is a vector index definition in CreateTable, the Create of
// an UpdateTable VectorIndexUpdates entry, and restore overrides. The enum
// order is the one the service's message is reported to list (unverified).
type VectorIndex struct {
	IndexName        string                     `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	VectorAttribute  *VectorAttributeDefinition `ddb:"required"`
	Dimensions       *int64                     `ddb:"required;min=1"`
	DistanceFunction string                     `ddb:"required;enum=DOT_PRODUCT|COSINE|EUCLIDEAN"`
	Projection       *Projection                `ddb:"required"`
	SearchSchema     []SearchSchemaElement      `json:",omitempty" ddb:"len=1.."`
}

// VectorIndexUpdate is one entry of UpdateTable's VectorIndexUpdates.
type VectorIndexUpdate struct {
	Create *VectorIndex `json:",omitempty"`
	Delete *struct {
		IndexName string `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	} `json:",omitempty"`
}

// VectorIndexDescription is DescribeTable's report of a vector index.
type VectorIndexDescription struct {
	IndexName        string
	IndexArn         string
	IndexStatus      string
	Backfilling      *bool `json:",omitempty"`
	VectorAttribute  VectorAttributeDefinition
	Dimensions       int64
	DistanceFunction string
	SearchSchema     []SearchSchemaElement `json:",omitempty"`
	Projection       Projection
	IndexSizeBytes   int64
	ItemCount        int64
}

// VectorCapacity is a vector index's consumed capacity, in bytes.
type VectorCapacity struct {
	VectorSearchRequestBytes *float64 `json:",omitempty"`
	VectorWriteRequestBytes  *float64 `json:",omitempty"`
}

// SearchVectorsInput is SearchVectors' request.
type SearchVectorsInput struct {
	TableName                 string       `ddb:"required;tablename"`
	IndexName                 string       `ddb:"required;len=3..255;pattern=[a-zA-Z0-9_.-]+"`
	SearchVector              []attr.Value `ddb:"required"`
	TopK                      *int32       `ddb:"required"`
	SearchConditionExpression *string      `json:",omitempty"`
	ProjectionExpression      *string      `json:",omitempty"`
	ReturnConsumedCapacity    string       `json:",omitempty" ddb:"enum=INDEXES|TOTAL|NONE"`
	ExprParams
}

// SearchResultItem is one SearchVectors result.
type SearchResultItem struct {
	Item  attr.Item
	Score float64
}

// SearchVectorsOutput is SearchVectors' response.
type SearchVectorsOutput struct {
	SearchResults    []SearchResultItem
	ConsumedCapacity *VectorCapacity `json:",omitempty"`
}
