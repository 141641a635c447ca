package ddbtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/ddbtest"
	"github.com/ddblocal/ddblocal/faults"
	"github.com/ddblocal/ddblocal/sdkhttp"
)

func createUsers(t *testing.T, db *dynamodb.Client) {
	t.Helper()
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String("Users"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestParallelServersAreSeparate gives each parallel subtest its own
// server: a table created in one is absent from the others.
func TestParallelServersAreSeparate(t *testing.T) {
	for _, name := range []string{"a", "b", "c"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := ddbtest.New(t)
			out, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.TableNames) != 0 {
				t.Fatalf("got tables %v on a new server, want none", out.TableNames)
			}
			createUsers(t, db)
		})
	}
}

// TestCleanupStopsServer checks the server is gone once its test ends.
func TestCleanupStopsServer(t *testing.T) {
	var url string
	t.Run("inner", func(t *testing.T) {
		url = ddbtest.NewServer(t)
		resp, err := http.Get(url + "/_ddblocal/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("got status %d, want 200", resp.StatusCode)
		}
	})
	if _, err := http.Get(url + "/_ddblocal/health"); err == nil {
		t.Errorf("server at %s still answers after its test ended", url)
	}
}

func TestWithInit(t *testing.T) {
	db := ddbtest.New(t, ddbtest.WithInit("testdata"), ddbtest.WithRegion("eu-west-1"))
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("Sessions")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.Count, int32(2); got != want {
		t.Errorf("got %d items, want %d", got, want)
	}
}

// TestWithEventualLag shows a stale eventually consistent read while a
// strongly consistent one sees the write.
func TestWithEventualLag(t *testing.T) {
	db := ddbtest.New(t, ddbtest.WithEventualLag(time.Hour))
	createUsers(t, db)
	ctx := context.Background()
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "u1"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Users"), Item: key}); err != nil {
		t.Fatal(err)
	}
	for _, consistent := range []bool{false, true} {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: key, ConsistentRead: aws.Bool(consistent)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := out.Item != nil, consistent; got != want {
			t.Errorf("ConsistentRead %v: got item found %v, want %v", consistent, got, want)
		}
	}
}

// TestWithClock: moving the test's clock past the lag makes the write
// visible to eventually consistent reads, without sleeping.
func TestWithClock(t *testing.T) {
	clk := clock.Manual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	db := ddbtest.New(t, ddbtest.WithClock(clk), ddbtest.WithEventualLag(time.Hour))
	createUsers(t, db)
	ctx := context.Background()
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "u1"}}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Users"), Item: key}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		advance time.Duration
		want    bool
	}{{0, false}, {59 * time.Minute, false}, {2 * time.Minute, true}} {
		if _, err := clk.Advance(ctx, step.advance); err != nil {
			t.Fatal(err)
		}
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Users"), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Item != nil; got != step.want {
			t.Errorf("at +%v: got item visible %v, want %v", clk.Now().Sub(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)), got, step.want)
		}
	}
}

// TestWithFaults: a throttling rule fails the next two PutItems with the
// typed error, then writes go through.
func TestWithFaults(t *testing.T) {
	db := ddbtest.New(t, ddbtest.WithFaults(faults.Rule{Operation: "PutItem", Error: faults.ProvisionedThroughputExceeded, Count: 2}))
	createUsers(t, db)
	in := &dynamodb.PutItemInput{TableName: aws.String("Users"), Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "u1"}}}
	noRetry := func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
	for i := range 3 {
		_, err := db.PutItem(context.Background(), in, noRetry)
		var pte *types.ProvisionedThroughputExceededException
		if got, want := errors.As(err, &pte), i < 2; got != want {
			t.Errorf("PutItem %d: got %v, want throttled %v", i+1, err, want)
		}
	}
}

func TestWithFaultsRejectsBadRule(t *testing.T) {
	_, err := ddbtest.Start(ddbtest.WithFaults(faults.Rule{Operation: "PutItem", Error: "Nope"}))
	if !errors.Is(err, faults.ErrUnknownKind) {
		t.Errorf("got %v, want %v", err, faults.ErrUnknownKind)
	}
}

