package streams

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/changelog"
)

// Record is one stream record as GetRecords returns it.
type Record struct {
	EventID      string        `json:"eventID"`
	EventName    string        `json:"eventName"`
	EventVersion string        `json:"eventVersion"`
	EventSource  string        `json:"eventSource"`
	AwsRegion    string        `json:"awsRegion"`
	Dynamodb     StreamRecord  `json:"dynamodb"`
	UserIdentity *UserIdentity `json:"userIdentity,omitempty"`
}

// StreamRecord is a record's `dynamodb` member.
type StreamRecord struct {
	ApproximateCreationDateTime int64     `json:",omitempty"` // epoch seconds
	Keys                        attr.Item `json:",omitempty"`
	NewImage                    attr.Item `json:",omitempty"`
	OldImage                    attr.Item `json:",omitempty"`
	SequenceNumber              string
	SizeBytes                   int64
	StreamViewType              string
}

// UserIdentity names who made a change; only Time to Live deletions carry
// one, the DynamoDB service's.
type UserIdentity struct {
	PrincipalID string `json:"PrincipalId"`
	Type        string
}

// ttlIdentity is the identity of a Time to Live deletion.
var ttlIdentity = UserIdentity{PrincipalID: "dynamodb.amazonaws.com", Type: "Service"}

// Event version and source, as DynamoDB writes them.
const (
	eventVersion = "1.1"
	eventSource  = "aws:dynamodb"
)

// Render turns change-log record raw, at log sequence seq, into the stream
// record s shows. keyNames are the table's key attributes. It returns false
// for a write that changed nothing (DynamoDB writes no record for it).
func (s *Stream) Render(seq uint64, raw []byte, region string, keyNames []string) (Record, bool, error) {
	rec, err := changelog.Decode(raw)
	if err != nil {
		return Record{}, false, fmt.Errorf("streams: log record %d: %w", seq, err)
	}
	c, changed, err := attr.DecodeChange(rec.Old, rec.New)
	if err != nil || !changed {
		return Record{}, false, err
	}
	r := Record{EventID: eventID(s.Label, seq), EventName: c.EventName(), EventVersion: eventVersion, EventSource: eventSource, AwsRegion: region}
	if rec.Expired {
		id := ttlIdentity
		r.UserIdentity = &id
	}
	d := &r.Dynamodb
	d.ApproximateCreationDateTime = rec.Time / int64(time.Second)
	d.SequenceNumber, d.StreamViewType = SequenceNumber(seq), s.ViewType
	d.Keys = c.Keys(keyNames)
	size := d.Keys.Size()
	if s.ViewType == "NEW_IMAGE" || s.ViewType == "NEW_AND_OLD_IMAGES" {
		d.NewImage = c.New
		size += c.New.Size()
	}
	if s.ViewType == "OLD_IMAGE" || s.ViewType == "NEW_AND_OLD_IMAGES" {
		d.OldImage = c.Old
		size += c.Old.Size()
	}
	d.SizeBytes = int64(size)
	return r, true, nil
}

// eventID is a record's stable 32-hex-digit id.
func eventID(label string, seq uint64) string {
	h := fnv.New128a()
	fmt.Fprintf(h, "%s/%d", label, seq)
	return fmt.Sprintf("%x", h.Sum(nil))
}
