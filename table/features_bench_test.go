package table

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/ddb"
)

// featureTable returns a Service over an in-memory store with table "F"
// (pk S HASH, sk S RANGE, as bench's table) with feature on: "plain"
// (none), "stream" (NEW_AND_OLD_IMAGES), "gsi" (gsi1: sk HASH, pk RANGE,
// all attributes), "throttling" (every table throttled, at a capacity
// scale no benchmark reaches: admitted, never refused) or "sigv4"
// (resource-based policies enforced, as --credentials does: the requests
// of featureCtx carry a verified caller, who is judged on every lookup).
func featureTable(b *testing.B, feature string) *Service {
	b.Helper()
	var opts Options
	switch feature {
	case "throttling":
		opts = Options{Throttling: true, CapacityScale: 1e6}
	case "sigv4":
		opts = Options{Policies: auth.TablePolicy}
	}
	s := memService(b, opts)
	in := &ddb.CreateTableInput{TableName: "F", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}}
	switch feature {
	case "stream":
		on := true
		in.StreamSpecification = &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "NEW_AND_OLD_IMAGES"}
	case "gsi":
		in.GlobalSecondaryIndexes = []ddb.GlobalSecondaryIndex{{IndexName: "gsi1",
			KeySchema:  []ddb.KeySchemaElement{{AttributeName: "sk", KeyType: "HASH"}, {AttributeName: "pk", KeyType: "RANGE"}},
			Projection: &ddb.Projection{ProjectionType: "ALL"}}}
	}
	if _, err := s.CreateTable(context.Background(), "r", in); err != nil {
		b.Fatal(err)
	}
	return s
}

// featureCtx is the context of a request to featureTable's Service: with
// "sigv4", that of a caller whose signature the api layer verified (the
// verification itself is api's BenchmarkHandlerGetItemVerified).
func featureCtx(feature, operation string) context.Context {
	ctx := context.Background()
	if feature == "sigv4" {
		ctx = access.WithCaller(ctx, access.Caller{Account: access.DefaultAccount, AccessKey: "AKIDBENCH", Operation: operation})
	}
	return ctx
}

// BenchmarkPutItemFeatures is PutItem of new 200-byte items from 8
// goroutines with a table's feature off and on (throttling: every write
// admitted and charged), in process CPU per put
// (cpu-ns/op: the global index's applier runs on its own goroutine), the
// applier caught up at the end. Issue 31 asks each feature to cost at most
// 10 % of the writes it touches; bench measures it over HTTP.
//
//	go test -run XXX -bench PutItemFeatures -benchtime 100000x ./table/
func BenchmarkPutItemFeatures(b *testing.B) {
	for _, feature := range []string{"plain", "stream", "gsi", "throttling", "sigv4"} {
		b.Run(feature, func(b *testing.B) {
			s := featureTable(b, feature)
			ctx := featureCtx(feature, "PutItem")
			value := attr.String(strings.Repeat("v", 200))
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(4)
			b.ResetTimer()
			start := cpuTime(b)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					in := &ddb.PutItemInput{TableName: "F", Item: attr.Item{"pk": attr.String(fmt.Sprintf("p%09d", i)),
						"sk": attr.String(fmt.Sprintf("s%05d", i%1000)), "v": value, "f": attr.Int(i % 100)}}
					if _, err := s.PutItem(ctx, "r", in); err != nil {
						b.Error(err)
						return
					}
				}
			})
			if err := s.Settle(ctx); err != nil {
				b.Fatal(err)
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkGetItemFeatures is GetItem of 200-byte items (10,000, read at
// random) from 8 goroutines without and with throttling and a verified
// caller, the features that work on a read (a stream or a global index
// adds nothing to it): process CPU per read, the rendering of the answer
// included.
//
//	go test -run XXX -bench GetItemFeatures -benchtime 200000x ./table/
func BenchmarkGetItemFeatures(b *testing.B) {
	const items = 10000
	for _, feature := range []string{"plain", "throttling", "sigv4"} {
		b.Run(feature, func(b *testing.B) {
			s := featureTable(b, feature)
			ctx := featureCtx(feature, "GetItem")
			value := attr.String(strings.Repeat("v", 200))
			keys := make([]attr.Item, items)
			for i := range keys {
				keys[i] = attr.Item{"pk": attr.String(fmt.Sprintf("p%09d", i)), "sk": attr.String(fmt.Sprintf("s%05d", i%1000))}
				in := &ddb.PutItemInput{TableName: "F", Item: attr.Item{"pk": keys[i]["pk"], "sk": keys[i]["sk"], "v": value}}
				if _, err := s.PutItem(ctx, "r", in); err != nil {
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(4)
			b.ResetTimer()
			start := cpuTime(b)
			b.RunParallel(func(pb *testing.PB) {
				var buf []byte
				for pb.Next() {
					i := next.Add(7919) % items
					out, err := s.GetItem(ctx, "r", &ddb.GetItemInput{TableName: "F", Key: keys[i]})
					if err == nil {
						buf, err = renderResponse(buf[:0], out)
					}
					if err != nil || len(buf) < 200 {
						b.Errorf("GetItem: %v, %d bytes", err, len(buf))
						return
					}
				}
			})
			reportCPU(b, start)
		})
	}
}
