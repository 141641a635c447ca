package replication

import (
	"time"

	"github.com/ddblocal/ddblocal/attr"
)

// LinkReport is one link of a global table, as GET
// /_ddblocal/replication reports it.
type LinkReport struct {
	Table     string `json:"table"`
	Account   string `json:"account"`
	Source    string `json:"sourceRegion"`
	Target    string `json:"targetRegion"`
	Watermark uint64 `json:"watermark"`
	Copying   bool   `json:"copying"`
	Paused    bool   `json:"paused"`
	// Backlog is how many of the source's own writes wait for the target,
	// LagMillis how long the oldest has waited.
	Backlog   int   `json:"backlog"`
	LagMillis int64 `json:"lagMillis"`
	Conflicts int64 `json:"conflicts"`
	// ReplicatedWriteUnits is the write capacity the link's writes consumed
	// in the target Region (rWCU/rWRU) since this process started it, and
	// Throttled how often the target's capacity held the link back.
	ReplicatedWriteUnits float64 `json:"replicatedWriteUnits"`
	Throttled            int64   `json:"throttled"`
}

// ConflictReport is a replicated write last-writer-wins discarded.
type ConflictReport struct {
	Table  string        `json:"table"`
	Region string        `json:"region"` // where the write was discarded
	Key    attr.Item     `json:"key"`    // the item's key, as DynamoDB JSON
	Winner ConflictWrite `json:"winner"`
	Loser  ConflictWrite `json:"loser"`
}

// ConflictWrite is one side of a conflict: its Region, commit time and
// whether it deleted the item.
type ConflictWrite struct {
	Region  string    `json:"region"`
	Time    time.Time `json:"time"`
	Deleted bool      `json:"deleted,omitempty"`
}

// Report is GET /_ddblocal/replication.
type Report struct {
	Links         []LinkReport     `json:"links"`
	PausedRegions []string         `json:"pausedRegions"`
	Conflicts     []ConflictReport `json:"conflicts"`
}
