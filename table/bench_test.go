package table

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// benchService returns a Service over a fresh in-memory store with table
// "T" (pk S, sk S) holding one 100-item partition "target" plus others
// one-item partitions; every item has a 200-byte value and f = i % 100.
func benchService(b *testing.B, others int) *Service {
	b.Helper()
	s := memService(b, Options{})
	ctx := context.Background()
	_, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}})
	if err != nil {
		b.Fatal(err)
	}
	value := attr.String(strings.Repeat("v", 200))
	var batch []ddb.WriteRequest
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := s.BatchWriteItem(ctx, "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"T": batch}}); err != nil {
			b.Fatal(err)
		}
		batch = nil
	}
	add := func(pk, sk string, i int) {
		batch = append(batch, ddb.WriteRequest{PutRequest: &ddb.PutRequest{Item: attr.EncodeItem(attr.Item{
			"pk": attr.String(pk), "sk": attr.String(sk), "v": value, "f": attr.Int(int64(i % 100))})}})
		if len(batch) == 25 {
			flush()
		}
	}
	for i := 0; i < 100; i++ {
		add("target", fmt.Sprintf("s%03d", i), i)
	}
	for i := 0; i < others; i++ {
		add(fmt.Sprintf("p%07d", i), "s", i)
	}
	flush()
	return s
}

// BenchmarkQueryPartition queries one 100-item partition in tables with 1k
// and 100k other partitions, encoding each answer: the time must not grow
// with the others.
//
//	go test -run XXX -bench QueryPartition -benchmem ./table/
func BenchmarkQueryPartition(b *testing.B) {
	for _, others := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("others=%d", others), func(b *testing.B) {
			s := benchService(b, others)
			cond := "pk = :p"
			in := &ddb.QueryInput{TableName: "T", KeyConditionExpression: &cond}
			in.ExpressionAttributeValues = map[string]attr.Value{":p": attr.String("target")}
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime(b)
			var buf []byte
			for i := 0; i < b.N; i++ {
				out, err := s.Query(context.Background(), "r", in)
				if err != nil || out.Count != 100 {
					b.Fatalf("Query: %v, count %d", err, out.Count)
				}
				// As the api layer does: copy the rendered items into the
				// response, then release them.
				buf = append(buf[:0], out.RenderedItems...)
				out.Release()
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkScanFiltered scans a 100,000-item table with a 1 % filter,
// following LastEvaluatedKey, and reports items read per second.
//
//	go test -run XXX -bench ScanFiltered -benchmem ./table/
func BenchmarkScanFiltered(b *testing.B) {
	s := benchService(b, 100000)
	filter := "f = :zero"
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime(b)
	read := 0
	for i := 0; i < b.N; i++ {
		in := &ddb.ScanInput{TableName: "T", FilterExpression: &filter}
		in.ExpressionAttributeValues = map[string]attr.Value{":zero": attr.Int(0)}
		for {
			out, err := s.Scan(context.Background(), "r", in)
			if err != nil {
				b.Fatal(err)
			}
			read += out.ScannedCount
			next := out.LastEvaluatedKey
			out.Release() // as the api layer does once the page is encoded
			if next == nil {
				break
			}
			in.ExclusiveStartKey = next
		}
	}
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(float64(cpuTime(b)-start)/float64(read), "cpu-ns/item")
}

// BenchmarkBatchWrite writes 25 new items per BatchWriteItem call, each
// decoded from its DynamoDB-JSON as the api layer does, so that what a
// request costs from its items' bytes to the store is measured.
//
//	go test -run XXX -bench BatchWrite -benchmem ./table/
func BenchmarkBatchWrite(b *testing.B) {
	s := benchService(b, 0)
	value := strings.Repeat("v", 200)
	var js []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reqs := make([]ddb.WriteRequest, 25)
		for j := range reqs {
			js = fmt.Appendf(js[:0], `{"pk":{"S":"b%d"},"sk":{"S":"%d"},"v":{"S":"%s"}}`, i, j, value)
			var put ddb.PutRequest
			if err := put.Item.UnmarshalJSON(js); err != nil {
				b.Fatal(err)
			}
			reqs[j] = ddb.WriteRequest{PutRequest: &put}
		}
		if _, err := s.BatchWriteItem(context.Background(), "r", &ddb.BatchWriteItemInput{RequestItems: map[string][]ddb.WriteRequest{"T": reqs}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(25*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkGetItem reads one item by key and renders the response as the
// api layer does (the rendered item when there is one), so that the
// cost of decoding and re-encoding the stored item is measured.
//
//	go test -run XXX -bench GetItem -benchmem ./table/
func BenchmarkGetItem(b *testing.B) {
	s := benchService(b, 1000)
	in := &ddb.GetItemInput{TableName: "T", Key: attr.Item{"pk": attr.String("target"), "sk": attr.String("s042")}}
	var buf []byte
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime(b)
	for i := 0; i < b.N; i++ {
		out, err := s.GetItem(context.Background(), "r", in)
		if err != nil {
			b.Fatal(err)
		}
		if buf, err = renderResponse(buf[:0], out); err != nil || len(buf) < 200 {
			b.Fatalf("render: %v, %d bytes", err, len(buf))
		}
	}
	reportCPU(b, start)
}

// renderResponse appends out's item as the api encoder writes it: the
// rendered item when there is one, else its Item member.
func renderResponse(dst []byte, out *ddb.GetItemOutput) ([]byte, error) {
	dst = append(dst, `{"Item":`...)
	if out.RenderedItem != nil {
		dst = append(dst, out.RenderedItem...)
	} else {
		dst = attr.AppendItemJSON(dst, out.Item)
	}
	return append(dst, '}'), nil
}

// cpuTime returns the CPU time (user and system) the process has used: on a
// shared machine it varies far less than wall time, and it includes the
// garbage collector's work, which a server pays too.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process CPU time per op since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}
