package main

import (
	"context"
	"math/rand/v2"
	"time"
)

// batchSize is BatchWriteItem's maximum number of requests per call.
const batchSize = 25

// workers makes the per-worker operations of the timed workloads. Each worker
// gets its own random source, so choosing keys needs no locking, and with
// several endpoints (front-ends of one cluster) worker i sends to endpoint
// i mod n.
type workers struct {
	clients []*wireClient // one per endpoint
	client  *wireClient   // this worker's (at), else the first endpoint's
	table   string
	keys    keyspace
	seed    uint64
}

func (w workers) rng(worker int) *rand.Rand {
	return rand.New(rand.NewPCG(w.seed, uint64(worker)))
}

// at returns w as worker id uses it: sending to its endpoint.
func (w workers) at(id int) workers {
	w.client = w.clients[id%len(w.clients)]
	return w
}

func (w workers) close() {
	for _, c := range w.clients {
		c.close()
	}
}

// newOp returns the constructor of worker operations for a timed workload
// name ("ceiling" is "get" sent to the ceiling handler's client).
func (w workers) newOp(name string) func(worker int) op {
	switch name {
	case "put":
		return func(id int) op { return w.at(id).put(w.rng(id)) }
	case "get", "ceiling":
		return func(id int) op { return w.at(id).get(w.rng(id)) }
	case "query":
		return func(id int) op { return w.at(id).query(w.rng(id)) }
	case "scan":
		return func(id int) op { return w.at(id).scan() }
	case "batchwrite":
		return func(id int) op { return w.at(id).batchWrite(w.rng(id)) }
	case "mixed":
		return func(id int) op { return w.at(id).mixed(w.rng(id)) }
	}
	return nil
}

func (w workers) get(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		var out getItemOutput
		err := w.client.call(ctx, "GetItem", mustJSON(getItemInput{TableName: w.table, Key: key(w.keys.existingKey(r))}), &out)
		if err != nil || !out.found {
			return 0, err
		}
		return 1, nil
	}
}

func (w workers) put(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		pk, sk := w.keys.newKey(r)
		err := w.client.call(ctx, "PutItem", mustJSON(putItemInput{TableName: w.table, Item: w.keys.item(r, pk, sk, r.IntN(100))}), nil)
		if err != nil {
			return 0, err
		}
		return 1, nil
	}
}

func (w workers) query(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		var out pageOutput
		err := w.client.call(ctx, "Query", mustJSON(queryInput{
			TableName:                 w.table,
			KeyConditionExpression:    "pk = :p",
			ExpressionAttributeValues: item{":p": {S: w.keys.randomPartition(r)}},
			Limit:                     100,
		}), &out)
		if err != nil {
			return 0, err
		}
		return out.Count, nil
	}
}

// scan pages through the whole table, one page per operation, starting over
// after the last page; items are the page's ScannedCount (items read, before
// the 1 % filter).
func (w workers) scan() op {
	var next item
	return func(ctx context.Context) (int, error) {
		var out pageOutput
		err := w.client.call(ctx, "Scan", mustJSON(scanInput{
			TableName:                 w.table,
			FilterExpression:          "f = :zero",
			ExpressionAttributeValues: item{":zero": {N: "0"}},
			ExclusiveStartKey:         next,
		}), &out)
		if err != nil {
			next = nil // start over rather than repeat a failing page
			return 0, err
		}
		next = out.LastEvaluatedKey
		return out.ScannedCount, nil
	}
}

// batchWrite puts 25 new items per call; items are those processed
// (UnprocessedItems are counted as not written, not retried).
func (w workers) batchWrite(r *rand.Rand) op {
	return func(ctx context.Context) (int, error) {
		reqs := make([]writeRequest, batchSize)
		for i := range reqs {
			pk, sk := w.keys.newKey(r)
			reqs[i] = writeRequest{PutRequest: putRequest{Item: w.keys.item(r, pk, sk, r.IntN(100))}}
		}
		var out batchWriteOutput
		err := w.client.call(ctx, "BatchWriteItem", mustJSON(batchWriteInput{RequestItems: map[string][]writeRequest{w.table: reqs}}), &out)
		if err != nil {
			return 0, err
		}
		return batchSize - len(out.UnprocessedItems[w.table]), nil
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
