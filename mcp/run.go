package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/clock"
)

// run is one evaluation's state: the scratch server, the workload and
// what each pattern has seen so far.
type run struct {
	ep    *Endpoint
	clk   *clock.Clock
	sc    schema
	m     Model
	scale float64
	rng   *rand.Rand // seeded: the same model gives the same report
	seq   int        // unique values for base keys and sort keys
	// indexed holds the patterns that Query or Scan an index, by the
	// index's partition key attribute: written items give that attribute
	// the pattern's key distribution.
	indexed    map[string]*Pattern
	preloadCap int
	stats      []patternStats
}

// patternStats is what one pattern has sent and seen.
type patternStats struct {
	due           float64 // requests owed (fractions carry over seconds)
	requests      int
	throttled     int
	throttleTypes map[string]int
	itemsRead     int
	itemsReturned int
	units         float64
	keys          int            // partition key values preloaded for reads
	next          map[string]any // a Scan's next ExclusiveStartKey
}

func newRun(ep *Endpoint, clk *clock.Clock, sc schema, m Model, scale float64, preloadCap int) *run {
	r := &run{ep: ep, clk: clk, sc: sc, m: m, scale: scale, rng: rand.New(rand.NewPCG(1, 2)),
		indexed: map[string]*Pattern{}, preloadCap: preloadCap, stats: make([]patternStats, len(m.AccessPatterns))}
	for i := range r.m.AccessPatterns {
		p := &r.m.AccessPatterns[i]
		r.stats[i].throttleTypes = map[string]int{}
		if p.IndexName != "" && p.Operation == "Query" {
			k, _ := sc.keysFor(p.IndexName)
			r.indexed[k.hash] = p
		}
	}
	return r
}

// pick draws a partition key number for p: the hot key 0 with probability
// HotKeyShare, otherwise one of DistinctKeys evenly.
func (r *run) pick(p *Pattern) int {
	if r.rng.Float64() < p.HotKeyShare {
		return 0
	}
	return r.rng.IntN(p.DistinctKeys)
}

// keyValue is partition key number n of p, shaped as p.KeyShape says.
func (r *run) keyValue(p *Pattern, attr string, n int) map[string]any {
	switch p.KeyShape {
	case "date":
		day := evalStart.AddDate(0, 0, -n)
		if r.sc.types[attr] == "N" {
			return map[string]any{"N": day.Format("20060102")}
		}
		return map[string]any{"S": day.Format(time.DateOnly)}
	case "sequence":
		return r.sc.value(attr, "", 1_000_000+n)
	}
	return r.scrambled(attr, n)
}

// scrambled is a value of attr for n that neither sorts nor counts like n,
// so the key-shape warnings see random keys.
func (r *run) scrambled(attr string, n int) map[string]any {
	h := int((uint64(n)*2654435761 + 40503) % 4294967291)
	return r.sc.typed(attr, fmt.Sprintf("%08x-k", h), h) // no trailing digits: not a sequence
}

// item builds an item whose keyAttr is partition key number key of p and
// whose sort key (of the table or p's index) is number sort; every other
// key attribute gets a value, the base table's keys unique ones.
func (r *run) item(p *Pattern, keyAttr string, key, sort int) map[string]any {
	it := map[string]any{}
	// sorted, so the seeded generator draws in the same order every run
	for _, attr := range slices.Sorted(maps.Keys(r.sc.types)) {
		it[attr] = r.scrambled(attr, r.rng.IntN(1000))
	}
	for _, attr := range slices.Sorted(maps.Keys(r.indexed)) {
		q := r.indexed[attr]
		it[attr] = r.keyValue(q, attr, r.pick(q)%r.preloadKeys(q))
	}
	r.seq++
	it[r.sc.keys.hash] = r.scrambled(r.sc.keys.hash, r.seq)
	if r.sc.keys.sort != "" {
		it[r.sc.keys.sort] = r.sc.value(r.sc.keys.sort, "s-", r.seq)
	}
	it[keyAttr] = r.keyValue(p, keyAttr, key)
	if k, _ := r.sc.keysFor(p.IndexName); k.sort != "" && k.hash == keyAttr {
		it[k.sort] = r.sc.value(k.sort, "s-", sort)
	}
	f := sort % 100 // spread evenly over 0..99 within a Query's items
	if p.Operation == "Query" {
		f = sort * 100 / p.ItemsPerQuery
	}
	it["f"] = map[string]any{"N": fmt.Sprint(f)}
	it["pad"] = map[string]any{"S": strings.Repeat("x", max(1, p.ItemSizeBytes-itemOverhead))}
	return it
}

// itemOverhead approximates the bytes of an item's keys and "f" attribute,
// so that an item's size is near ItemSizeBytes.
const itemOverhead = 60

// preloadKeys is how many partition key values of p have items to read.
func (r *run) preloadKeys(p *Pattern) int {
	per := max(1, r.preloadCap/max(1, len(r.m.AccessPatterns)))
	if p.Operation == "Query" {
		per = max(1, per/p.ItemsPerQuery)
	}
	return max(1, min(p.DistinctKeys, per))
}

