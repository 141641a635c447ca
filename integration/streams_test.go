package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/streams"
	"github.com/ddblocal/ddblocal/table"
)

// change is what a test expects of one stream record.
type change struct{ event, pk, sk string }

func changesOf(recs []stypes.Record) []change {
	out := make([]change, len(recs))
	for i, r := range recs {
		k := r.Dynamodb.Keys
		out[i] = change{string(r.EventName), k["pk"].(*stypes.AttributeValueMemberS).Value, k["sk"].(*stypes.AttributeValueMemberS).Value}
	}
	return out
}

// item is pk, sk and v.
func item(pk, sk, v string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk), "v": n(v)}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}
}

// TestStreamConsumerWalksShardTree writes puts, updates, deletes, a no-op,
// a transaction and a batch across several shard rollovers, and checks that
// a consumer walking the shard tree reads every change exactly once, in
// order, with strictly increasing sequence numbers.
func TestStreamConsumerWalksShardTree(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{StreamShards: streams.Policy{Records: 4}})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	arn := createStreamTable(t, c, "Orders", types.StreamViewTypeNewAndOldImages)

	var want []change
	for i := range 6 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item("p", fmt.Sprint(i), "1")}); err != nil {
			t.Fatal(err)
		}
		want = append(want, change{"INSERT", "p", fmt.Sprint(i)})
	}
	// The same item again changes nothing: no record.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item("p", "0", "1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item("p", "0", "2")}); err != nil {
		t.Fatal(err)
	}
	want = append(want, change{"MODIFY", "p", "0"})
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: key("p", "1")}); err != nil {
		t.Fatal(err)
	}
	want = append(want, change{"REMOVE", "p", "1"})
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Orders"), Item: item("t", "a", "1")}},
		{Delete: &types.Delete{TableName: aws.String("Orders"), Key: key("p", "2")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, change{"INSERT", "t", "a"}, change{"REMOVE", "p", "2"})
	var puts []types.WriteRequest
	for i := range 5 {
		puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: item("b", fmt.Sprint(i), "1")}})
	}
	if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Orders": puts}}); err != nil {
		t.Fatal(err)
	}
	got, shards := walkStream(t, sc, arn)
	// A batch's items may be applied in any order; compare them as a set.
	batch := got[len(got)-min(5, len(got)):]
	slices.SortFunc(batch, func(x, y stypes.Record) int {
		return strings.Compare(x.Dynamodb.Keys["sk"].(*stypes.AttributeValueMemberS).Value, y.Dynamodb.Keys["sk"].(*stypes.AttributeValueMemberS).Value)
	})
	for i := range 5 {
		want = append(want, change{"INSERT", "b", fmt.Sprint(i)})
	}
	if g := changesOf(got); !slices.Equal(g, want) {
		t.Fatalf("records across %d shards:\n got %v\nwant %v", shards, g, want)
	}
	if shards < 4 {
		t.Errorf("shards: got %d, want at least 4 (rollover every 4 changes)", shards)
	}
	for i := 1; i < len(got); i++ {
		if a, b := *got[i-1].Dynamodb.SequenceNumber, *got[i].Dynamodb.SequenceNumber; a >= b && i < len(got)-5 {
			t.Errorf("sequence numbers not increasing: %s then %s", a, b)
		}
	}
	r := got[6] // the MODIFY
	if r.EventSource == nil || *r.EventSource != "aws:dynamodb" || *r.EventVersion != "1.1" || *r.AwsRegion != "us-east-1" ||
		len(*r.EventID) != 32 || len(*r.Dynamodb.SequenceNumber) != 21 || r.Dynamodb.StreamViewType != stypes.StreamViewTypeNewAndOldImages ||
		!r.Dynamodb.ApproximateCreationDateTime.Equal(streamStart) || r.UserIdentity != nil {
		t.Errorf("MODIFY record: got %+v", r)
	}
	if v := r.Dynamodb.NewImage["v"].(*stypes.AttributeValueMemberN).Value; v != "2" {
		t.Errorf("MODIFY NewImage v: got %s, want 2", v)
	}
	if v := r.Dynamodb.OldImage["v"].(*stypes.AttributeValueMemberN).Value; v != "1" {
		t.Errorf("MODIFY OldImage v: got %s, want 1", v)
	}
	// Reading again from the start of the tree gives the same records.
	again, _ := walkStream(t, sc, arn)
	if len(again) != len(got) {
		t.Errorf("second walk: got %d records, want %d", len(again), len(got))
	}
}

