package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// BenchmarkEventualReads measures eventually consistent GetItem and Query
// with lag 0 and 1 s while another client keeps writing to the same table:
// the cost of the history overlay.
//
//	go test -run XXX -bench EventualReads ./integration/
func BenchmarkEventualReads(b *testing.B) {
	for _, lag := range []time.Duration{0, time.Second} {
		for _, op := range []string{"GetItem", "Query"} {
			b.Run(fmt.Sprintf("lag=%s/%s", lag, op), func(b *testing.B) {
				ctx := context.Background()
				srv := startServer(b, table.Options{EventualLag: lagOf(lag)})
				c := srv.client("us-east-1")
				createTable(b, c, "Bench", true)
				const partitions, perPartition = 100, 20
				put := func(p, i int, v string) error {
					_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Bench"), Item: map[string]types.AttributeValue{
						"pk": s(fmt.Sprintf("p%03d", p)), "sk": s(fmt.Sprintf("s%03d", i)), "v": s(v)}})
					return err
				}
				for p := 0; p < partitions; p++ {
					for i := 0; i < perPartition; i++ {
						if err := put(p, i, "initial"); err != nil {
							b.Fatal(err)
						}
					}
				}
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() { // the concurrent write load
					defer wg.Done()
					r := rand.New(rand.NewPCG(1, 2))
					for n := 0; ; n++ {
						select {
						case <-stop:
							return
						default:
						}
						put(r.IntN(partitions), r.IntN(perPartition), fmt.Sprint(n))
					}
				}()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					r := rand.New(rand.NewPCG(rand.Uint64(), 3))
					for pb.Next() {
						pk := s(fmt.Sprintf("p%03d", r.IntN(partitions)))
						var err error
						if op == "GetItem" {
							_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Bench"),
								Key: map[string]types.AttributeValue{"pk": pk, "sk": s(fmt.Sprintf("s%03d", r.IntN(perPartition)))}})
						} else {
							_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Bench"),
								KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": pk}})
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.StopTimer()
				close(stop)
				wg.Wait()
			})
		}
	}
}
