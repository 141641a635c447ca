package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// TestClusterVectorIndex: two front-ends over one etcd keep their own
// in-memory copies of a vector index from the shared table and change log:
// writes through either are found by searches through both, a delete through
// one leaves both, and an index deleted through one is gone from the other
// once that front-end's catalog watch has told it (a definition reaches the
// other front-ends asynchronously, as TestClusterCatalog waits for too).
func TestClusterVectorIndex(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "vec/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "vec/").client("us-east-1")
	ctx := context.Background()
	createVectorTable(t, a, "shared", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	for i, cl := range []*dynamodb.Client{a, b, a, b} {
		mustPut(t, cl, "shared", map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "emb": vecList([]float32{float32(i), 0})})
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("shared"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10)}
	for name, cl := range map[string]*dynamodb.Client{"a": a, "b": b} {
		if got := fmt.Sprint(keysOf(search(t, cl, q).SearchResults)); got != "[0 1 2 3]" {
			t.Fatalf("search through %s: %s, want every write in distance order", name, got)
		}
	}
	if _, err := b.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("shared"), Key: map[string]types.AttributeValue{"pk": s("0")}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, a, "shared", map[string]types.AttributeValue{"pk": s("3"), "emb": vecList([]float32{0.5, 0})})
	for name, cl := range map[string]*dynamodb.Client{"a": a, "b": b} {
		if got := fmt.Sprint(keysOf(search(t, cl, q).SearchResults)); got != "[3 1 2]" {
			t.Fatalf("search through %s after a delete and a move: %s", name, got)
		}
	}
	if _, err := a.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("shared"),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("vix")}}}}); err != nil {
		t.Fatal(err)
	}
	// b learns of the change through its catalog watch, shortly after.
	waitFor(t, "b to see the index deleted", func() bool {
		_, err := b.SearchVectors(ctx, q)
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" {
			wantAPIError(t, err, "ValidationException", "The table does not have the specified index: vix")
			return true
		}
		if err != nil {
			t.Fatalf("search through b while the index is deleted: %v", err)
		}
		return false
	})
}

// stoppableFrontEnd is startFrontEndWith for a front-end the test stops
// before its end, as a killed process stops: with it goes everything it
// held in memory, its vector index copies included. stop may be called
// more than once.
func stoppableFrontEnd(t *testing.T, endpoints []string, prefix string, opts table.Options) (srv *server, stop func()) {
	t.Helper()
	db, err := store.Open(store.Options{Etcd: &store.EtcdOptions{Endpoints: endpoints, Prefix: prefix, DialTimeout: etcdDial, RequestTimeout: etcdDial}})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	cfg := api.Config{Addr: "localhost:8000", Verifier: testVerifier(), Admin: admin.Handler(admin.Config{Settle: svc.Settle})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ts.Close()
			svc.Close()
			db.Close()
		})
	}
	t.Cleanup(stop)
	return &server{URL: ts.URL, svc: svc}, stop
}

// vectorModel is what a test wrote to a table with a vector index: each
// item's tenant and vector (none for an item written without one).
type vectorModel map[string]vectorItem

// vectorItem is one item of a vectorModel.
type vectorItem struct {
	tenant string
	vec    []float32
}

// of returns the model's vectors, of tenant's items only unless tenant is "".
func (m vectorModel) of(tenant string) map[string][]float32 {
	out := map[string][]float32{}
	for k, it := range m {
		if it.vec != nil && (tenant == "" || it.tenant == tenant) {
			out[k] = it.vec
		}
	}
	return out
}

// writeVectorModel writes through c to table name 60 items of three
// tenants with random vectors (every seventh without one), then moves 15 of
// them (a new vector and tenant) and deletes 6, and returns the model.
func writeVectorModel(t *testing.T, c *dynamodb.Client, name string, r *rand.Rand, dims int) vectorModel {
	t.Helper()
	m := vectorModel{}
	put := func(key string) {
		it := m[key]
		item := map[string]types.AttributeValue{"pk": s(key), "tenant": s(it.tenant), "label": s("L" + key)}
		if it.vec != nil {
			item["emb"] = vecList(it.vec)
		}
		mustPut(t, c, name, item)
	}
	for i := range 60 {
		key := fmt.Sprintf("k%02d", i)
		it := m[key]
		it.tenant = fmt.Sprint("t", r.Intn(3))
		if i%7 != 6 {
			it.vec = randVector(r, dims)
		}
		m[key] = it
		put(key)
	}
	for i := range 15 {
		key := fmt.Sprintf("k%02d", 4*i)
		m[key] = vectorItem{fmt.Sprint("t", r.Intn(3)), randVector(r, dims)}
		put(key)
	}
	for i := range 6 {
		key := fmt.Sprintf("k%02d", 10*i+1)
		if _, err := c.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(name),
			Key: map[string]types.AttributeValue{"pk": s(key)}}); err != nil {
			t.Fatal(err)
		}
		delete(m, key)
	}
	return m
}

