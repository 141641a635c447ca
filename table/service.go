// Package table is the DynamoDB service: the catalog of tables and indexes and the
// item operations over them. It validates every request completely before it
// touches the store, and performs each write in one store transaction.
package table

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/kinesis"
	"github.com/ddblocal/ddblocal/lsi"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
	"github.com/ddblocal/ddblocal/throttle"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// Options configures a Service.
type Options struct {
	// TransientDelay keeps new tables CREATING, updated tables UPDATING and
	// deleted tables DELETING for this long (DynamoDB Local's
	// -delayTransientStatuses). Zero makes every change immediate.
	TransientDelay time.Duration
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
	// ItemCollectionLimit caps an item collection (a partition's items plus
	// their local index entries) in bytes; zero means DynamoDB's 10 GB. Tests
	// lower it to reach ItemCollectionSizeLimitExceededException with small data.
	ItemCollectionLimit int64
	// Logger receives background errors (index backfills, replication);
	// nil discards them.
	Logger *slog.Logger
	// EventualLag is how far eventually consistent reads and global indexes
	// lag behind writes, unless a table's tags say otherwise (package
	// consistency). Zero (the default) is read-your-writes.
	EventualLag consistency.Lag
	// Seed makes random lags reproducible.
	Seed uint64
	// Policies, when set, enforces tables' resource-based policies on
	// requests whose context carries a Caller (WithCaller): it also lets a
	// TableName ARN reach another account's table, if its policy allows.
	Policies access.PolicyParser
	// TTLDelay is how long after its expiry time an item whose Time to Live
	// has passed is still kept: fixed, or random per item (seeded by Seed).
	// Zero deletes expired items at the sweeper's next pass (about a second).
	TTLDelay consistency.Lag
	// StreamShards says when a stream's open shard rolls over (package
	// streams); the zero value rolls every streams.DefaultDuration.
	StreamShards streams.Policy
	// Throttling throttles every table as DynamoDB would (package
	// throttle); without it, only tables tagged ddblocal:throttling = "on" are.
	Throttling bool
	// CapacityScale multiplies DynamoDB's throughput limits (zero means 1).
	CapacityScale float64
	// ThrottleObserver, when set, learns of every throttled request.
	ThrottleObserver throttle.Observer
	// ReplicationLag is how long a write to a global table's replica takes
	// to reach the other replicas (replica_links.go); zero is at once.
	ReplicationLag consistency.Lag
	// LegacyGlobalTables makes the version 2017.11.29 global table
	// operations work, as for an account that still has such global
	// tables (replica_legacy.go); without it they answer as DynamoDB does
	// for every other account.
	LegacyGlobalTables bool
	// S3 serves the S3 locations of exports and imports (a folder or an
	// S3 endpoint); nil fails them.
	S3 bucket.Store
	// Kinesis is the Kinesis endpoint that streaming destinations deliver
	// to (kinesis.Client); nil fails every EnableKinesisStreamingDestination
	// (ENABLE_FAILED: no stream can be found).
	Kinesis kinesis.Sink
}

// exprCacheSize is how many distinct sets of expression texts and names the
// Service keeps compiled: applications use a few dozen, and each costs a
// few hundred bytes to a few kilobytes.
const exprCacheSize = 1024

// Service implements DynamoDB's operations over a store. It is safe for
// concurrent use. Its fields are grouped by the subsystem that owns them;
// each group's file family is named beside it.
type Service struct {
	db   *store.DB
	opts Options

	// The catalog (catalog_*): table definitions by scope and name, the
	// tombstones of deleted tables, parsed resource policies (policy_*).
	catalog  *catalog
	deleted  *tombstones
	policies policyCache

	// Items (item_*): TransactWriteItems ClientRequestTokens
	// (item_idempotency.go), parsed expressions by text and names
	// (compileExpr).
	tokens *tokenCache
	exprs  *expressions.Cache
	// loadSeam, set only by tests, sees every old item a write reads and
	// decodes (item_envelope.go).
	loadSeam func(*mutation)
	// shareSeam, set only by tests, runs as the replica in a Region takes
	// its share of a synchronized settings change (replica_sync.go); an
	// error it returns refuses the change.
	shareSeam func(region string) error

	// Reads (read_*): eventually consistent reads' lag policy and the
	// history they read older versions from, the instant of the last
	// Settle (writes before it are visible everywhere), and the *[]byte
	// scratch buffers of Query and Scan pages (readPages).
	policy   *consistency.Policy
	history  *consistency.History
	settled  atomic.Int64 // Unix nanoseconds
	pageBufs sync.Pool

	// Global indexes (catalog_gsi.go): one applier per table with any.
	appliers *appliers

	// Throttling (throttle_*) and what GET /_ddblocal/insights reports
	// (insights_*).
	limiter  *throttle.Limiter
	insights *insights.Recorder
	sizes    insightsSizes // maintained sizes of the reports (insights_sizes.go)

	// Background work (maintenance.go): bg is the context of work that
	// lives as long as the Service rather than any request (appliers,
	// backfills, the maintenance ticker); Close cancels it and waits for
	// the work. It is the one stored context. sweeping allows one Time to
	// Live pass at a time (ttl_sweep.go).
	bg         context.Context
	stopBG     context.CancelFunc
	background sync.WaitGroup
	sweeping   sync.Mutex

	// plain turns the fast paths off: blind puts, GetItem's item rendered
	// from its stored bytes, Query and Scan pages decoding entries only as
	// far as they need, and BatchWriteItem puts stored without being
	// decoded. Each then takes its plain twin, which the differential test
	// proves gives the same answers. Only tests set it.
	plain bool

	// Global tables (replica_*): the links between replicas.
	replicas *replicators

	vectors vectorFollowers // in-memory vector indexes (vector_follow.go)

	transfers *transferRunner // exports, imports, bulk loads (transfer_run.go)

	deliveries deliverers // Kinesis streaming destinations (kinesis_deliver.go)
}

// New returns a Service over db. The caller keeps ownership of db and must
// call Close before closing it.
func New(db *store.DB, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ItemCollectionLimit == 0 {
		opts.ItemCollectionLimit = lsi.DefaultLimit
	}
	if opts.Logger == nil {
		// Background paths log without a nil check (replica_links.go did not have one).
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	bg, stopBG := context.WithCancel(context.Background())
	s := &Service{db: db, opts: opts, catalog: newCatalog(opts.ItemCollectionLimit), deleted: newTombstones(),
		tokens: newTokenCache(), appliers: newAppliers(), bg: bg, stopBG: stopBG, exprs: expressions.NewCache(exprCacheSize),
		policy: consistency.NewPolicy(opts.EventualLag, opts.Seed), history: consistency.NewHistory(), replicas: newReplicators()}
	s.insights = s.newRecorder()
	s.limiter = throttle.New(throttle.Options{Scale: opts.CapacityScale, Observer: throttleObserver{s}})
	s.startMaintenance()
	s.startTransfers()
	// In cluster mode other front-ends change the catalog too.
	s.background.Go(func() { db.WatchCatalog(bg, s.catalogChanged) })
	s.background.Go(func() { db.RunCompactor(bg, store.CompactOptions{}) })
	s.resumeLinks()
	return s
}

func (s *Service) now() time.Time { return s.opts.Now() }