// TestWithTransientDelay: a new table is CREATING until the delay passes.
func TestWithTransientDelay(t *testing.T) {
	db := ddbtest.New(t, ddbtest.WithTransientDelay(time.Hour))
	createUsers(t, db)
	out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("Users")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.Table.TableStatus, types.TableStatusCreating; got != want {
		t.Errorf("got status %s, want %s", got, want)
	}
}

// TestWithRegion: the client signs for the region asked for.
func TestWithRegion(t *testing.T) {
	db := ddbtest.New(t, ddbtest.WithRegion("ap-south-1"))
	createUsers(t, db)
	if got, want := db.Options().Region, "ap-south-1"; got != want {
		t.Errorf("got region %s, want %s", got, want)
	}
}

// TestTypedErrors: the client sees DynamoDB's typed errors.
func TestTypedErrors(t *testing.T) {
	db := ddbtest.New(t)
	_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("Nope")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("got %v, want ResourceNotFoundException", err)
	}
}

// BenchmarkStart measures what each test using New pays: starting a
// server, building a client, one request (ListTables) and stopping it.
func BenchmarkStart(b *testing.B) {
	for b.Loop() {
		s, err := ddbtest.Start()
		if err != nil {
			b.Fatal(err)
		}
		db, err := s.Client()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWithThrottling throttles a hot key at a tenth of a percent of
// DynamoDB's limits (one write a second per partition), and lets it through
// again once the test's clock has moved a second.
func TestWithThrottling(t *testing.T) {
	clk := clock.Manual(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	db := ddbtest.New(t, ddbtest.WithThrottling(0.001), ddbtest.WithClock(clk))
	createUsers(t, db)
	put := func() error {
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Users"),
			Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "hot"}}},
			func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }) // see the first answer
		return err
	}
	if err := put(); err != nil {
		t.Fatal(err)
	}
	var te *types.ThrottlingException
	if err := put(); !errors.As(err, &te) {
		t.Fatalf("second write within a second: %v, want a ThrottlingException", err)
	}
	if _, err := clk.Advance(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	if err := put(); err != nil {
		t.Fatalf("a second later: %v", err)
	}
}

// bodies is the test's own HTTP client: it sends through http.Client and
// counts the request bodies it is given that have WriteTo.
type bodies struct {
	hc             *http.Client
	sent, writeTos atomic.Int32
}

func (b *bodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		b.sent.Add(1)
		if _, ok := req.Body.(io.WriterTo); ok {
			b.writeTos.Add(1)
		}
	}
	return b.hc.Do(req)
}

// TestClientSendsReadOnlyBodies: the client New and Server.Client return
// sends request bodies that only Read and Close (sdkhttp.ReadOnly), over the
// SDK's HTTP client or over the test's own, which it keeps.
func TestClientSendsReadOnlyBodies(t *testing.T) {
	db := ddbtest.New(t)
	hc, ok := db.Options().HTTPClient.(sdkhttp.ReadOnlyBodies)
	if _, sdk := hc.Next.(*awshttp.BuildableClient); !ok || !sdk {
		t.Errorf("New: HTTPClient is %T over %T, want sdkhttp.ReadOnlyBodies over the SDK's *BuildableClient", db.Options().HTTPClient, hc.Next)
	}
	clients := map[string]func(t *testing.T, own func(*dynamodb.Options)) *dynamodb.Client{
		"New(WithClientOptions)": func(t *testing.T, own func(*dynamodb.Options)) *dynamodb.Client {
			return ddbtest.New(t, ddbtest.WithClientOptions(own))
		},
		"Server.Client": func(t *testing.T, own func(*dynamodb.Options)) *dynamodb.Client {
			s, err := ddbtest.Start()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			c, err := s.Client(own)
			if err != nil {
				t.Fatal(err)
			}
			return c
		},
	}
	for name, client := range clients {
		own := &bodies{hc: &http.Client{}}
		t.Cleanup(own.hc.CloseIdleConnections)
		db := client(t, func(o *dynamodb.Options) { o.HTTPClient = own })
		if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if own.sent.Load() == 0 || own.writeTos.Load() != 0 {
			t.Errorf("%s: the test's HTTP client sent %d bodies, %d of them with WriteTo; want some, none with it",
				name, own.sent.Load(), own.writeTos.Load())
		}
	}
}
