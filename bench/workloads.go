package main

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// batchSize is BatchWriteItem's maximum number of requests per call.
const batchSize = 25

// workers makes the per-worker operations of the timed workloads. Each worker
// gets its own random source, so choosing keys needs no locking.
type workers struct {
	client *dynamodb.Client
	table  *string
	keys   keyspace
	seed   uint64
}

func (w workers) rng(worker int) *rand.Rand {
	return rand.New(rand.NewPCG(w.seed, uint64(worker)))
}

// newOp returns the constructor of worker operations for a timed workload
// name ("ceiling" is "get" sent to the ceiling handler's client).
func (w workers) newOp(name string) func(worker int) op {
	switch name {
	case "put":
		return func(id int) op { return w.put(w.rng(id)) }
	case "get", "ceiling":
		return func(id int) op { return w.get(w.rng(id)) }
	case "query":
		return func(id int) op { return w.query(w.rng(id)) }
	case "scan":
		return func(int) op { return w.scan() }
	case "batchwrite":
		return func(id int) op { return w.batchWrite(w.rng(id)) }
	case "mixed":
		return func(id int) op { return w.mixed(w.rng(id)) }
	}
	return nil
}

func (w workers) get(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		out, err := w.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: w.table, Key: key(w.keys.existingKey(r))})
		if err != nil || out.Item == nil {
			return 0, err
		}
		return 1, nil
	}
}

func (w workers) put(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		pk, sk := w.keys.newKey(r)
		_, err := w.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: w.table, Item: w.keys.item(r, pk, sk, r.IntN(100))})
		if err != nil {
			return 0, err
		}
		return 1, nil
	}
}

func (w workers) query(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		out, err := w.client.Query(ctx, &dynamodb.QueryInput{
			TableName:                 w.table,
			KeyConditionExpression:    aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: w.keys.randomPartition(r)}},
			Limit:                     aws.Int32(100),
		})
		if err != nil {
			return 0, err
		}
		return int(out.Count), nil
	}
}

// scan pages through the whole table, one page per operation, starting over
// after the last page; items are the page's ScannedCount (items read, before
// the 1 % filter).
func (w workers) scan() op {
	var next map[string]types.AttributeValue
	return func(ctx context.Context) (int, error) {
		out, err := w.client.Scan(ctx, &dynamodb.ScanInput{
			TableName:                 w.table,
			FilterExpression:          aws.String("f = :zero"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":zero": &types.AttributeValueMemberN{Value: "0"}},
			ExclusiveStartKey:         next,
		})
		if err != nil {
			next = nil // start over rather than repeat a failing page
			return 0, err
		}
		next = out.LastEvaluatedKey
		return int(out.ScannedCount), nil
	}
}

// batchWrite puts 25 new items per call; items are those processed
// (UnprocessedItems are counted as not written, not retried).
func (w workers) batchWrite(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		reqs := make([]types.WriteRequest, batchSize)
		for i := range reqs {
			pk, sk := w.keys.newKey(r)
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: w.keys.item(r, pk, sk, r.IntN(100))}}
		}
		out, err := w.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{*w.table: reqs},
		})
		if err != nil {
			return 0, err
		}
		return batchSize - len(out.UnprocessedItems[*w.table]), nil
	}
}

// mixed is 50 % get, 40 % put, 10 % query.
func (w workers) mixed(r *rand.Rand) op {
	get, put, query := w.get(r), w.put(r), w.query(r)
	return func(ctx context.Context) (int, error) {
		switch n := r.IntN(100); {
		case n < 50:
			return get(ctx)
		case n < 90:
			return put(ctx)
		default:
			return query(ctx)
		}
	}
}

// newSeed returns a seed that differs between runs, so repeated put runs
// write different keys.
func newSeed() uint64 { return uint64(time.Now().UnixNano()) }
