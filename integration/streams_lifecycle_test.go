package integration

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestStreamDisableReenable: a disabled stream keeps its records and stays
// listed, DISABLED, for 24 hours; a new stream gets a new ARN and only the
// changes after it; writes between the two are in neither.
func TestStreamDisableReenable(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	first := createStreamTable(t, c, "Cycle", types.StreamViewTypeKeysOnly)
	put := func(sk string) {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Cycle"), Item: item("p", sk, "1")}); err != nil {
			t.Fatal(err)
		}
	}
	setStream := func(on bool) {
		spec := &types.StreamSpecification{StreamEnabled: aws.Bool(on)}
		if on {
			spec.StreamViewType = types.StreamViewTypeNewImage
		}
		if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Cycle"), StreamSpecification: spec}); err != nil {
			t.Fatal(err)
		}
	}
	put("a")
	setStream(false)
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Cycle")})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(dt.Table.LatestStreamArn) != first || dt.Table.StreamSpecification != nil {
		t.Errorf("DescribeTable after disabling: got LatestStreamArn %v, StreamSpecification %+v; want %s, none",
			aws.ToString(dt.Table.LatestStreamArn), dt.Table.StreamSpecification, first)
	}
	put("b")
	setStream(true)
	put("c")
	second := streamARN(t, c, "Cycle")
	if second == first {
		t.Fatalf("re-enabled stream has the old ARN %s", first)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Cycle"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	wantAPIError(t, err, "ValidationException", "Table already has an enabled stream: TableName: Cycle")

	for _, tc := range []struct {
		arn  string
		want []change
	}{{first, []change{{"INSERT", "p", "a"}}}, {second, []change{{"INSERT", "p", "c"}}}} {
		got, _ := walkStream(t, sc, tc.arn)
		if g := changesOf(got); len(g) != len(tc.want) || g[0] != tc.want[0] {
			t.Errorf("stream %s: got %v, want %v", tc.arn, g, tc.want)
		}
	}
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	if err != nil {
		t.Fatal(err)
	}
	if d.StreamDescription.StreamStatus != stypes.StreamStatusDisabled || d.StreamDescription.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
		t.Errorf("disabled stream: got status %s, shard %+v", d.StreamDescription.StreamStatus, d.StreamDescription.Shards[0].SequenceNumberRange)
	}
	list := func() int {
		ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Cycle")})
		if err != nil {
			t.Fatal(err)
		}
		return len(ls.Streams)
	}
	if n := list(); n != 2 {
		t.Errorf("ListStreams: got %d streams, want 2", n)
	}
	if _, err := srv.clk.Advance(ctx, 24*time.Hour+time.Second); err != nil {
		t.Fatal(err)
	}
	if n := list(); n != 1 {
		t.Errorf("ListStreams after 24h: got %d streams, want 1", n)
	}
	_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(first)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+first+" not found")
}
