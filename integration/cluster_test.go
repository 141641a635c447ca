package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// startFrontEnd starts an in-process ddblocal front-end whose store is the
// etcd cluster at endpoints, under prefix (cluster mode).
func startFrontEnd(t testing.TB, endpoints []string, prefix string) *server {
	t.Helper()
	return startFrontEndWith(t, endpoints, prefix, table.Options{})
}

// etcdDial is how long a front-end's start waits for etcd's first answer
// (and, in-process, each request for etcd's): the 5 s defaults ran out on
// a starved CI machine before a local member answered. A member that is
// really gone still fails the test, later; the fault tests keep 5 s.
const etcdDial = time.Minute

// startFrontEndWith is startFrontEnd with the service's options.
func startFrontEndWith(t testing.TB, endpoints []string, prefix string, opts table.Options) *server {
	t.Helper()
	db, err := store.Open(store.Options{Etcd: &store.EtcdOptions{Endpoints: endpoints, Prefix: prefix, DialTimeout: etcdDial, RequestTimeout: etcdDial}})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	cfg := api.Config{Addr: "localhost:8000", Verifier: testVerifier(), Admin: admin.Handler(admin.Config{Settle: svc.Settle})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	return &server{URL: ts.URL, svc: svc}
}

// createGSITable creates table name (pk S, sk S) with global index "byG"
// on g S (ALL), tagged tags.
func createGSITable(t testing.TB, c *dynamodb.Client, name string, tags ...types.Tag) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		Tags: tags,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// gsiCount returns how many items Query finds in index byG under g.
func gsiCount(t testing.TB, c *dynamodb.Client, tableName, g string) int32 {
	t.Helper()
	out, err := c.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(tableName), IndexName: aws.String("byG"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":g": s(g)},
		Select:                    types.SelectCount,
	})
	if err != nil {
		t.Fatalf("Query byG: %v", err)
	}
	return out.Count
}

// waitGSICount waits (up to 30 s) until index byG holds want items under g.
func waitGSICount(t testing.TB, c *dynamodb.Client, tableName, g string, want int32) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := gsiCount(t, c, tableName, g)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index byG under %q holds %d items after 30s, want %d", g, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClusterTwoFrontEnds: two ddblocal front-ends over one etcd are one
// DynamoDB: what is written through one is read, strongly consistently,
// through the other, conditions see the other's writes, transactions are
// atomic across both, and a global index converges.
func TestClusterTwoFrontEnds(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "two/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "two/").client("us-east-1")
	ctx := context.Background()
	createGSITable(t, a, "shared")

	for i := range 10 {
		_, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("shared"), Item: map[string]types.AttributeValue{
			"pk": s("p"), "sk": s(fmt.Sprintf("%02d", i)), "g": s("x"), "v": n(fmt.Sprint(i)),
		}})
		if err != nil {
			t.Fatalf("PutItem through a: %v", err)
		}
	}
	got, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("shared"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("07")}})
	if err != nil {
		t.Fatalf("GetItem through b: %v", err)
	}
	if v, ok := got.Item["v"].(*types.AttributeValueMemberN); !ok || v.Value != "7" {
		t.Fatalf("GetItem through b = %v, want v 7", got.Item)
	}
	q, err := b.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("shared"), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}, Limit: aws.Int32(4)})
	if err != nil {
		t.Fatalf("Query through b: %v", err)
	}
	if got, want := q.Count, int32(4); got != want || q.LastEvaluatedKey == nil {
		t.Fatalf("Query through b: Count = %d, LastEvaluatedKey %v, want %d and a key", got, q.LastEvaluatedKey, want)
	}

	// A condition evaluated through b sees a's write.
	_, err = b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("shared"),
		Item:                map[string]types.AttributeValue{"pk": s("p"), "sk": s("03"), "g": s("y")},
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")

	// A transaction through b, read through a.
	_, err = b.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("shared"), Item: map[string]types.AttributeValue{"pk": s("q"), "sk": s("1"), "g": s("x")}}},
		{Delete: &types.Delete{TableName: aws.String("shared"), Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("00")}}},
	}})
	if err != nil {
		t.Fatalf("TransactWriteItems through b: %v", err)
	}
	scan, err := a.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("shared"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("Scan through a: %v", err)
	}
	if got, want := scan.Count, int32(10); got != want {
		t.Errorf("Scan through a: Count = %d, want %d", got, want)
	}
	waitGSICount(t, a, "shared", "x", 10)
	waitGSICount(t, b, "shared", "x", 10)
}

