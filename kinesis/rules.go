package kinesis

import (
	"github.com/ddblocal/ddblocal/store"
)

// Error is a request the destination's state refuses, with DynamoDB's
// error code and message; the caller turns it into the service's error.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func validation(msg string) *Error { return &Error{Code: "ValidationException", Message: msg} }

// DynamoDB's messages (captured from the service, 2026-10): every refusal
// of a destination's state starts with the same clause, whichever
// operation it refuses.
const (
	notValidState   = "Table is not in a valid state to enable Kinesis Streaming Destination: "
	msgEnableState  = notValidState + "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation."
	msgDisableState = notValidState + "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation."
	msgDisableConf  = "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters"
	msgUpdateNull   = "Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values"
)

// The DestinationStatusDescription of a destination whose stream cannot be
// used, as DynamoDB words them: a stream it cannot find (or cannot reach)
// is described as a permission problem.
const (
	DescNoPermission = "User does not have a permission to use kinesis stream"
	DescOtherRegion  = "The kinesis Arn used to enable kinesis replication belongs to a stream which is not in the current region"
)

// Enable starts the destination for stream arn in table space sp, inside
// the transaction that enables it: ENABLING, delivering the writes after the
// log's last sequence. precision may be empty (not set). It refuses while
// any destination of the table is in flight or active; a DISABLED or
// ENABLE_FAILED destination for arn is enabled again, not duplicated. The
// caller marks the space's writes as logged.
func Enable(sp *store.Space, arn, precision string, now int64) (*Destination, error) {
	st, err := Load(sp)
	if err != nil {
		return nil, err
	}
	if st.Live() != nil {
		return nil, validation(msgEnableState)
	}
	d := st.Find(arn)
	if d == nil {
		d = &Destination{StreamArn: arn}
	}
	kept := []*Destination{d}
	for _, o := range st.Destinations {
		if o != d {
			kept = append(kept, o)
		}
	}
	st.Destinations = kept
	*d = Destination{StreamArn: arn, Status: Enabling, Precision: precision, Enabled: now, After: sp.LastLogSeq()}
	return d, st.save(sp)
}

// Disable starts disabling the destination for stream arn: DISABLING until
// the writes made so far are delivered. withConfig says the request carried
// an EnableKinesisStreamingConfiguration, which DynamoDB refuses. A
// destination already DISABLING stays so (DynamoDB answers such a repeat
// with DISABLING too).
func Disable(sp *store.Space, arn string, withConfig bool) (*Destination, error) {
	if withConfig {
		return nil, validation(msgDisableConf)
	}
	st, err := Load(sp)
	if err != nil {
		return nil, err
	}
	d := st.Find(arn)
	switch {
	case d != nil && d.Status == Disabling:
		return d, nil
	case d == nil || d.Status != Active:
		return nil, validation(msgDisableState)
	}
	d.Status, d.Until = Disabling, sp.LastLogSeq()
	return d, st.save(sp)
}

// Update changes the precision of the destination for stream arn:
// UPDATING, then ACTIVE. table and tableID name the table in DynamoDB's
// messages.
func Update(sp *store.Space, arn, precision, table, tableID string) (*Destination, error) {
	if precision == "" {
		return nil, validation(msgUpdateNull)
	}
	st, err := Load(sp)
	if err != nil {
		return nil, err
	}
	d := st.Find(arn)
	switch {
	case d == nil:
		return nil, validation(notValidState + "No streaming destination with streamArn: " + arn)
	case d.Status != Active:
		return nil, validation(notValidState + "Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. TableName: " + table)
	case d.EffectivePrecision() == precision:
		return nil, validation("Invalid Request: Precision is already set to the desired value of " + precision + " for tableId: " + tableID + ", kdsArn: " + arn)
	}
	d.Status, d.Precision = Updating, precision
	return d, st.save(sp)
}