// TestStreamViewTypes checks which images each view type carries.
func TestStreamViewTypes(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	tests := []struct {
		vt       types.StreamViewType
		old, new bool
	}{
		{types.StreamViewTypeKeysOnly, false, false},
		{types.StreamViewTypeNewImage, false, true},
		{types.StreamViewTypeOldImage, true, false},
		{types.StreamViewTypeNewAndOldImages, true, true},
	}
	for _, tc := range tests {
		name := "View_" + string(tc.vt)
		arn := createStreamTable(t, c, name, tc.vt)
		for _, v := range []string{"1", "2"} {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item("a", "b", v)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: key("a", "b")}); err != nil {
			t.Fatal(err)
		}
		recs, _ := walkStream(t, sc, arn)
		if len(recs) != 3 {
			t.Fatalf("%s: got %d records, want 3", tc.vt, len(recs))
		}
		for i, r := range recs {
			wantNew := tc.new && i < 2
			wantOld := tc.old && i > 0
			if (r.Dynamodb.NewImage != nil) != wantNew || (r.Dynamodb.OldImage != nil) != wantOld || len(r.Dynamodb.Keys) != 2 ||
				string(r.Dynamodb.StreamViewType) != string(tc.vt) || *r.Dynamodb.SizeBytes <= 0 {
				t.Errorf("%s record %d (%s): got new=%v old=%v keys=%d type=%s size=%d; want new=%v old=%v",
					tc.vt, i, r.EventName, r.Dynamodb.NewImage != nil, r.Dynamodb.OldImage != nil, len(r.Dynamodb.Keys),
					r.Dynamodb.StreamViewType, *r.Dynamodb.SizeBytes, wantNew, wantOld)
			}
		}
	}
	ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{Limit: aws.Int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Streams) != 3 || ls.LastEvaluatedStreamArn == nil {
		t.Fatalf("ListStreams Limit 3: got %d streams, last %v", len(ls.Streams), ls.LastEvaluatedStreamArn)
	}
	ls2, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: ls.LastEvaluatedStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls2.Streams) != 1 || ls2.LastEvaluatedStreamArn != nil {
		t.Errorf("ListStreams second page: got %d streams, last %v; want 1, none", len(ls2.Streams), ls2.LastEvaluatedStreamArn)
	}
}

// TestStreamExpiredAndTrimmed moves the clock past an iterator's 15 minutes
// and a record's 24 hours.
func TestStreamExpiredAndTrimmed(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	arn := createStreamTable(t, c, "Expiring", types.StreamViewTypeKeysOnly)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Expiring"), Item: item("a", "b", "1")}); err != nil {
		t.Fatal(err)
	}
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	first := d.StreamDescription.Shards[0].SequenceNumberRange.StartingSequenceNumber
	iter := func() *string {
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
			ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			t.Fatal(err)
		}
		return it.ShardIterator
	}
	it := iter()
	if _, err := srv.clk.Advance(ctx, 15*time.Minute+time.Second); err != nil {
		t.Fatal(err)
	}
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	wantAPIError(t, err, "ExpiredIteratorException",
		"Iterator expired. The iterator was created at time Tue Jan 01 00:00:00 UTC 2030 while right now it is Tue Jan 01 00:15:01 UTC 2030 which is further in the future than the tolerated delay of 900000 milliseconds.")

	// An iterator taken just before the record turns 24 hours old finds it
	// trimmed a few minutes later.
	if _, err := srv.clk.Advance(ctx, 23*time.Hour+40*time.Minute); err != nil {
		t.Fatal(err)
	}
	it = iter()
	if _, err := srv.clk.Advance(ctx, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	wantAPIError(t, err, "TrimmedDataAccessException", "The operation attempted to read past the oldest stream record in a shard.")
	_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
		ShardIteratorType: stypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: first})
	wantAPIError(t, err, "TrimmedDataAccessException", "The operation attempted to read past the oldest stream record in a shard.")
	// TRIM_HORIZON now starts after the trimmed record: nothing to read.
	out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter()})
	if err != nil || len(out.Records) != 0 {
		t.Fatalf("GetRecords from TRIM_HORIZON after 24h: got %d records, %v; want 0, nil", len(out.Records), err)
	}
}
