package insights

import (
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
)

// Report is the JSON of GET /_ddblocal/insights?table=T, exactly the shape
// /work/helpers/INSIGHTS-JSON.md fixes (the web console reads it).
type Report struct {
	Table         string        `json:"table"`
	Throttling    bool          `json:"throttling"`
	Now           int64         `json:"now"`
	BucketSeconds int64         `json:"bucketSeconds"`
	Indexes       []IndexReport `json:"indexes"`
	TopKeys       TopKeys       `json:"topKeys"`
	Collections   []Collection  `json:"collections"`
	Amplification Amplification `json:"amplification"`
	Warnings      []Warning     `json:"warnings"`
	// VectorIndexes are the table's vector indexes (vector.go), omitted
	// when it has none.
	VectorIndexes []VectorIndexReport `json:"vectorIndexes,omitempty"`
}

// IndexReport is the base table ("") or one index, and its partitions.
type IndexReport struct {
	Index      string            `json:"index"`
	Partitions []PartitionReport `json:"partitions"`
}

// PartitionReport is one partition: its hash range, size, totals and series.
type PartitionReport struct {
	Partition      int      `json:"partition"`
	HashLow        string   `json:"hashLow"`
	HashHigh       string   `json:"hashHigh"`
	Items          int64    `json:"items"`
	SizeBytes      int64    `json:"sizeBytes"`
	ReadUnits      float64  `json:"readUnits"`
	WriteUnits     float64  `json:"writeUnits"`
	ReadThrottles  float64  `json:"readThrottles"`
	WriteThrottles float64  `json:"writeThrottles"`
	Series         []Sample `json:"series"`
}

// Sample is one time bucket of a partition's series; T is its start.
type Sample struct {
	T              int64   `json:"t"`
	ReadUnits      float64 `json:"readUnits"`
	WriteUnits     float64 `json:"writeUnits"`
	ReadThrottles  float64 `json:"readThrottles"`
	WriteThrottles float64 `json:"writeThrottles"`
}

// TopKeys are the hottest keys, at most TopN each, hottest first.
type TopKeys struct {
	ByUnits     []KeyReport `json:"byUnits"`
	ByThrottles []KeyReport `json:"byThrottles"`
}

// KeyReport is one hot key: a partition key (SortKey nil) or a whole key.
type KeyReport struct {
	Index        string      `json:"index"`
	PartitionKey *attr.Value `json:"partitionKey"`
	SortKey      *attr.Value `json:"sortKey"`
	Partition    int         `json:"partition"`
	ReadUnits    float64     `json:"readUnits"`
	WriteUnits   float64     `json:"writeUnits"`
	Throttles    float64     `json:"throttles"`
}

// Collection is one item collection (the items of one partition key value).
type Collection struct {
	Index        string      `json:"index"`
	PartitionKey *attr.Value `json:"partitionKey"`
	SizeBytes    int64       `json:"sizeBytes"`
	Items        int64       `json:"items"`
}

// Amplification compares what reads read with what they returned.
type Amplification struct {
	ItemsRead            int64   `json:"itemsRead"`
	ItemsReturned        int64   `json:"itemsReturned"`
	UnitsRead            float64 `json:"unitsRead"`
	UnitsPerReturnedItem float64 `json:"unitsPerReturnedItem"`
	ScanReadShare        float64 `json:"scanReadShare"`
}

// Warning is one finding about the key design or the access pattern.
type Warning struct {
	Kind    string `json:"kind"`
	Index   string `json:"index"`
	Message string `json:"message"`
	Remedy  string `json:"remedy"`
}

// TopN is how many keys and collections a report lists.
const TopN = 10

// hex64 renders a hash bound as the JSON contract writes it.
func hex64(h uint64) string { return fmt.Sprintf("0x%016x", h) }