// sameSearches runs random searches of both indexes of table name (byTenant
// per tenant, cos over all) through every client: each must give the
// oracle's answer, and every client exactly the same results (keys,
// scores, order).
func sameSearches(t *testing.T, what string, name string, m vectorModel, r *rand.Rand, dims int, clients ...*dynamodb.Client) {
	t.Helper()
	for trial := range 4 {
		q, k := randVector(r, dims), 1+r.Intn(25)
		type run struct {
			index, tenant string
			fn            types.VectorDistanceFunction
		}
		for _, x := range []run{{"byTenant", "t0", types.VectorDistanceFunctionEuclidean}, {"byTenant", "t1", types.VectorDistanceFunctionEuclidean},
			{"byTenant", "t2", types.VectorDistanceFunctionEuclidean}, {"cos", "", types.VectorDistanceFunctionCosine}} {
			in := &dynamodb.SearchVectorsInput{TableName: aws.String(name), IndexName: aws.String(x.index), SearchVector: vecValues(q), TopK: aws.Int32(int32(k))}
			if x.tenant != "" {
				in.SearchConditionExpression = aws.String("tenant = :t")
				in.ExpressionAttributeValues = map[string]types.AttributeValue{":t": s(x.tenant)}
			}
			var first string
			for i, c := range clients {
				out := search(t, c, in)
				label := fmt.Sprintf("%s, trial %d, %s %s, front-end %d", what, trial, x.index, x.tenant, i)
				checkResults(t, label, out.SearchResults, oracleSearch(x.fn, q, m.of(x.tenant)), k)
				got := fmt.Sprint(keysOf(out.SearchResults))
				for _, res := range out.SearchResults {
					got += fmt.Sprint(" ", res.Score)
				}
				if i == 0 {
					first = got
				} else if got != first {
					t.Fatalf("%s: %s, front-end 0 answered %s", label, got, first)
				}
			}
		}
	}
}

// TestClusterVectorIndexSameEverywhere: each front-end's own copy of a
// vector index answers as one shared index would. Writes (puts, moves,
// deletes) made through one front-end, under a lag, reach no search until
// settled; after a settle on each front-end, searches through both give
// the oracle's answer and exactly the same results. A front-end stopped
// (its copy gone with its memory) and started again builds its copy from
// the shared table and answers the same, and a write through it reaches
// the other front-end's searches.
func TestClusterVectorIndexSameEverywhere(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	opts := table.Options{EventualLag: lagOf(time.Hour)}
	srvA := startFrontEndWith(t, c.Endpoints(), "vsame/", opts)
	srvB, stopB := stoppableFrontEnd(t, c.Endpoints(), "vsame/", opts)
	a, b := srvA.client("us-east-1"), srvB.client("us-east-1")
	const dims = 8
	createVectorTable(t, a, "same", tenantDefs, vecIndex("byTenant", dims, types.VectorDistanceFunctionEuclidean, tenantSchema()...),
		vecIndex("cos", dims, types.VectorDistanceFunctionCosine))
	r := rand.New(rand.NewSource(2026))
	m := writeVectorModel(t, a, "same", r, dims)
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("same"), IndexName: aws.String("cos"), SearchVector: vecValues(randVector(r, dims)), TopK: aws.Int32(5)}
	for i, cl := range []*dynamodb.Client{a, b} {
		if got := search(t, cl, q).SearchResults; len(got) != 0 {
			t.Fatalf("front-end %d within the lag: %v, want nothing yet", i, keysOf(got))
		}
	}
	postSettle(t, srvA.URL)
	postSettle(t, srvB.URL)
	sameSearches(t, "after settle", "same", m, r, dims, a, b)

	stopB()
	srvB, _ = stoppableFrontEnd(t, c.Endpoints(), "vsame/", opts)
	b = srvB.client("us-east-1")
	postSettle(t, srvB.URL)
	// Before any search, the restarted front-end's DescribeTable counts what
	// the other's does.
	if got, want := fmt.Sprint(describeVectorCounts(t, b, "same", "cos")), fmt.Sprint(len(m.of("")), 4*dims*len(m.of(""))); got != want {
		t.Errorf("restarted b describes cos with %s items and bytes, want %s", got, want)
	}
	sameSearches(t, "b restarted", "same", m, r, dims, a, b)

	m["new"] = vectorItem{"t1", randVector(r, dims)}
	mustPut(t, b, "same", map[string]types.AttributeValue{"pk": s("new"), "tenant": s("t1"), "label": s("Lnew"), "emb": vecList(m["new"].vec)})
	postSettle(t, srvA.URL)
	postSettle(t, srvB.URL)
	sameSearches(t, "a write through the restarted b", "same", m, r, dims, a, b)
}

