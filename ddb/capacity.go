package ddb

// Capacity is the units consumed by one table or index.
type Capacity struct {
	CapacityUnits      float64
	ReadCapacityUnits  *float64 `json:",omitempty"`
	WriteCapacityUnits *float64 `json:",omitempty"`
}

// ConsumedCapacity is the ConsumedCapacity member of a response.
type ConsumedCapacity struct {
	TableName              string
	CapacityUnits          float64
	ReadCapacityUnits      *float64                  `json:",omitempty"`
	WriteCapacityUnits     *float64                  `json:",omitempty"`
	Table                  *Capacity                 `json:",omitempty"`
	LocalSecondaryIndexes  map[string]Capacity       `json:",omitempty"`
	GlobalSecondaryIndexes map[string]Capacity       `json:",omitempty"`
	VectorIndexes          map[string]VectorCapacity `json:",omitempty"`
}
