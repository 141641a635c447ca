package integration

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// BenchmarkPutItemGSIs measures PutItem throughput from parallel clients on
// a table with 0, 1 and 5 GSIs (every item carries every index key). Index
// maintenance is asynchronous, so the cost shows as applier CPU competing
// with the writers, not as write latency.
func BenchmarkPutItemGSIs(b *testing.B) {
	for _, count := range []int{0, 1, 5} {
		b.Run(fmt.Sprintf("gsis=%d", count), func(b *testing.B) {
			c := startServer(b, table.Options{}).client("us-east-1")
			defs := map[string]types.ScalarAttributeType{}
			var gsis []types.GlobalSecondaryIndex
			for i := range count {
				a := fmt.Sprintf("g%d", i)
				defs[a] = types.ScalarAttributeTypeS
				gsis = append(gsis, gsiDef("idx"+a, []string{a}, nil, types.ProjectionTypeAll))
			}
			createIndexed(b, c, "BenchGSI", false, defs, gsis, nil)
			var seq atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					i := seq.Add(1)
					it := ritem{"pk": s(fmt.Sprintf("k%09d", i)), "payload": s("0123456789abcdef0123456789abcdef")}
					for g := range count {
						it[fmt.Sprintf("g%d", g)] = s(fmt.Sprintf("v%d", i%64))
					}
					if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("BenchGSI"), Item: it}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			// Include the time for the appliers to catch up once: a GSI read
			// waits for them.
			if count > 0 {
				start := time.Now()
				if _, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("BenchGSI"), IndexName: aws.String("idxg0"),
					KeyConditionExpression: aws.String("g0 = :v"), ExpressionAttributeValues: rvals(":v", s("v1")), Select: types.SelectCount}); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Microseconds()), "settle-µs")
			}
		})
	}
}

// BenchmarkIndexVisibility measures the time from PutItem acknowledged to the
// item being returned by a GSI Query, while two background writers keep the
// applier busy; it reports p50 and p99.
func BenchmarkIndexVisibility(b *testing.B) {
	c := startServer(b, table.Options{}).client("us-east-1")
	createIndexed(b, c, "BenchVis", false, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeKeysOnly)}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				_, _ = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("BenchVis"),
					Item: ritem{"pk": s(fmt.Sprintf("bg%d-%d", w, i%5000)), "g": s(fmt.Sprintf("load%d", i%50))}})
			}
		}()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		g := fmt.Sprintf("probe%d", i)
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("BenchVis"),
			Item: ritem{"pk": s(fmt.Sprintf("p%d", i)), "g": s(g)}}); err != nil {
			b.Fatal(err)
		}
		acked := time.Now()
		for {
			out, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String("BenchVis"), IndexName: aws.String("byG"),
				KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: rvals(":g", s(g))})
			if err != nil {
				b.Fatal(err)
			}
			if len(out.Items) == 1 {
				break
			}
		}
		lat = append(lat, time.Since(acked))
	}
	b.StopTimer()
	cancel()
	wg.Wait()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