// TestClusterBinaries: two ddblocal processes started with --store
// etcd://... share one DynamoDB, and a kill -9 of the one that took a write
// loses nothing; against a cluster too small for a full TransactWriteItems
// a front-end starts, warns naming the etcd flag to change, and serves.
func TestClusterBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	c := etcdtest.StartT(t, 1)
	url := "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/bin"
	dir := t.TempDir()
	p1 := startBinary(t, dir, nil, "--port", "0", "--store", url, "--etcd-timeout", etcdDial.String())
	p2 := startBinary(t, dir, nil, "--port", "0", "--store", url, "--etcd-timeout", etcdDial.String())
	ctx := context.Background()
	createTable(t, p1.client(), "cluster", false)
	if _, err := p1.client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("cluster"),
		Item: map[string]types.AttributeValue{"pk": s("a"), "v": n("1")}}); err != nil {
		t.Fatalf("PutItem through 1: %v", err)
	}
	p1.kill()
	got, err := p2.client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("cluster"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": s("a")}})
	if err != nil {
		t.Fatalf("GetItem through 2: %v", err)
	}
	if v, ok := got.Item["v"].(*types.AttributeValueMemberN); !ok || v.Value != "1" {
		t.Fatalf("GetItem through 2 = %v, want v 1", got.Item)
	}
	if resp, err := http.Get(p2.URL + "/_ddblocal/health"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("health of 2 with etcd up: %v %v, want 200", resp, err)
	}
	c.Members[0].Stop()
	if resp, err := http.Get(p2.URL + "/_ddblocal/health"); err != nil || resp.StatusCode == http.StatusOK {
		t.Errorf("health of 2 with etcd down: %v %v, want an error status", resp, err)
	}
	// A front-end whose etcd is gone still stops promptly on SIGTERM.
	if code, took := p2.stop(); code != 0 {
		t.Errorf("SIGTERM with etcd down: exit %d after %s, want 0:\n%s", code, took, p2.log.String())
	} else {
		t.Logf("SIGTERM with etcd down: exited after %s", took.Round(time.Millisecond))
	}

	// An etcd with its stock limits: the front-end starts, warns naming the
	// flags, and serves what fits.
	small, err := etcdtest.StartWith(t.TempDir(), 1, func(cfg *etcdtest.Config) { cfg.MaxTxnOps = 128 })
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	p3 := startBinary(t, dir, nil, "--port", "0", "--store", "etcd://"+strings.TrimPrefix(small.Endpoints()[0], "http://"), "--etcd-timeout", etcdDial.String())
	defer p3.stopOK()
	waitFor(t, "a warning naming --max-txn-ops=2048", func() bool {
		return strings.Contains(p3.log.String(), "start etcd with --max-txn-ops=2048")
	})
	createTable(t, p3.client(), "small", false)
	if _, err := p3.client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("small"),
		Item: map[string]types.AttributeValue{"pk": s("a")}}); err != nil {
		t.Errorf("PutItem against --max-txn-ops=128: %v", err)
	}
}

// TestClusterCatalog: a front-end that has a table's definition cached sees
// another front-end delete it and create it again with a global index.
func TestClusterCatalog(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "cat/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "cat/").client("us-east-1")
	ctx := context.Background()
	createTable(t, a, "again", true)
	if _, err := b.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("again")}); err != nil {
		t.Fatalf("DescribeTable through b: %v", err)
	}
	if _, err := a.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("again")}); err != nil {
		t.Fatalf("DeleteTable through a: %v", err)
	}
	waitFor(t, "b to see the table deleted", func() bool {
		_, err := b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("again"),
			Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("1")}})
		return err != nil && strings.Contains(err.Error(), "ResourceNotFoundException")
	})
	createGSITable(t, a, "again")
	waitFor(t, "b to see the new table's index", func() bool {
		_, err := b.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("again"), IndexName: aws.String("byG"),
			KeyConditionExpression:    aws.String("g = :g"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("x")}})
		return err == nil
	})
	if _, err := b.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("again"),
		Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("1"), "g": s("x")}}); err != nil {
		t.Fatalf("PutItem through b: %v", err)
	}
	waitGSICount(t, a, "again", "x", 1)
}

// waitFor waits up to 30 s (a busy CI machine, -race) for cond.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClusterIdempotency: a TransactWriteItems retried with its
// ClientRequestToken through another front-end is not applied twice, and a
// different request under that token is refused.
func TestClusterIdempotency(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "idem/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "idem/").client("us-east-1")
	ctx := context.Background()
	createTable(t, a, "tokens", false)
	in := func(by string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok-1"), TransactItems: []types.TransactWriteItem{{
			Update: &types.Update{TableName: aws.String("tokens"), Key: map[string]types.AttributeValue{"pk": s("counter")},
				UpdateExpression:          aws.String("ADD n :by"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":by": n(by)}},
		}}}
	}
	for i, cl := range []*dynamodb.Client{a, b, b} {
		if _, err := cl.TransactWriteItems(ctx, in("1")); err != nil {
			t.Fatalf("TransactWriteItems %d: %v", i, err)
		}
	}
	got, err := a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tokens"), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": s("counter")}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Item["n"].(*types.AttributeValueMemberN); !ok || v.Value != "1" {
		t.Errorf("counter after three tries with one token = %v, want 1", got.Item["n"])
	}
	_, err = b.TransactWriteItems(ctx, in("2"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "Request parameters do not match the previously used request parameters")
}

// clusterPassEnv makes in-process servers (startServer) keep their tables in
// an etcd member this test process embeds: the core of the suite runs in
// cluster mode (TestCoreSuiteOnEtcd).
const clusterPassEnv = "DDBLOCAL_TEST_ETCD"

