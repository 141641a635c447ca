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
	"github.com/ddblocal/ddblocal/lsi"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/streams"
	"github.com/ddblocal/ddblocal/throttle"
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
	// Logger receives background errors (index backfills); nil discards them.
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
	// throttle); without it, only tables tagged ThrottlingTag = "on" are.
	Throttling bool
	// CapacityScale multiplies DynamoDB's throughput limits (zero means 1).
	CapacityScale float64
	// ThrottleObserver, when set, learns of every throttled request.
	ThrottleObserver throttle.Observer
}

// exprCacheSize is how many distinct sets of expression texts and names the
// Service keeps compiled: applications use a few dozen, and each costs a
// few hundred bytes to a few kilobytes.
const exprCacheSize = 1024

// Service implements DynamoDB's operations over a store. It is safe for
// concurrent use.
type Service struct {
	db       *store.DB
	opts     Options
	catalog  *catalog
	deleted  *tombstones
	tokens   *tokenCache // TransactWriteItems ClientRequestTokens (idempotency.go)
	appliers *appliers
	policy   *consistency.Policy
	history  *consistency.History
	settled  atomic.Int64 // Unix nanoseconds of the last Settle: writes before it are visible everywhere
	// exprs remembers parsed expressions by text and names (see compileExpr).
	exprs *expressions.Cache
	// pageBufs holds *[]byte scratch buffers for the JSON of Query and Scan
	// pages (see readPages).
	pageBufs sync.Pool
	// plain turns the fast paths off: blind puts, GetItem's item rendered
	// from its stored bytes, Query and Scan pages decoding entries only as
	// far as they need, and BatchWriteItem puts stored without being
	// decoded. Each then takes its plain twin, which the differential test
	// proves gives the same answers. Only tests set it.
	plain bool
	// bg is the context of background work (index appliers, backfills),
	// which lives as long as the Service rather than any request; Close
	// cancels it and waits for the work. It is the one stored context.
	bg         context.Context
	stopBG     context.CancelFunc
	background sync.WaitGroup
	sweeping   sync.Mutex // one Time to Live pass at a time (ttl_sweep.go)
	policies   policyCache
	// insights keeps what GET /_ddblocal/insights reports (insights.go).
	insights *insights.Recorder
	limiter  *throttle.Limiter
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
	bg, stopBG := context.WithCancel(context.Background())
	s := &Service{db: db, opts: opts, catalog: newCatalog(opts.ItemCollectionLimit), deleted: newTombstones(),
		tokens: newTokenCache(), appliers: newAppliers(), bg: bg, stopBG: stopBG, exprs: expressions.NewCache(exprCacheSize),
		policy: consistency.NewPolicy(opts.EventualLag, opts.Seed), history: consistency.NewHistory()}
	s.insights = s.newRecorder()
	s.limiter = throttle.New(throttle.Options{Scale: opts.CapacityScale, Observer: throttleObserver{s}})
	s.startMaintenance()
	// In cluster mode other front-ends change the catalog too.
	s.background.Go(func() { db.WatchCatalog(bg, s.catalog.forget) })
	s.background.Go(func() { db.RunCompactor(bg, store.CompactOptions{}) })
	return s
}

func (s *Service) now() time.Time { return s.opts.Now() }
