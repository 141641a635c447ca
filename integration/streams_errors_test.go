package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestStreamRequestErrors: bad Streams requests get typed errors, never a 5xx.
func TestStreamRequestErrors(t *testing.T) {
	ctx := context.Background()
	srv := startClockServer(t, table.Options{})
	c, sc := srv.client("us-east-1"), streamsClient(srv.URL)
	arn := createStreamTable(t, c, "Errs", types.StreamViewTypeKeysOnly)
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/Nope/stream/2030-01-01T00:00:00.000"
	d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	tests := []struct {
		name      string
		call      func() error
		code, msg string
	}{
		{"unknown stream", func() error {
			_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(missing)})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Stream: " + missing + " not found"},
		{"unknown shard", func() error {
			_, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn),
				ShardId: aws.String("shardId-00000000000000000000-00000000"), ShardIteratorType: stypes.ShardIteratorTypeLatest})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Shard does not exist"},
		{"sequence number missing", func() error {
			_, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: shard,
				ShardIteratorType: stypes.ShardIteratorTypeAtSequenceNumber})
			return err
		}, "ValidationException", "SequenceNumber is required for ShardIteratorType AT_SEQUENCE_NUMBER"},
		{"limit too large", func() error {
			_, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("x"), Limit: aws.Int32(1001)})
			return err
		}, "ValidationException", "1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000"},
		{"garbage iterator", func() error {
			_, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("not-an-iterator")})
			return err
		}, "ValidationException", "Invalid ShardIterator"},
		{"list of a missing table", func() error {
			_, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Nope")})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantAPIError(t, tc.call(), tc.code, tc.msg) })
	}
}