// clusterPass reports whether this run is the cluster-mode one.
func clusterPass() bool { return os.Getenv(clusterPassEnv) == "1" }

// sharedMember is the etcd member of the cluster-mode pass, started by the
// first server that needs it; it lives as long as the test process.
var sharedMember struct {
	once      sync.Once
	endpoints []string
	err       error
	n         atomic.Int64
}

// testStoreOptions returns the store of an in-process test server: in
// memory, or, in the cluster-mode pass, a fresh prefix of the shared member.
func testStoreOptions(t testing.TB) store.Options {
	if !clusterPass() {
		return store.Options{InMemory: true}
	}
	sharedMember.once.Do(func() {
		// Stopped with the process: the pass is a child process of its own.
		sharedMember.endpoints, _, sharedMember.err = etcdtest.Shared()
	})
	if sharedMember.err != nil {
		t.Fatalf("etcd: %v", sharedMember.err)
	}
	prefix := fmt.Sprintf("core%d/", sharedMember.n.Add(1))
	return store.Options{Etcd: &store.EtcdOptions{Endpoints: sharedMember.endpoints, Prefix: prefix, DialTimeout: etcdDial, RequestTimeout: etcdDial}}
}

// coreSuite is the part of the suite that also runs in cluster mode: items,
// queries, batches, transactions and global indexes, through the SDK.
const coreSuite = "^(TestPutGetDelete|TestItemKeyErrors|TestQuerySortConditions|TestQueryNumberSortOrder|TestQueryBinarySortKey|TestQueryFilterLimitAndPaging|TestQuerySelect|TestQueryErrors|TestBatchWriteItemRejectsBadItemsLikePutItem|TestGSIQuery|TestGSIProjections|TestGSIPaging|TestGSIParallelScan|TestTransactWriteCancellationReasons|TestTransactWriteValidationErrors|TestTransactIdempotentRetry|TestTransactMixedTablesAndGet|TestTransactTransfers|TestSearchVectorsConditionsAndProjection|TestVectorIndexFollowsWritesAndLag)$"

// TestCoreSuiteOnEtcd runs coreSuite again in a child process whose
// in-process servers keep their tables in etcd (started by TestMain as the
// run begins: passes_test.go).
func TestCoreSuiteOnEtcd(t *testing.T) {
	if clusterPass() || signedPass() {
		t.Skip("run once, from the unsigned pass")
	}
	t.Parallel()
	out, took, err := childPasses.core.wait(t)
	if err != nil {
		t.Fatalf("the core suite in cluster mode failed (%v):\n%s", err, out)
	}
	if strings.Contains(string(out), "no tests to run") {
		t.Fatalf("the core suite matched no tests:\n%s", out)
	}
	t.Logf("the core suite passed in cluster mode in %s", took.Round(time.Millisecond))
}

// TestClusterStreams: a stream records writes made through every front-end,
// in commit order, and any front-end serves it.
func TestClusterStreams(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	fa := startFrontEnd(t, c.Endpoints(), "streams/")
	fb := startFrontEnd(t, c.Endpoints(), "streams/")
	a, b := fa.client("us-east-1"), fb.client("us-east-1")
	ctx := context.Background()
	arn := createStreamTable(t, a, "streamed", types.StreamViewTypeNewImage)
	for i, cl := range []*dynamodb.Client{a, b, a, b} {
		if _, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("streamed"),
			Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "sk": s("x")}}); err != nil {
			t.Fatalf("PutItem %d: %v", i, err)
		}
	}
	for name, url := range map[string]string{"a": fa.URL, "b": fb.URL} {
		recs, _ := walkStream(t, streamsClient(url), arn)
		var got []string
		for _, r := range recs {
			got = append(got, r.Dynamodb.Keys["pk"].(*stypes.AttributeValueMemberS).Value)
		}
		if want := []string{"0", "1", "2", "3"}; !slices.Equal(got, want) {
			t.Errorf("stream read through %s: keys %v, want %v", name, got, want)
		}
	}
}

// TestClusterEventualLag: with --eventual-lag, an eventually consistent read
// through one front-end does not yet see a write made through another (it
// undoes the shared change log's younger records), while a strongly
// consistent read does.
func TestClusterEventualLag(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	opts := table.Options{EventualLag: lagOf(time.Hour)}
	a := startFrontEndWith(t, c.Endpoints(), "lag/", opts).client("us-east-1")
	b := startFrontEndWith(t, c.Endpoints(), "lag/", opts).client("us-east-1")
	ctx := context.Background()
	createTable(t, a, "lagged", false)
	if _, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("lagged"),
		Item: map[string]types.AttributeValue{"pk": s("k")}}); err != nil {
		t.Fatal(err)
	}
	for _, consistent := range []bool{false, true} {
		got, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("lagged"), ConsistentRead: aws.Bool(consistent),
			Key: map[string]types.AttributeValue{"pk": s("k")}})
		if err != nil {
			t.Fatal(err)
		}
		if (got.Item != nil) != consistent {
			t.Errorf("GetItem through b, ConsistentRead %v: item %v, want it only from the consistent read", consistent, got.Item)
		}
	}
}
