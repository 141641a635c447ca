package integration

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/sdkhttp"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
	"github.com/ddblocal/ddblocal/table"
)

// clockServer is an in-process ddblocal whose clock the test moves.
type clockServer struct {
	*server
	clk *clock.Clock
}

// streamStart is where the movable clock of stream tests starts.
var streamStart = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func startClockServer(t testing.TB, opts table.Options) *clockServer {
	t.Helper()
	clk := clock.Manual(streamStart)
	opts.Now = clk.Now
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	svc.RunOnMove(clk)
	triggers := streams.NewTriggers(svc, nil)
	cfg := api.Config{Addr: "localhost:8000", Admin: admin.Handler(admin.Config{Settle: svc.Settle, Clock: clk, Triggers: triggers})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	t.Cleanup(func() {
		ts.Close()
		triggers.Close()
		svc.Close()
		db.Close()
	})
	return &clockServer{server: &server{URL: ts.URL, svc: svc}, clk: clk}
}

// streamsClient returns a DynamoDB Streams client for url, on the same
// endpoint as DynamoDB.
func streamsClient(url string) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(url),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		Retryer:      closedConnRetryer(),
	}, readOnlyStreamBodies)
}

// createStreamTable creates table pk S, sk S with a stream of view type vt
// and returns the stream's ARN as DescribeTable reports it.
func createStreamTable(t testing.TB, c *dynamodb.Client, name string, vt types.StreamViewType) string {
	t.Helper()
	out, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: vt},
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	if out.TableDescription.LatestStreamArn == nil {
		t.Fatalf("CreateTable %s: no LatestStreamArn", name)
	}
	return *out.TableDescription.LatestStreamArn
}

// walkStream reads every record of the stream once, walking its shard tree
// from the roots: a shard is read (TRIM_HORIZON to its end, or to the
// present for the open one) only after its parent. It returns the records in
// order and the number of shards.
func walkStream(t testing.TB, sc *dynamodbstreams.Client, arn string) ([]stypes.Record, int) {
	t.Helper()
	ctx := context.Background()
	var shards []stypes.Shard
	var start *string
	for {
		d, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start, Limit: aws.Int32(2)})
		if err != nil {
			t.Fatalf("DescribeStream: %v", err)
		}
		shards = append(shards, d.StreamDescription.Shards...)
		if start = d.StreamDescription.LastEvaluatedShardId; start == nil {
			break
		}
	}
	done := map[string]bool{}
	var recs []stypes.Record
	for len(done) < len(shards) {
		progress := false
		for _, sh := range shards {
			id := aws.ToString(sh.ShardId)
			if done[id] || (sh.ParentShardId != nil && !done[*sh.ParentShardId] && known(shards, *sh.ParentShardId)) {
				continue
			}
			recs = append(recs, readShard(t, sc, arn, id)...)
			done[id], progress = true, true
		}
		if !progress {
			t.Fatalf("shard tree has a cycle or orphan: %+v", shards)
		}
	}
	return recs, len(shards)
}

func known(shards []stypes.Shard, id string) bool {
	for _, sh := range shards {
		if aws.ToString(sh.ShardId) == id {
			return true
		}
	}
	return false
}

// readShard reads one shard from TRIM_HORIZON until it is drained (closed)
// or returns nothing (open).
func readShard(t testing.TB, sc *dynamodbstreams.Client, arn, shard string) []stypes.Record {
	t.Helper()
	ctx := context.Background()
	it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
		ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatalf("GetShardIterator %s: %v", shard, err)
	}
	var recs []stypes.Record
	next := it.ShardIterator
	for next != nil {
		out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: next, Limit: aws.Int32(3)})
		if err != nil {
			t.Fatalf("GetRecords %s: %v", shard, err)
		}
		recs = append(recs, out.Records...)
		if len(out.Records) == 0 && out.NextShardIterator != nil {
			break // the open shard, caught up
		}
		next = out.NextShardIterator
	}
	return recs
}

// readOnlyStreamBodies is readOnlyBodies for a Streams client.
func readOnlyStreamBodies(o *dynamodbstreams.Options) { o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient) }
