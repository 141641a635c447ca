package streams

import (
	"math"
	"time"

	"github.com/ddblocal/ddblocal/changelog"
	"github.com/ddblocal/ddblocal/store"
)

// Table is what the stream operations need to know of the table a stream
// belongs to.
type Table struct {
	Region, Name string
	ARN          string // the table's ARN
	KeySchema    []KeyElement
}

// ARN is stream s's ARN.
func (t Table) StreamARN(s *Stream) string { return t.ARN + "/stream/" + s.Label }

func (t Table) keyNames() []string {
	names := make([]string, len(t.KeySchema))
	for i, k := range t.KeySchema {
		names[i] = k.AttributeName
	}
	return names
}

// maxBytes bounds one GetRecords answer, as DynamoDB does.
const maxBytes = 1 << 20

// Describe answers DescribeStream for stream s of table t, read in table
// space sp at now.
func (s *Stream) Describe(t Table, in *DescribeStreamInput, now int64) (*DescribeStreamOutput, error) {
	d := Description{StreamArn: t.StreamARN(s), StreamLabel: s.Label, StreamStatus: "ENABLED", StreamViewType: s.ViewType,
		CreationRequestDateTime: float64(s.Created/int64(time.Millisecond)) / 1000, TableName: t.Name, KeySchema: t.KeySchema,
		Shards: []ShardDescription{}}
	if s.Disabled != 0 {
		d.StreamStatus = "DISABLED"
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	i := 0
	if in.ExclusiveStartShardId != "" {
		// A trimmed shard was before every shard kept: start at the first.
		if i = s.shardIndex(in.ExclusiveStartShardId) + 1; i == 0 && !s.wasTrimmed(in.ExclusiveStartShardId) {
			return nil, notFound("Requested resource not found: Shard does not exist")
		}
	}
	parent, filtered := childrenOf(in.ShardFilter)
	for ; i < len(s.Shards); i++ {
		if !s.visible(i, now) || (filtered && s.parent(i) != parent) {
			continue
		}
		if len(d.Shards) == limit {
			d.LastEvaluatedShardId = d.Shards[limit-1].ShardId
			break
		}
		d.Shards = append(d.Shards, s.describeShard(i))
	}
	return &DescribeStreamOutput{StreamDescription: d}, nil
}

// childrenOf returns the parent shard id a ShardFilter asks the children
// of, and whether it filters at all (a CHILD_SHARDS filter naming a shard).
func childrenOf(f *ShardFilter) (string, bool) {
	if f == nil || f.Type != "CHILD_SHARDS" || f.ShardId == "" {
		return "", false
	}
	return f.ShardId, true
}

func (s *Stream) describeShard(i int) ShardDescription {
	sh := s.Shards[i]
	sd := ShardDescription{ShardId: s.ShardID(i), SequenceNumberRange: SequenceNumberRange{StartingSequenceNumber: SequenceNumber(sh.After + 1)}}
	if !sh.Open && sh.End > sh.After {
		sd.SequenceNumberRange.EndingSequenceNumber = SequenceNumber(sh.End)
	}
	sd.ParentShardId = s.parent(i)
	return sd
}

// bound is the last log sequence shard i may hold now: its end once closed,
// else the log's last, cut at the rollover policy's record count.
func (s *Stream) bound(i int, p Policy, last uint64) uint64 {
	sh := s.Shards[i]
	if !sh.Open {
		return sh.End
	}
	if p.Records > 0 {
		last = min(last, sh.After+p.Records)
	}
	return last
}

// retained returns the first log sequence a stream may still read at now:
// records at or before the cutoff are trimmed even when the log's trimmer
// has not deleted them yet, so what a reader sees depends on the clock only.
func retained(sp *store.Space, now int64) uint64 {
	cutoff := now - int64(Retention)
	first := sp.LastLogSeq() + 1
	sp.AscendLog(0, func(seq uint64, raw []byte) bool {
		rec, err := changelog.Decode(raw)
		if err == nil && rec.Time <= cutoff {
			return true
		}
		first = seq
		return false
	})
	return first
}

// Iterator answers GetShardIterator for stream s of table t in space sp.
func (s *Stream) Iterator(t Table, sp *store.Space, in *GetShardIteratorInput, p Policy, now int64) (*GetShardIteratorOutput, error) {
	i := s.shardIndex(in.ShardId)
	if i < 0 || !s.visible(i, now) {
		return nil, notFound("Requested resource not found: Shard does not exist")
	}
	sh, end := s.Shards[i], s.bound(i, p, sp.LastLogSeq())
	it := iterator{arn: t.StreamARN(s), shard: s.Trimmed + i, issued: now}
	if err := checkIteratorInput(in, now); err != nil {
		return nil, err
	}
	switch in.ShardIteratorType {
	case "TRIM_HORIZON":
		it.next = min(max(sh.After+1, retained(sp, now)), end+1)
	case "LATEST":
		it.next = end + 1
	case "AT_TIMESTAMP":
		it.next = atTimestamp(sp, max(sh.After+1, retained(sp, now)), end, *in.Timestamp)
	default:
		seq, ok := parseSequence(in.SequenceNumber)
		if !ok || seq <= sh.After || (!sh.Open && seq > sh.End) {
			return nil, invalid("Invalid SequenceNumber %s for shard %s", in.SequenceNumber, in.ShardId)
		}
		if seq < retained(sp, now) {
			return nil, trimmed()
		}
		it.next = seq
		if in.ShardIteratorType == "AFTER_SEQUENCE_NUMBER" {
			it.next++
		}
	}
	return &GetShardIteratorOutput{ShardIterator: it.String()}, nil
}

// checkIteratorInput checks that SequenceNumber comes with exactly the
// iterator types that take one, and Timestamp with AT_TIMESTAMP, not in the
// future (the API reference: "If the timestamp is in the future, the request
// returns a ValidationException").
func checkIteratorInput(in *GetShardIteratorInput, now int64) error {
	typ := in.ShardIteratorType
	withSeq := typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER"
	switch {
	case withSeq && in.SequenceNumber == "":
		return invalid("SequenceNumber is required for ShardIteratorType %s", typ)
	case !withSeq && in.SequenceNumber != "":
		return invalid("SequenceNumber may not be specified for ShardIteratorType %s", typ)
	case typ == "AT_TIMESTAMP" && in.Timestamp == nil:
		return invalid("Timestamp is required for ShardIteratorType %s", typ)
	case typ != "AT_TIMESTAMP" && in.Timestamp != nil:
		return invalid("Timestamp may not be specified for ShardIteratorType %s", typ)
	case in.Timestamp != nil && timestampMillis(*in.Timestamp) > now/int64(time.Millisecond):
		return invalid("The timestamp %s is in the future", time.UnixMilli(timestampMillis(*in.Timestamp)).UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// timestampMillis is an epoch-seconds Timestamp in whole milliseconds.
func timestampMillis(ts float64) int64 { return int64(math.Round(ts * 1000)) }

// atTimestamp is AT_TIMESTAMP's position in the shard's records from first
// to end: the first record whose ApproximateCreationDateTime (the whole
// second it carries) is at or after ts, or end+1 when there is none yet.
// A ts before the trim horizon lands on first, the oldest record kept.
func atTimestamp(sp *store.Space, first, end uint64, ts float64) uint64 {
	want, next := timestampMillis(ts), end+1
	if first > end {
		return next
	}
	sp.AscendLog(first-1, func(seq uint64, raw []byte) bool {
		if seq > end {
			return false
		}
		rec, err := changelog.Decode(raw)
		if err == nil && rec.Time/int64(time.Second)*1000 >= want {
			next = seq
			return false
		}
		return true
	})
	return next
}

// ParseIterator decodes a shard iterator into its stream's ARN.
func ParseIterator(s string) (arn string, err error) {
	it, ok := parseIterator(s)
	if !ok {
		return "", invalid("Invalid ShardIterator")
	}
	return it.arn, nil
}

// Records answers GetRecords for stream s of table t in space sp.
func (s *Stream) Records(t Table, sp *store.Space, in *GetRecordsInput, p Policy, now int64) (*GetRecordsOutput, error) {
	it, ok := parseIterator(in.ShardIterator)
	i := it.shard - s.Trimmed // the iterator's shard in Shards
	if !ok || i < 0 || i >= len(s.Shards) || !s.visible(i, now) {
		return nil, invalid("Invalid ShardIterator")
	}
	if err := it.expired(now); err != nil {
		return nil, err
	}
	limit := 1000
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	out := &GetRecordsOutput{Records: []Record{}}
	end := s.bound(i, p, sp.LastLogSeq())
	if it.next <= end && it.next < retained(sp, now) {
		return nil, trimmed()
	}
	next, size, keys := it.next, 0, t.keyNames()
	var rerr error
	full := false // stopped at Limit or 1 MB, before the bound
	if next <= end {
		err := sp.AscendLog(next-1, func(seq uint64, raw []byte) bool {
			if seq > end {
				return false
			}
			r, ok, err := s.Render(seq, raw, t.Region, keys)
			if err != nil {
				rerr = err
				return false
			}
			if ok {
				if len(out.Records) > 0 && size+int(r.Dynamodb.SizeBytes) > maxBytes {
					full = true
					return false
				}
				out.Records, size = append(out.Records, r), size+int(r.Dynamodb.SizeBytes)
			}
			next = seq + 1
			full = len(out.Records) == limit && seq < end
			return !full
		})
		if err != nil {
			return nil, err
		}
		if rerr != nil {
			return nil, rerr
		}
		if !full {
			next = max(next, end+1) // scanned to the bound
		}
	}
	if sh := s.Shards[i]; sh.Open || next <= sh.End {
		n := iterator{arn: it.arn, shard: it.shard, next: next, issued: now}.String()
		out.NextShardIterator = &n
	}
	return out, nil
}
