package kinesis

import (
	"fmt"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

// A destination's DestinationStatus.
const (
	Enabling     = "ENABLING"
	Active       = "ACTIVE"
	Updating     = "UPDATING"
	Disabling    = "DISABLING"
	Disabled     = "DISABLED"
	EnableFailed = "ENABLE_FAILED"
)

// The timestamp precisions of ApproximateCreationDateTime.
const (
	Millisecond = "MILLISECOND"
	Microsecond = "MICROSECOND"
)

// Retention is how long a destination that cannot deliver keeps its
// undelivered records before it skips them.
const Retention = 24 * time.Hour

// metaName is the table space meta holding the table's destinations.
const metaName = "kinesis"

// Destination is one Kinesis streaming destination of a table.
type Destination struct {
	StreamArn   string
	Status      string
	Description string `json:",omitempty"` // DestinationStatusDescription
	// Precision is ApproximateCreationDateTimePrecision as set by Enable or
	// Update; empty when never set (records then use MILLISECOND, and
	// Describe shows no precision, as DynamoDB's does).
	Precision string `json:",omitempty"`
	// Enabled is when the destination was last enabled (Unix nanoseconds):
	// it tells a delivery that finished after a re-enable to keep away.
	Enabled int64
	// After is the change-log sequence delivered through.
	After uint64
	// Until is, while DISABLING, the last sequence to deliver.
	Until uint64 `json:",omitempty"`
}

// EffectivePrecision is the precision the destination's records use.
func (d *Destination) EffectivePrecision() string {
	if d.Precision == "" {
		return Millisecond
	}
	return d.Precision
}

// live reports whether d is one of a table's at most one destination in
// flight or active.
func (d *Destination) live() bool {
	switch d.Status {
	case Enabling, Active, Updating, Disabling:
		return true
	}
	return false
}

// delivering reports whether d's Deliverer sends it records.
func (d *Destination) delivering() bool {
	return d.Status == Active || d.Status == Updating || d.Status == Disabling
}

// State is every destination of one table, the most recently enabled first.
type State struct {
	Destinations []*Destination
}

// Load returns the destinations kept in table space sp (empty when none).
func Load(sp *store.Space) (*State, error) {
	st := &State{}
	if err := sp.GetMetaJSON(metaName, st); err != nil {
		return nil, fmt.Errorf("kinesis: corrupt state: %w", err)
	}
	return st, nil
}

func (st *State) save(sp *store.Space) error { return sp.PutMetaJSON(metaName, st) }

// Find returns the destination for stream arn, or nil.
func (st *State) Find(arn string) *Destination {
	for _, d := range st.Destinations {
		if d.StreamArn == arn {
			return d
		}
	}
	return nil
}

// Live returns the destination in flight or active, or nil.
func (st *State) Live() *Destination {
	for _, d := range st.Destinations {
		if d.live() {
			return d
		}
	}
	return nil
}

// Floor returns the change-log sequence after which table space sp's
// destinations still need records, and false when none needs any.
func Floor(sp *store.Space) (uint64, bool) {
	st, err := Load(sp)
	if err != nil {
		return 0, true // keep everything rather than trim what may be needed
	}
	d := st.Live()
	if d == nil {
		return 0, false
	}
	return d.After, true
}
