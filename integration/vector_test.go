package integration

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// vecIndex is a vector index on attribute emb of dims dimensions.
func vecIndex(name string, dims int64, fn types.VectorDistanceFunction, schema ...types.SearchSchemaElement) types.VectorIndex {
	return types.VectorIndex{
		IndexName: aws.String(name), Dimensions: aws.Int64(dims), DistanceFunction: fn,
		VectorAttribute: &types.VectorAttributeDefinition{AttributeName: aws.String("emb")},
		Projection:      &types.Projection{ProjectionType: types.ProjectionTypeAll},
		SearchSchema:    schema,
	}
}

// createVectorTable creates an on-demand table pk S with the given vector
// indexes and extra attribute definitions (name, type pairs).
func createVectorTable(t testing.TB, c *dynamodb.Client, name string, defs []types.AttributeDefinition, vis ...types.VectorIndex) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: append([]types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}}, defs...),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		VectorIndexes:        vis,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// vecList is a vector attribute value.
func vecList(v []float32) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: vecValues(v)}
}

func vecValues(v []float32) []types.AttributeValue {
	l := make([]types.AttributeValue, len(v))
	for i, f := range v {
		l[i] = n(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	return l
}

func randVector(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.Intn(21)-10) / 4 // small integers over 4: many exact ties
	}
	return v
}

// oracleScores is the brute-force answer: every stored vector's score for
// q under fn, best first, ties by key (the storage key order is the
// partition key's hash order, so the test compares scores, and keys only
// where scores differ).
type scored struct {
	key   string
	score float64
}

func oracleSearch(fn types.VectorDistanceFunction, q []float32, items map[string][]float32) []scored {
	var out []scored
	for k, v := range items {
		var dot, qq, vv, sq float64
		for i := range q {
			a, b := float64(q[i]), float64(v[i])
			dot, qq, vv, sq = dot+a*b, qq+a*a, vv+b*b, sq+(a-b)*(a-b)
		}
		s := dot
		switch fn {
		case types.VectorDistanceFunctionCosine:
			s = 1
			if qq > 0 && vv > 0 {
				s = 1 - dot/math.Sqrt(qq*vv)
			}
		case types.VectorDistanceFunctionEuclidean:
			s = math.Sqrt(sq)
		}
		out = append(out, scored{k, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if fn == types.VectorDistanceFunctionDotProduct {
			return out[i].score > out[j].score
		}
		return out[i].score < out[j].score
	})
	return out
}

func search(t testing.TB, c *dynamodb.Client, in *dynamodb.SearchVectorsInput) *dynamodb.SearchVectorsOutput {
	t.Helper()
	out, err := c.SearchVectors(context.Background(), in)
	if err != nil {
		t.Fatalf("SearchVectors: %v", err)
	}
	return out
}

// TestSearchVectorsAgainstOracle: for each distance function, SearchVectors
// returns the exact top k of a brute-force search written here, with the
// oracle's scores (to float32 precision), ties in one fixed order.
func TestSearchVectorsAgainstOracle(t *testing.T) {
	c := newClient(t)
	const dims = 8
	createVectorTable(t, c, "vecs", nil,
		vecIndex("cos", dims, types.VectorDistanceFunctionCosine),
		vecIndex("euc", dims, types.VectorDistanceFunctionEuclidean),
		vecIndex("dot", dims, types.VectorDistanceFunctionDotProduct))
	r := rand.New(rand.NewSource(25))
	items := map[string][]float32{}
	for i := 0; i < 120; i++ {
		key := fmt.Sprintf("item%03d", i)
		item := map[string]types.AttributeValue{"pk": s(key), "label": s("L" + key)}
		if i%10 != 9 { // every tenth item has no vector: not indexed
			items[key] = randVector(r, dims)
			item["emb"] = vecList(items[key])
		}
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("vecs"), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	for _, ix := range []struct {
		name string
		fn   types.VectorDistanceFunction
	}{{"cos", types.VectorDistanceFunctionCosine}, {"euc", types.VectorDistanceFunctionEuclidean}, {"dot", types.VectorDistanceFunctionDotProduct}} {
		for trial := 0; trial < 5; trial++ {
			q := randVector(r, dims)
			k := 1 + r.Intn(30)
			out := search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String("vecs"), IndexName: aws.String(ix.name), SearchVector: vecValues(q), TopK: aws.Int32(int32(k))})
			want := oracleSearch(ix.fn, q, items)
			checkResults(t, ix.name, out.SearchResults, want, k)
			again := search(t, c, &dynamodb.SearchVectorsInput{TableName: aws.String("vecs"), IndexName: aws.String(ix.name), SearchVector: vecValues(q), TopK: aws.Int32(int32(k))})
			if fmt.Sprint(keysOf(again.SearchResults)) != fmt.Sprint(keysOf(out.SearchResults)) {
				t.Fatalf("%s: the same search gave %v then %v", ix.name, keysOf(out.SearchResults), keysOf(again.SearchResults))
			}
		}
	}
}

func keysOf(rs []types.SearchResultItem) []string {
	var ks []string
	for _, r := range rs {
		ks = append(ks, r.Item["pk"].(*types.AttributeValueMemberS).Value)
	}
	return ks
}

// checkResults compares results with the oracle's best k: same scores in
// the same order, every key's score its own, and no item left out that
// scores strictly better than the last one returned.
func checkResults(t testing.TB, name string, got []types.SearchResultItem, want []scored, k int) {
	t.Helper()
	if len(got) != min(k, len(want)) {
		t.Fatalf("%s: %d results, want %d", name, len(got), min(k, len(want)))
	}
	byKey := map[string]float64{}
	for _, w := range want {
		byKey[w.key] = w.score
	}
	const tol = 1e-5
	in := map[string]bool{}
	for i, g := range got {
		key := g.Item["pk"].(*types.AttributeValueMemberS).Value
		in[key] = true
		if math.Abs(g.Score-want[i].score) > tol || math.Abs(g.Score-byKey[key]) > tol {
			t.Fatalf("%s result %d: %s scores %v, oracle %v for it and %v at that rank", name, i, key, g.Score, byKey[key], want[i].score)
		}
		if _, ok := g.Item["emb"]; ok {
			t.Fatalf("%s: the vector attribute came back unasked", name)
		}
		if g.Item["label"] == nil {
			t.Fatalf("%s: projected attribute label missing from %v", name, g.Item)
		}
	}
	last := got[len(got)-1].Score
	for _, w := range want {
		if !in[w.key] && math.Abs(w.score-last) > tol && (w.score < last) != (name == "dot") {
			t.Fatalf("%s: %s (score %v) left out, last result scores %v", name, w.key, w.score, last)
		}
	}
}
