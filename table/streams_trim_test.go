package table

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
)

// TestStreamShardsTrimmed: a stream's shards roll over every hour for two
// days of the movable clock; shards past the 24 h retention leave the
// stored list, so it stops growing, while the shards still listed keep
// their ids and parents and stay readable.
func TestStreamShardsTrimmed(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clk := clock.Manual(time.Unix(1_700_000_000, 0))
	s := New(db, Options{Now: clk.Now, StreamShards: streams.Policy{Duration: time.Hour}})
	defer s.Close()
	s.RunOnMove(clk)
	on := true
	out, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "A", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		StreamSpecification:  &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "KEYS_ONLY"}})
	if err != nil {
		t.Fatal(err)
	}
	arn, tableID := out.TableDescription.LatestStreamArn, ""
	if m, err := s.catalog.get(db, "r", "A"); err == nil && m != nil {
		tableID = m.ID
	}
	const hours = 48
	ids := rollShardsHourly(t, s, clk, arn, hours)
	var stored int
	err = db.View(func(tx *store.Tx) error {
		st, err := streams.Load(tx.Space(tableID))
		if err == nil && st.Current() != nil {
			stored = len(st.Current().Shards)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Shards closed within the last 24 h, the one closed exactly then, and the open one.
	if want := int(streams.Retention/time.Hour) + 2; stored > want || stored == 0 {
		t.Errorf("stored shards after %d hourly rollovers: got %d, want at most %d", hours, stored, want)
	}
	readKeptShards(t, s, arn, ids[0])
}

// rollShardsHourly writes an item to table A and moves the clock an hour,
// hours times, checking after each that every listed shard's parent is
// the shard listed before it; it returns every shard id listed, oldest
// first.
func rollShardsHourly(t *testing.T, s *Service, clk *clock.Clock, arn string, hours int) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for h := range hours {
		if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: attr.Item{"pk": attr.String(fmt.Sprint(h))}}); err != nil {
			t.Fatal(err)
		}
		if _, err := clk.Advance(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
		d, err := s.DescribeStream(ctx, "r", &streams.DescribeStreamInput{StreamArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range d.StreamDescription.Shards {
			known := -1
			for i, id := range ids {
				if id == sh.ShardId {
					known = i
				}
			}
			if known < 0 {
				ids, known = append(ids, sh.ShardId), len(ids)
			}
			if known > 0 && sh.ParentShardId != ids[known-1] {
				t.Fatalf("hour %d: shard %s: got parent %q, want %q", h, sh.ShardId, sh.ParentShardId, ids[known-1])
			}
		}
	}
	return ids
}

// readKeptShards checks that paging on from trimmed shard trimmed starts at
// the first shard kept, and that a shard listed mid-way, its record 12 h
// old, reads through its own id.
func readKeptShards(t *testing.T, s *Service, arn, trimmed string) {
	t.Helper()
	ctx := context.Background()
	d, err := s.DescribeStream(ctx, "r", &streams.DescribeStreamInput{StreamArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	// Paging on from a shard that was trimmed starts at the first kept.
	after, err := s.DescribeStream(ctx, "r", &streams.DescribeStreamInput{StreamArn: arn, ExclusiveStartShardId: trimmed})
	if err != nil || after.StreamDescription.Shards[0].ShardId != d.StreamDescription.Shards[0].ShardId {
		t.Errorf("DescribeStream after trimmed shard %s: got %v, %v, want the list from %s", trimmed, after, err, d.StreamDescription.Shards[0].ShardId)
	}
	first := d.StreamDescription.Shards[len(d.StreamDescription.Shards)/2]
	it, err := s.GetShardIterator(ctx, "r", &streams.GetShardIteratorInput{StreamArn: arn, ShardId: first.ShardId, ShardIteratorType: "TRIM_HORIZON"})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.GetRecords(ctx, "r", &streams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs.Records) != 1 || recs.Records[0].Dynamodb.SequenceNumber < first.SequenceNumberRange.StartingSequenceNumber ||
		recs.Records[0].Dynamodb.SequenceNumber > first.SequenceNumberRange.EndingSequenceNumber {
		t.Errorf("GetRecords on %s (%v): got %d records %+v, want its one record", first.ShardId, first.SequenceNumberRange, len(recs.Records), recs.Records)
	}
}