// vectorOwnerOf waits until exactly one of srvs owns table name's vector
// indexes and returns its position.
func vectorOwnerOf(t *testing.T, name string, srvs ...*server) int {
	t.Helper()
	owner := -1
	waitFor(t, "one front-end to own the vector indexes of "+name, func() bool {
		owner = -1
		for i, srv := range srvs {
			if srv.svc.OwnsVectorIndexes("us-east-1", name) {
				if owner >= 0 {
					t.Fatalf("front-ends %d and %d both own the vector indexes of %s", owner, i, name)
				}
				owner = i
			}
		}
		return owner >= 0
	})
	return owner
}

// TestClusterVectorIndexOwner: one front-end owns a table's vector indexes,
// as one owns its global indexes: it decides which writes they hold (here,
// under a lag, none until a Settle) and publishes that in the store, and
// the other front-end's copy holds exactly what it published. A Settle
// sent only to the front-end that does not own the indexes reaches the
// owner through the store, and then both answer the brute-force oracle's
// answer with exactly the same results. When the owner stops, the other
// takes the indexes over from the published watermark: writes through it
// (moves, deletes, new items) reach the indexes, none applied twice or
// skipped (the oracle again, and DescribeTable's counts), and a front-end
// started afterwards answers the same.
func TestClusterVectorIndexOwner(t *testing.T) {
	if signedPass() || clusterPass() {
		t.Skip("run once, in the unsigned pass: it starts its own etcd")
	}
	c := etcdtest.StartT(t, 1)
	opts := table.Options{EventualLag: lagOf(time.Hour)}
	var srvs [2]*server
	var stops [2]func()
	for i := range srvs {
		srvs[i], stops[i] = stoppableFrontEnd(t, c.Endpoints(), "vown/", opts)
	}
	cl := []*dynamodb.Client{srvs[0].client("us-east-1"), srvs[1].client("us-east-1")}
	const dims = 8
	createVectorTable(t, cl[0], "owned", tenantDefs, vecIndex("byTenant", dims, types.VectorDistanceFunctionEuclidean, tenantSchema()...),
		vecIndex("cos", dims, types.VectorDistanceFunctionCosine))
	r := rand.New(rand.NewSource(25))
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("owned"), IndexName: aws.String("cos"), SearchVector: vecValues(randVector(r, dims)), TopK: aws.Int32(5)}
	for _, x := range cl {
		search(t, x, q) // both front-ends use the indexes, so both campaign for them
	}
	owner := vectorOwnerOf(t, "owned", srvs[:]...)
	other := 1 - owner

	m := writeVectorModel(t, cl[other], "owned", r, dims)
	for i, x := range cl {
		if got := search(t, x, q).SearchResults; len(got) != 0 {
			t.Fatalf("front-end %d within the lag: %v, want nothing: the owner has applied nothing", i, keysOf(got))
		}
	}
	postSettle(t, srvs[other].URL)
	sameSearches(t, "settled through the front-end that does not own the indexes", "owned", m, r, dims, cl...)
	want := fmt.Sprint(len(m.of("")), 4*dims*len(m.of("")))
	for i, x := range cl {
		if got := fmt.Sprint(describeVectorCounts(t, x, "owned", "cos")); got != want {
			t.Errorf("front-end %d describes cos with %s items and bytes, want %s", i, got, want)
		}
	}

	stops[owner]()
	for i := range 10 { // moves, deletes and new items, through the survivor
		key := fmt.Sprintf("k%02d", 5*i+2)
		if i%3 == 0 {
			if _, err := cl[other].DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String("owned"),
				Key: map[string]types.AttributeValue{"pk": s(key)}}); err != nil {
				t.Fatal(err)
			}
			delete(m, key)
			key = fmt.Sprintf("n%02d", i)
		}
		m[key] = vectorItem{fmt.Sprint("t", r.Intn(3)), randVector(r, dims)}
		mustPut(t, cl[other], "owned", map[string]types.AttributeValue{"pk": s(key), "tenant": s(m[key].tenant), "label": s("L" + key), "emb": vecList(m[key].vec)})
	}
	postSettle(t, srvs[other].URL) // waits for the survivor to take over and publish
	if !srvs[other].svc.OwnsVectorIndexes("us-east-1", "owned") {
		t.Fatal("the survivor does not own the vector indexes after the owner stopped")
	}
	third, _ := stoppableFrontEnd(t, c.Endpoints(), "vown/", opts)
	sameSearches(t, "after the owner stopped", "owned", m, r, dims, cl[other], third.client("us-east-1"))
	want = fmt.Sprint(len(m.of("")), 4*dims*len(m.of("")))
	if got := fmt.Sprint(describeVectorCounts(t, cl[other], "owned", "cos")); got != want {
		t.Errorf("the new owner describes cos with %s items and bytes, want %s", got, want)
	}
}