// preload writes what the read patterns read: an item per key for GetItem,
// ItemsPerQuery items per key for Query, a spread of items for Scan.
func (r *run) preload(ctx context.Context) error {
	var items []map[string]any
	for i := range r.m.AccessPatterns {
		p := &r.m.AccessPatterns[i]
		k, _ := r.sc.keysFor(p.IndexName)
		n := r.preloadKeys(p)
		r.stats[i].keys = n
		switch p.Operation {
		case "GetItem":
			for key := range n {
				it := r.item(p, k.hash, key, 0)
				if k.sort != "" {
					it[k.sort] = r.sc.value(k.sort, "s-", 0)
				}
				items = append(items, it)
			}
		case "Query":
			for key := range n {
				for j := range p.ItemsPerQuery {
					items = append(items, r.item(p, k.hash, key, j))
				}
			}
		case "Scan":
			for j := range n {
				items = append(items, r.item(p, k.hash, j, j))
			}
		}
	}
	return batchWrite(ctx, r.ep, r.sc.name, items)
}

// throttleTypes are the errors DynamoDB throttles with.
var throttleTypes = []string{"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}

// request sends one request of pattern i and records what it saw.
func (r *run) request(ctx context.Context, i int) error {
	p, st := &r.m.AccessPatterns[i], &r.stats[i]
	op, in := r.build(p, st)
	in["TableName"] = r.sc.name
	in["ReturnConsumedCapacity"] = "TOTAL"
	var out struct {
		Count            int            `json:"Count"`
		ScannedCount     int            `json:"ScannedCount"`
		Item             map[string]any `json:"Item"`
		LastEvaluatedKey map[string]any `json:"LastEvaluatedKey"`
		ConsumedCapacity struct {
			CapacityUnits float64 `json:"CapacityUnits"`
		} `json:"ConsumedCapacity"`
	}
	st.requests++
	err := r.ep.Call(ctx, op, in, &out)
	var apiErr *APIError
	if errors.As(err, &apiErr) && contains(throttleTypes, apiErr.Type) {
		st.throttled++
		st.throttleTypes[apiErr.Type]++
		return nil
	}
	if err != nil {
		return err
	}
	st.units += out.ConsumedCapacity.CapacityUnits
	switch op {
	case "GetItem":
		st.itemsRead++
		if out.Item != nil {
			st.itemsReturned++
		}
	case "Query", "Scan":
		st.itemsRead += out.ScannedCount
		st.itemsReturned += out.Count
		st.next = out.LastEvaluatedKey
	}
	return nil
}

// build makes pattern p's next request.
func (r *run) build(p *Pattern, st *patternStats) (string, map[string]any) {
	k, _ := r.sc.keysFor(p.IndexName)
	key := r.pick(p)
	if p.KeyShape == "sequence" && (p.Operation == "PutItem" || p.Operation == "UpdateItem") {
		key = st.requests // each write takes the next number
	}
	switch p.Operation {
	case "PutItem":
		return "PutItem", map[string]any{"Item": r.item(p, k.hash, key, r.seq)}
	case "UpdateItem":
		return "UpdateItem", map[string]any{"Key": r.key(p, key),
			"UpdateExpression":          "SET #pad = :pad ADD #n :one",
			"ExpressionAttributeNames":  map[string]any{"#pad": "pad", "#n": "n"},
			"ExpressionAttributeValues": map[string]any{":pad": map[string]any{"S": strings.Repeat("x", max(1, p.ItemSizeBytes-itemOverhead))}, ":one": map[string]any{"N": "1"}}}
	case "GetItem":
		return "GetItem", map[string]any{"Key": r.key(p, key%st.keys)}
	case "Query":
		in := map[string]any{"KeyConditionExpression": "#k = :k",
			"ExpressionAttributeNames": map[string]any{"#k": k.hash}, "ExpressionAttributeValues": map[string]any{":k": r.keyValue(p, k.hash, key%st.keys)}}
		return "Query", r.filtered(p, in)
	}
	in := map[string]any{"Limit": 100, "ExpressionAttributeNames": map[string]any{}, "ExpressionAttributeValues": map[string]any{}}
	if st.next != nil {
		in["ExclusiveStartKey"] = st.next
	}
	return "Scan", r.filtered(p, in)
}

// key is the primary key of the item with partition key number n.
func (r *run) key(p *Pattern, n int) map[string]any {
	key := map[string]any{r.sc.keys.hash: r.keyValue(p, r.sc.keys.hash, n)}
	if r.sc.keys.sort != "" {
		key[r.sc.keys.sort] = r.sc.value(r.sc.keys.sort, "s-", 0)
	}
	return key
}

// filtered adds p's FilterExpression, keeping FilterKeeps of the items
// (their "f" attribute runs 0..99), and drops empty expression maps.
func (r *run) filtered(p *Pattern, in map[string]any) map[string]any {
	names, values := in["ExpressionAttributeNames"].(map[string]any), in["ExpressionAttributeValues"].(map[string]any)
	if p.FilterKeeps > 0 && p.FilterKeeps < 1 {
		in["FilterExpression"] = "#f < :keep"
		names["#f"] = "f"
		values[":keep"] = map[string]any{"N": fmt.Sprint(int(p.FilterKeeps * 100))}
	}
	if p.IndexName != "" {
		in["IndexName"] = p.IndexName
	}
	if len(names) == 0 {
		delete(in, "ExpressionAttributeNames")
		delete(in, "ExpressionAttributeValues")
	}
	return in
}
