package kinesis

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
)

// Record is one change as DynamoDB writes it to a Kinesis data stream
// (the record's Data, JSON).
type Record struct {
	AwsRegion    string        `json:"awsRegion"`
	EventID      string        `json:"eventID"`
	EventName    string        `json:"eventName"`
	UserIdentity *UserIdentity `json:"userIdentity"`
	RecordFormat string        `json:"recordFormat"`
	TableName    string        `json:"tableName"`
	Dynamodb     Change        `json:"dynamodb"`
	EventSource  string        `json:"eventSource"`
}

// Change is a record's `dynamodb` member.
type Change struct {
	ApproximateCreationDateTime          int64 // in the precision below
	Keys                                 attr.Item
	NewImage                             attr.Item `json:",omitempty"`
	OldImage                             attr.Item `json:",omitempty"`
	SizeBytes                            int64
	ApproximateCreationDateTimePrecision string
}

// UserIdentity names who made a change: only Time to Live deletions carry
// one, the DynamoDB service's.
type UserIdentity struct {
	Type        string `json:"type"`
	PrincipalID string `json:"principalId"`
}

// Table is what a record says of its table.
type Table struct {
	Name     string
	Region   string   // the Region (awsRegion)
	KeyNames []string // the key schema's attributes
}

// Entry is one record ready for PutRecords.
type Entry struct {
	Seq          uint64 // its change-log sequence
	Time         int64  // its commit time, Unix nanoseconds
	PartitionKey string
	Data         []byte
}

// Render turns change-log record raw, at sequence seq, into the Kinesis
// entry a destination with precision sends. It returns false for a write
// that changed nothing (DynamoDB sends no record for it). tableID makes
// the eventID unique across tables and stable across deliveries of the
// same change.
func Render(t Table, tableID string, seq uint64, raw []byte, precision string) (Entry, bool, error) {
	rec, err := changelog.Decode(raw)
	if err != nil {
		return Entry{}, false, fmt.Errorf("kinesis: log record %d: %w", seq, err)
	}
	c, changed, err := attr.DecodeChange(rec.Old, rec.New)
	if err != nil || !changed {
		return Entry{}, false, err
	}
	r := Record{AwsRegion: t.Region, EventID: eventID(tableID, seq), EventName: c.EventName(), RecordFormat: "application/json",
		TableName: t.Name, EventSource: "aws:dynamodb"}
	if rec.Expired {
		r.UserIdentity = &UserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}
	}
	d := &r.Dynamodb
	d.ApproximateCreationDateTimePrecision = precision
	d.ApproximateCreationDateTime = rec.Time / int64(time.Millisecond)
	if precision == Microsecond {
		d.ApproximateCreationDateTime = rec.Time / int64(time.Microsecond)
	}
	d.Keys = c.Keys(t.KeyNames)
	d.NewImage, d.OldImage = c.New, c.Old
	d.SizeBytes = int64(d.Keys.Size() + c.New.Size() + c.Old.Size())
	data, err := json.Marshal(r)
	if err != nil {
		return Entry{}, false, err
	}
	return Entry{Seq: seq, Time: rec.Time, PartitionKey: partitionKey(rec.Key), Data: data}, true, nil
}

// eventID is a record's id, in a UUID's shape, the same each time the
// change is delivered.
func eventID(tableID string, seq uint64) string {
	h := fnv.New128a()
	fmt.Fprintf(h, "%s/%d", tableID, seq)
	s := hex.EncodeToString(h.Sum(nil))
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// partitionKey is the Kinesis partition key of an item's changes: one per
// item, so that they reach one shard, in order.
func partitionKey(key []byte) string {
	h := fnv.New128a()
	h.Write(key)
	return hex.EncodeToString(h.Sum(nil))
}
