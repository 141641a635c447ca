package integration

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// benchFrontEnds returns clients of n front-ends sharing a fresh table
// "bench" (pk S, sk S) holding 100 items under pk "p": n in-process servers
// over one embedded etcd member, or (n = 0) one server over memory.
func benchFrontEnds(b *testing.B, n int) []*dynamodb.Client {
	var cs []*dynamodb.Client
	if n == 0 {
		cs = append(cs, startServer(b, table.Options{}).client("us-east-1"))
	} else {
		c := etcdtest.StartT(b, 1)
		for range n {
			cs = append(cs, startFrontEnd(b, c.Endpoints(), "bench/").client("us-east-1"))
		}
	}
	createTable(b, cs[0], "bench", true)
	for i := range 100 {
		if _, err := cs[0].PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("bench"),
			Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s(fmt.Sprintf("%03d", i)), "v": s("0123456789abcdef0123456789abcdef")}}); err != nil {
			b.Fatal(err)
		}
	}
	return cs
}

// BenchmarkClusterOps compares GetItem, PutItem and Query (10 items) through
// one front-end on etcd with the in-process memory store, from parallel
// clients. The difference is etcd's round trips: a read is one or two
// linearizable reads, a write a few reads and one Raft commit.
func BenchmarkClusterOps(b *testing.B) {
	for _, mode := range []struct {
		name string
		n    int
	}{{"memory", 0}, {"etcd", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			c := benchFrontEnds(b, mode.n)[0]
			ops := map[string]func(ctx context.Context, i int64) error{
				"GetItem": func(ctx context.Context, i int64) error {
					_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("bench"), ConsistentRead: aws.Bool(true),
						Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s(fmt.Sprintf("%03d", i%100))}})
					return err
				},
				"PutItem": func(ctx context.Context, i int64) error {
					_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"),
						Item: map[string]types.AttributeValue{"pk": s(fmt.Sprintf("w%d", i)), "sk": s("x"), "v": s("0123456789abcdef0123456789abcdef")}})
					return err
				},
				"Query": func(ctx context.Context, i int64) error {
					_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("bench"), ConsistentRead: aws.Bool(true), Limit: aws.Int32(10),
						KeyConditionExpression:    aws.String("pk = :p AND sk >= :s"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p"), ":s": s(fmt.Sprintf("%03d", i%90))}})
					return err
				},
			}
			for _, name := range []string{"GetItem", "PutItem", "Query"} {
				op := ops[name]
				b.Run(name, func(b *testing.B) { runParallelOp(b, op) })
			}
		})
	}
}

// BenchmarkClusterFrontEnds measures PutItem throughput (distinct items,
// parallel clients spread evenly) through 1 and 2 front-ends on one etcd.
// On one machine both front-ends and etcd share the CPUs, so this shows
// the cost of coordination (conflicting commits on a table's counters),
// not the gain of more machines.
func BenchmarkClusterFrontEnds(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("frontends=%d", n), func(b *testing.B) {
			cs := benchFrontEnds(b, n)
			var client atomic.Int64
			var seq atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c := cs[int(client.Add(1))%len(cs)]
				ctx := context.Background()
				for pb.Next() {
					i := seq.Add(1)
					if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("bench"),
						Item: map[string]types.AttributeValue{"pk": s(fmt.Sprintf("f%d", i)), "sk": s("x")}}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// runParallelOp runs op from parallel goroutines b.N times in all.
func runParallelOp(b *testing.B, op func(ctx context.Context, i int64) error) {
	var seq atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := op(ctx, seq.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
