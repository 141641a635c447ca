// Package ddbtest runs ddblocal inside a Go test: an in-memory
// DynamoDB-compatible server on a loopback port, started in about a
// millisecond and stopped by t.Cleanup, so every test (or parallel subtest)
// can have its own tables without Docker or a shared port.
//
//	func TestOrders(t *testing.T) {
//		db := ddbtest.New(t, ddbtest.WithInit("testdata/tables.yaml"))
//		// db is a *dynamodb.Client; use it or hand it to the code under test.
//	}
//
// New returns an aws-sdk-go-v2 client; NewServer returns the endpoint URL
// for code that builds its own; Start runs one without a test, e.g. in
// TestMain to share one server across a package.
package ddbtest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/faults"
	"github.com/ddblocal/ddblocal/fixtures"
	"github.com/ddblocal/ddblocal/sdkhttp"
	"github.com/ddblocal/ddblocal/server"
)

// Option configures New and NewServer.
type Option func(*options)

type options struct {
	srv    server.Options
	region string
	init   []string
	faults []faults.Rule
	client []func(*dynamodb.Options)
}

// WithEventualLag makes eventually consistent reads and global secondary
// indexes lag writes by d, as --eventual-lag does; strongly consistent
// reads never lag. POST /_ddblocal/settle (or waiting d) catches up.
func WithEventualLag(d time.Duration) Option {
	return func(o *options) { o.srv.Table.EventualLag = consistency.Lag{Min: d, Max: d} }
}

// WithRandomLag draws each lag uniformly from [min, max] with a generator
// seeded by seed, so a failing run can be replayed (--eventual-lag
// random:MIN-MAX --seed SEED).
func WithRandomLag(min, max time.Duration, seed uint64) Option {
	return func(o *options) {
		o.srv.Table.EventualLag = consistency.Lag{Min: min, Max: max}
		o.srv.Table.Seed = seed
	}
}

// WithTransientDelay keeps tables CREATING, UPDATING and DELETING for d,
// so that code waiting for ACTIVE is exercised (--transient-delay).
func WithTransientDelay(d time.Duration) Option {
	return func(o *options) { o.srv.Table.TransientDelay = d }
}

// WithInit creates the tables and loads the items found at path before the
// server answers, as --init does: a CloudFormation or SAM template, a
// CreateTable JSON file, or a folder of them with <Table>.jsonl item files
// (see package fixtures). It may be given more than once.
func WithInit(path string) Option {
	return func(o *options) { o.init = append(o.init, path) }
}

// WithRegion sets the region of the client New returns (default
// us-east-1); tables are separate per region.
func WithRegion(region string) Option {
	return func(o *options) { o.region = region }
}

// WithClientOptions changes the client New returns, as Server.Client's
// arguments do (an HTTPClient of the test's own, a retryer, a logger).
func WithClientOptions(fns ...func(*dynamodb.Options)) Option {
	return func(o *options) { o.client = append(o.client, fns...) }
}

// WithClock gives the server the test's clock: clock.Manual(t0) freezes
// time, and c.Advance moves it (with everything that depends on it: eventual
// lag, TTL, retention) without sleeping. The same clock is also served at
// /_ddblocal/clock.
func WithClock(c *clock.Clock) Option {
	return func(o *options) { o.srv.Clock = c }
}

// WithFaults arms fault-injection rules when the server starts: the next
// Count matching requests fail with the rule's error, so retry and
// throttling handling can be tested (ProvisionedThroughputExceeded,
// ThrottlingException, UnprocessedItems, TransactionConflict,
// InternalServerError). Server.Faults adds rules later. To have the
// server model throughput itself, see WithThrottling.
func WithFaults(rules ...faults.Rule) Option {
	return func(o *options) { o.faults = append(o.faults, rules...) }
}

// WithThrottling throttles every table as DynamoDB would (--throttling):
// per-partition and table-level token buckets on the server's clock, so a
// hot key fails with ProvisionedThroughputExceededException or
// ThrottlingException. scale multiplies DynamoDB's limits
// (--capacity-scale): 0.01 makes a partition admit 10 writes a second, which
// a test reaches easily. Combine it with WithClock to refill the buckets by
// advancing the clock instead of sleeping.
func WithThrottling(scale float64) Option {
	return func(o *options) {
		o.srv.Table.Throttling = true
		o.srv.Table.CapacityScale = scale
	}
}

