package integration

import (
	"context"
	"fmt"
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

// TestStreamShardFilterChildShards: DescribeStream with a CHILD_SHARDS
// ShardFilter lists only the children of the named shard.
func TestStreamShardFilterChildShards(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{StreamShards: streams.Policy{Records: 2}})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	arn := createStreamTable(t, c, "Kids", types.StreamViewTypeKeysOnly)
	for i := range 5 { // 2 records a shard: three shards
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Kids"), Item: item("p", fmt.Sprint(i), "1")}); err != nil {
			t.Fatal(err)
		}
		sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}) // rolls over when due
	}
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	all := d.StreamDescription.Shards
	if len(all) < 3 {
		t.Fatalf("got %d shards, want at least 3", len(all))
	}
	for i, sh := range all {
		f, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
			ShardFilter: &stypes.ShardFilter{Type: stypes.ShardFilterTypeChildShards, ShardId: sh.ShardId}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range f.StreamDescription.Shards {
			got = append(got, aws.ToString(k.ShardId))
		}
		want := []string(nil)
		if i+1 < len(all) {
			want = []string{aws.ToString(all[i+1].ShardId)}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("children of shard %d: got %v, want %v", i, got, want)
		}
	}
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
		ShardFilter: &stypes.ShardFilter{Type: "PARENT_SHARDS", ShardId: all[0].ShardId}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]")
}

// TestStreamAtTimestamp: an AT_TIMESTAMP iterator starts at the first record
// whose ApproximateCreationDateTime is at or after Timestamp; a timestamp
// before every record starts at the oldest; one in the future is refused.
func TestStreamAtTimestamp(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	arn := createStreamTable(t, c, "AtTs", types.StreamViewTypeKeysOnly)
	var times []time.Time
	for i := range 3 {
		advance(t, srv.clk, 10*time.Second)
		times = append(times, srv.clk.Now())
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("AtTs"), Item: item("p", fmt.Sprint(i), "1")}); err != nil {
			t.Fatal(err)
		}
	}
	advance(t, srv.clk, 2*time.Second)
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	read := func(ts time.Time) []string {
		t.Helper()
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
			ShardIteratorType: stypes.ShardIteratorTypeAtTimestamp, Timestamp: aws.Time(ts)})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		if err != nil {
			t.Fatal(err)
		}
		var sks []string
		for _, r := range recs.Records {
			sks = append(sks, r.Dynamodb.Keys["sk"].(*stypes.AttributeValueMemberS).Value)
		}
		return sks
	}
	for _, tc := range []struct {
		name string
		ts   time.Time
		want string
	}{
		{"before every record", times[0].Add(-time.Hour), "[0 1 2]"},
		{"at the first", times[0], "[0 1 2]"},
		{"between", times[0].Add(time.Second), "[1 2]"},
		{"at the last", times[2], "[2]"},
		{"now, after every record", srv.clk.Now().Truncate(time.Millisecond), "[]"},
	} {
		if got := fmt.Sprint(read(tc.ts)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
	_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
		ShardIteratorType: stypes.ShardIteratorTypeAtTimestamp, Timestamp: aws.Time(srv.clk.Now().Add(time.Minute))})
	wantAPIError(t, err, "ValidationException", "")
	_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
		ShardIteratorType: stypes.ShardIteratorTypeAtTimestamp})
	wantAPIError(t, err, "ValidationException", "")
}

// TestStreamARNForms: an ARN that is no stream ARN is a ValidationException
// ("Invalid StreamArn"); a well-formed unknown one is ResourceNotFound; and
// ListStreams resumes after an ExclusiveStartStreamArn that is not listed.
func TestStreamARNForms(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	a := createStreamTable(t, c, "Aaa", types.StreamViewTypeKeysOnly)
	cc := createStreamTable(t, c, "Ccc", types.StreamViewTypeKeysOnly)
	bad := "arn:aws:dynamodb:us-east-1:000000000000:table/Aaa/index/byX/whatever"
	_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(bad)})
	wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
	_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(bad),
		ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: stypes.ShardIteratorTypeLatest})
	wantAPIError(t, err, "ValidationException", "Invalid StreamArn")
	unknown := "arn:aws:dynamodb:us-east-1:000000000000:table/Bbb/stream/2030-01-01T00:00:00.000"
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(unknown)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+unknown+" not found")
	l, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String(unknown)})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Streams) != 1 || aws.ToString(l.Streams[0].StreamArn) != cc || l.LastEvaluatedStreamArn != nil {
		t.Errorf("ListStreams after unknown Bbb: got %+v, want only %s", l.Streams, cc)
	}
	l, err = sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String(a)})
	if err != nil || len(l.Streams) != 1 || aws.ToString(l.Streams[0].StreamArn) != cc {
		t.Errorf("ListStreams after Aaa: got %+v, %v; want only %s", l, err, cc)
	}
}
