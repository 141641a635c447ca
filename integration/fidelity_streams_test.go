package integration

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/ddblocal/ddblocal/table"
)

// TestListStreamsFromDeletedStream: ListStreams resumes after an
// ExclusiveStartStreamArn whose table was deleted, both while that stream
// is still listed (DISABLED, for 24 hours) and once it has expired and is
// gone: the listing goes on with the streams after it, never an error.
func TestListStreamsFromDeletedStream(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	gone := createStreamTable(t, c, "Bbb", types.StreamViewTypeKeysOnly)
	kept := createStreamTable(t, c, "Ccc", types.StreamViewTypeKeysOnly)
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Bbb")}); err != nil {
		t.Fatal(err)
	}
	after := func(when string, arn string) {
		t.Helper()
		l, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String(arn)})
		if err != nil {
			t.Fatalf("%s: ListStreams after %s: %v", when, arn, err)
		}
		if len(l.Streams) != 1 || aws.ToString(l.Streams[0].StreamArn) != kept || l.LastEvaluatedStreamArn != nil {
			t.Fatalf("%s: ListStreams after %s: got %+v, want only %s", when, arn, l.Streams, kept)
		}
	}
	after("deleted table", gone)
	advanceClock(t, srv.URL, 25*time.Hour)
	if _, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(gone)}); err == nil {
		t.Fatalf("the deleted table's stream is still described after 25 hours")
	}
	after("expired stream", gone)
}