// WithLogger sends the server's logs to l (by default they are dropped).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.srv.Logger = l }
}

// Server is a running in-memory ddblocal started by Start.
type Server struct {
	srv    *server.Server
	region string
	client []func(*dynamodb.Options) // WithClientOptions'
}

// Start starts an in-memory ddblocal on a loopback port, for code that has
// no testing.TB (TestMain sharing one server across a package's tests, or
// a program); the caller must Close it. Tests should prefer New or
// NewServer, which stop the server when the test ends. It returns an error
// when the server cannot listen or an init file cannot be loaded (naming
// the file and line).
func Start(opts ...Option) (*Server, error) {
	o := options{srv: server.Options{InMemory: true, Host: "127.0.0.1"}, region: "us-east-1"}
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.init) > 0 {
		o.srv.Init = func(ctx context.Context, h http.Handler) error {
			return fixtures.LoadPaths(ctx, fixtures.HandlerClient(h, o.region), o.init)
		}
	}
	s, err := server.Start(context.Background(), o.srv)
	if err != nil {
		return nil, fmt.Errorf("ddbtest: %w", err)
	}
	for _, r := range o.faults {
		if err := s.Faults().Add(r); err != nil {
			s.Close()
			return nil, fmt.Errorf("ddbtest: fault rule %+v: %w", r, err)
		}
	}
	return &Server{srv: s, region: o.region, client: o.client}, nil
}

// URL is the endpoint: http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.srv.URL() }

// Client returns a client for the server, built with aws-sdk-go-v2/config
// and static credentials (no AWS profile or environment is read, so a
// fresh machine works), in the region WithRegion chose (default us-east-1),
// changed by WithClientOptions' functions and then by fns. Its HTTP client,
// the SDK's or one fns gave, sends request bodies through sdkhttp.ReadOnly,
// so the SDK's early close of a body cannot drop a connection under a
// response on a loaded machine (a warning or a retried "use of closed
// network connection").
func (s *Server) Client(fns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion(s.region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("ddbtest", "ddbtest", "")),
		config.WithSharedConfigFiles([]string{}), config.WithSharedCredentialsFiles([]string{}))
	if err != nil {
		return nil, fmt.Errorf("ddbtest: %w", err)
	}
	url := s.URL()
	all := append([]func(*dynamodb.Options){func(c *dynamodb.Options) { c.BaseEndpoint = aws.String(url) }}, s.client...)
	all = append(all, fns...)
	all = append(all, func(c *dynamodb.Options) { c.HTTPClient = sdkhttp.ReadOnly(c.HTTPClient) })
	return dynamodb.NewFromConfig(cfg, all...), nil
}

// Clock is the server's clock (the one WithClock gave, or wall time):
// Advance it to make time pass for the server.
func (s *Server) Clock() *clock.Clock { return s.srv.Clock() }

// Faults is the server's fault injector (see WithFaults).
func (s *Server) Faults() *faults.Injector { return s.srv.Faults() }

// Close stops the server, waiting for requests in flight, and frees its
// memory.
func (s *Server) Close() error { return s.srv.Close() }

// startT is Start that fails t on error and stops the server with t.Cleanup.
func startT(t testing.TB, opts []Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("ddbtest: %v", err)
		}
	})
	return s
}

// NewServer starts an in-memory ddblocal on a loopback port, stops it when
// the test ends, and returns its endpoint URL (http://127.0.0.1:PORT). It
// fails the test if the server cannot start or an init file cannot be
// loaded. An aws-sdk-go-v2 client built for it should send through
// sdkhttp.ReadOnly, as Server.Client's does.
func NewServer(t testing.TB, opts ...Option) string {
	t.Helper()
	return startT(t, opts).URL()
}

// New starts a server as NewServer does and returns a client for it (see
// Server.Client).
func New(t testing.TB, opts ...Option) *dynamodb.Client {
	t.Helper()
	c, err := startT(t, opts).Client()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
