package table

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// BenchmarkPutVector compares PutItem throughput for items carrying a
// 768-number embedding (as text an embedding model returns) on a table
// without a vector index and on one with a vector index on it. Each
// iteration puts one item into each, measured separately in process CPU
// time (wall time on a shared machine measures the neighbours), so both
// see the same conditions; the indexed table's cost includes one
// SearchVectors at the end, which applies every write to the index.
// indexed-x-plain is the ratio of the two (issue 25's target: at most 2).
//
//	go test ./table -run '^$' -bench PutVector -benchtime 3000x
func BenchmarkPutVector(b *testing.B) {
	const dims = 768
	r := rand.New(rand.NewSource(1))
	vecs := make([]attr.Value, 64)
	for i := range vecs {
		l := make([]attr.Value, dims)
		for j := range l {
			l[j] = attr.Value{T: attr.TypeN, S: strconv.FormatFloat(r.Float64()*2-1, 'f', 9, 64)}
		}
		vecs[i] = attr.Value{T: attr.TypeL, L: l}
	}
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	s := New(db, Options{})
	b.Cleanup(func() { s.Close(); db.Close() })
	ctx := context.Background()
	for _, name := range []string{"plain", "indexed"} {
		in := &ddb.CreateTableInput{TableName: name, BillingMode: "PAY_PER_REQUEST",
			AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}
		if name == "indexed" {
			d := int64(dims)
			in.VectorIndexes = []ddb.VectorIndex{{IndexName: "emb", VectorAttribute: &ddb.VectorAttributeDefinition{AttributeName: "v"},
				Dimensions: &d, DistanceFunction: "COSINE", Projection: &ddb.Projection{ProjectionType: "ALL"}}}
		}
		if _, err := s.CreateTable(ctx, "r", in); err != nil {
			b.Fatal(err)
		}
	}
	put := func(table string, i int) time.Duration {
		t0 := cpuTime(b)
		item := attr.Item{"pk": attr.String(fmt.Sprintf("item%08d", i)), "v": vecs[i%len(vecs)], "title": attr.String("a title")}
		if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: table, Item: item}); err != nil {
			b.Fatal(err)
		}
		return cpuTime(b) - t0
	}
	var plain, indexed time.Duration
	for i := 0; b.Loop(); i++ {
		plain += put("plain", i)
		indexed += put("indexed", i)
	}
	t0 := cpuTime(b)
	k := int32(10)
	if _, err := s.SearchVectors(ctx, "r", &ddb.SearchVectorsInput{TableName: "indexed", IndexName: "emb", SearchVector: vecs[0].L, TopK: &k}); err != nil {
		b.Fatal(err)
	}
	indexed += cpuTime(b) - t0
	b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "plain-cpu-ns/put")
	b.ReportMetric(float64(indexed.Nanoseconds())/float64(b.N), "indexed-cpu-ns/put")
	b.ReportMetric(float64(indexed)/float64(plain), "indexed-x-plain")
}
