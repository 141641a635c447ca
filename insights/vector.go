package insights

import "github.com/ddblocal/ddblocal/attr"

// VectorIndexReport is one vector index of the table: its definition, the
// vectors it holds, and how they spread over its search partitions (the
// values of its HASH search-schema attribute). A search reads one search
// partition whole, so the largest ones are what searches cost.
type VectorIndexReport struct {
	Index            string `json:"index"`
	Attribute        string `json:"attribute"`
	Dimensions       int64  `json:"dimensions"`
	DistanceFunction string `json:"distanceFunction"`
	// Hash is the HASH search-schema attribute, "" when there is none (one
	// search partition holds every vector).
	Hash    string `json:"hash"`
	Vectors int64  `json:"vectors"`
	// VectorBytes is 4 × Dimensions × Vectors, the float32 bytes the index
	// holds (and an unfiltered search of all of them reads).
	VectorBytes           int64             `json:"vectorBytes"`
	SearchPartitionsTotal int               `json:"searchPartitionsTotal"`
	SearchPartitions      []SearchPartition `json:"searchPartitions"`
}

// SearchPartition is one search partition of a vector index: the HASH value
// (nil when the index has none) and its vectors. A report lists the TopN
// largest, largest first.
type SearchPartition struct {
	PartitionKey *attr.Value `json:"partitionKey"`
	Vectors      int64       `json:"vectors"`
}
