package integration

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// strongUpdate is the UpdateTable that makes name STRONG with replicas in
// us-east-2 and us-west-2.
func strongUpdate(name string) *dynamodb.UpdateTableInput {
	return &dynamodb.UpdateTableInput{TableName: aws.String(name), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		ReplicaUpdates: []types.ReplicationGroupUpdate{
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-east-2")}},
			{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("us-west-2")}}}}
}

// TestStrongGlobalTableUnsupported: MRSC is refused on a table with items,
// local secondary indexes or Time to Live, and an MRSC table refuses Time
// to Live and transactions.
func TestStrongGlobalTableUnsupported(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us := srv.client("us-east-1")
	ctx := context.Background()
	const (
		notEmpty = "Table must be empty to create a global table with MultiRegionConsistency set to STRONG."
		lsi      = "Local secondary indexes are not supported for global tables with MultiRegionConsistency set to STRONG."
		ttl      = "Time to Live is not supported for global tables with MultiRegionConsistency set to STRONG."
		txs      = "Transactions are not supported for global tables with MultiRegionConsistency set to STRONG."
	)
	createTable(t, us, "full", false)
	put(t, us, "full", "a", "1")
	_, err := us.UpdateTable(ctx, strongUpdate("full"))
	wantAPIError(t, err, "ValidationException", notEmpty)

	createTable(t, us, "expiring", false)
	if _, err := us.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("expiring"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	_, err = us.UpdateTable(ctx, strongUpdate("expiring"))
	wantAPIError(t, err, "ValidationException", ttl)

	if _, err := us.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("local"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("l"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("byL"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}}}},
	}); err != nil {
		t.Fatal(err)
	}
	_, err = us.UpdateTable(ctx, strongUpdate("local"))
	wantAPIError(t, err, "ValidationException", lsi)
	if d := describe(t, us, "full"); len(d.Replicas) != 0 {
		t.Errorf("a refused STRONG request left replicas: %v", replicaStatuses(d))
	}

	strongTable(t, srv)
	east2 := srv.client("us-east-2")
	_, err = east2.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("glob"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	wantAPIError(t, err, "ValidationException", ttl)
	_, err = us.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("glob"), Item: map[string]types.AttributeValue{"pk": s("t"), "v": s("1")}}}}})
	wantAPIError(t, err, "ValidationException", txs)
	_, err = east2.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("glob"), Key: map[string]types.AttributeValue{"pk": s("t")}}}}})
	wantAPIError(t, err, "ValidationException", txs)
	if got := value(t, us, "glob", "t"); got != "" {
		t.Errorf("a refused transaction wrote: %q", got)
	}
}

// TestStrongGlobalTableBatchWrite: a BatchWriteItem to an MRSC table is
// acknowledged once every Region has it, and is refused while a write from
// another Region replicates one of its items.
func TestStrongGlobalTableBatchWrite(t *testing.T) {
	srv := startGlobalServer(t, table.Options{ReplicationLag: consistency.Lag{Min: time.Second, Max: time.Second}})
	strongTable(t, srv)
	us, east2, west2 := srv.client("us-east-1"), srv.client("us-east-2"), srv.client("us-west-2")
	ctx := context.Background()
	batch := func(c *dynamodb.Client, v string, keys ...string) error {
		var reqs []types.WriteRequest
		for _, k := range keys {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s(k), "v": s(v)}}})
		}
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"glob": reqs}})
		return err
	}
	srv.clk.Advance(ctx, time.Millisecond) // after the settle
	done := make(chan error, 1)
	go func() { done <- batch(us, "us", "a", "b") }()
	deadline := time.Now().Add(10 * time.Second)
	waitValue(t, us, "b", "us", deadline, "the us-east-1 batch never committed")
	select {
	case err := <-done:
		t.Fatalf("the batch was acknowledged before the other Regions had it: %v", err)
	default:
	}
	wantAPIError(t, batch(west2, "west2", "c", "b"), "ReplicatedWriteConflictException", msgConflict)
	if got := value(t, west2, "glob", "c"); got != "" {
		t.Errorf("a refused batch wrote c=%q in us-west-2", got)
	}
	srv.clk.Advance(ctx, time.Second)
	if err := <-done; err != nil {
		t.Fatalf("the us-east-1 batch: %v", err)
	}
	for _, c := range []*dynamodb.Client{east2, west2} {
		if a, b := value(t, c, "glob", "a"), value(t, c, "glob", "b"); a != "us" || b != "us" {
			t.Errorf("right after the acknowledged batch: a=%q b=%q, want us", a, b)
		}
	}
}

const msgConflict = "The request was rejected because one or more items in the request are being modified by a request in another Region."

// TestClusterStrongConflict: two front-ends share an etcd store; a write to
// an MRSC item through one front-end refuses, while it replicates, a write
// to the same item from another Region through the other front-end.
func TestClusterStrongConflict(t *testing.T) {
	if signedPass() || clusterPass() {
		t.Skip("run once, in the unsigned pass")
	}
	t.Parallel()
	c := etcdtest.StartT(t, 1)
	lag := consistency.Lag{Min: 2 * time.Second, Max: 2 * time.Second}
	start := func() *server {
		db, err := store.Open(store.Options{Etcd: &store.EtcdOptions{Endpoints: c.Endpoints(), Prefix: "mrsc/"}})
		if err != nil {
			t.Fatal(err)
		}
		svc := table.New(db, table.Options{ReplicationLag: lag})
		ts := httptest.NewServer(api.NewHandler(api.Config{Addr: "localhost:8000", Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})), Admin: admin.Handler(admin.Config{Settle: svc.Settle})}, api.Operations(svc)))
		var once sync.Once
		t.Cleanup(func() {
			once.Do(func() {
				ts.Close()
				svc.Close()
				db.Close()
			})
		})
		return &server{URL: ts.URL, svc: svc}
	}
	fa, fb := start(), start()
	ctx := context.Background()
	createTable(t, fa.client("us-east-1"), "glob", false)
	if _, err := fa.client("us-east-1").UpdateTable(ctx, strongUpdate("glob")); err != nil {
		t.Fatal(err)
	}
	postSettle(t, fa.URL)
	done := make(chan error, 1)
	go func() {
		_, err := fa.client("us-east-1").PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("glob"),
			Item: map[string]types.AttributeValue{"pk": s("k"), "v": s("a")}})
		done <- err
	}()
	waitValue(t, fb.client("us-east-1"), "k", "a", time.Now().Add(10*time.Second), "the write through front-end a never committed")
	_, err := fb.client("us-west-2").PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("glob"),
		Item: map[string]types.AttributeValue{"pk": s("k"), "v": s("b")}})
	wantAPIError(t, err, "ReplicatedWriteConflictException", msgConflict)
	if err := <-done; err != nil {
		t.Fatalf("the write through front-end a: %v", err)
	}
	if got := value(t, fb.client("us-west-2"), "glob", "k"); got != "a" {
		t.Errorf("us-west-2 after the acknowledged write: %q, want a", got)
	}
	put(t, fb.client("us-west-2"), "glob", "k", "b") // no longer in conflict
	if got := value(t, fa.client("us-east-2"), "glob", "k"); got != "b" {
		t.Errorf("us-east-2 after the second acknowledged write: %q, want b", got)
	}
}
