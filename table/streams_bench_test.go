package table

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/streams"
)

// streamBenchService returns a Service over an in-memory store with table
// "S" (pk S), whose stream is enabled when stream is true.
func streamBenchService(b *testing.B, stream bool) *Service {
	b.Helper()
	s := memService(b, Options{})
	in := &ddb.CreateTableInput{TableName: "S", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}}, KeySchema: []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}
	if stream {
		on := true
		in.StreamSpecification = &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "NEW_AND_OLD_IMAGES"}
	}
	if _, err := s.CreateTable(context.Background(), "r", in); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkPutItemStream is PutItem of a 200-byte item over 10,000 keys,
// with the table's stream off and on: the whole cost of a stream on the
// write path is its change-log record.
func BenchmarkPutItemStream(b *testing.B) {
	for _, stream := range []bool{false, true} {
		b.Run(fmt.Sprintf("stream=%v", stream), func(b *testing.B) {
			s := streamBenchService(b, stream)
			ctx := context.Background()
			value := attr.String(strings.Repeat("v", 200))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				in := &ddb.PutItemInput{TableName: "S", Item: attr.Item{"pk": attr.String(fmt.Sprintf("k%05d", i%10000)), "v": value}}
				if _, err := s.PutItem(ctx, "r", in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetRecordsCatchUp reads a stream of 100,000 changes from
// TRIM_HORIZON to the end, 1,000 records a call, as a consumer catching up.
func BenchmarkGetRecordsCatchUp(b *testing.B) {
	const changes = 100_000
	s := streamBenchService(b, true)
	ctx := context.Background()
	value := attr.String(strings.Repeat("v", 200))
	var batch []ddb.WriteRequest
	for i := range changes {
		batch = append(batch, ddb.WriteRequest{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(attr.Item{"pk": attr.String(fmt.Sprintf("k%06d", i)), "v": value})}})
		if len(batch) == 25 {
			if _, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"S": batch}}); err != nil {
				b.Fatal(err)
			}
			batch = nil
		}
	}
	ls, err := s.ListStreams(ctx, "r", &streams.ListStreamsInput{TableName: "S"})
	if err != nil {
		b.Fatal(err)
	}
	arn := ls.Streams[0].StreamArn
	d, err := s.DescribeStream(ctx, "r", &streams.DescribeStreamInput{StreamArn: arn})
	if err != nil {
		b.Fatal(err)
	}
	shard := d.StreamDescription.Shards[0].ShardId
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		it, err := s.GetShardIterator(ctx, "r", &streams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: "TRIM_HORIZON"})
		if err != nil {
			b.Fatal(err)
		}
		next, n := &it.ShardIterator, 0
		for {
			out, err := s.GetRecords(ctx, "r", &streams.GetRecordsInput{ShardIterator: *next})
			if err != nil {
				b.Fatal(err)
			}
			n += len(out.Records)
			if len(out.Records) == 0 {
				break
			}
			next = out.NextShardIterator
		}
		if n != changes {
			b.Fatalf("read %d records, want %d", n, changes)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*changes), "ns/record")
}
