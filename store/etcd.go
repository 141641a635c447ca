package store

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// EtcdOptions says how to reach the etcd cluster of a cluster-mode store.
type EtcdOptions struct {
	Endpoints []string // host:port or URLs; at least one
	// Prefix is prepended to every key, so that several ddblocal clusters
	// (or other users) can share one etcd; "" uses "ddblocal/".
	Prefix             string
	TLS                *tls.Config // nil: plain connections
	Username, Password string      // etcd authentication, when enabled
	DialTimeout        time.Duration
	// RequestTimeout bounds each etcd request (0: 5 s, well beyond a
	// leader election, well within an SDK's patience).
	RequestTimeout time.Duration
	// Client, when set, is used instead of dialling Endpoints (tests); Close
	// then leaves it open.
	Client *clientv3.Client
}

// What one DynamoDB request may need of one etcd transaction: a
// TransactWriteItems of 100 items and 4 MB writes each item, its change-log
// record (old and new image) and local index entries, and compares each key
// it read. etcd's defaults (128 operations, 1.5 MiB) are smaller: a cluster
// with them serves every request that fits (most do), refuses the others
// with ErrTxnTooLarge, and Open warns once naming the flags.
const (
	RequiredTxnOps       = 2048
	RequiredRequestBytes = 13 << 20
	// grpcOverhead is what etcd's gRPC server accepts beyond
	// --max-request-bytes.
	grpcOverhead = 512 << 10
)

// ErrTxnTooLarge is returned by Update when one request's transaction
// exceeds the etcd cluster's --max-txn-ops or --max-request-bytes; the
// message names the limit. Other requests are served.
var ErrTxnTooLarge = errors.New("store: transaction exceeds the etcd cluster's limits")

// etcdLimits are what the cluster accepts in one transaction, as probed by
// Open (never above the Required values: beyond them nothing is refused).
type etcdLimits struct {
	ops   int // compares, and separately operations, per transaction
	bytes int // one request's size, gRPC overhead excluded
}

// openEtcd connects to etcd and returns a DB over it, once the cluster
// answers; in the background it probes the cluster's limits, warning
// through log when they are below what the largest DynamoDB request needs.
func openEtcd(o EtcdOptions, log *slog.Logger) (*DB, error) {
	prefix := o.Prefix
	if prefix == "" {
		prefix = "ddblocal/"
	}
	dial := o.DialTimeout
	if dial == 0 {
		dial = 5 * time.Second
	}
	cli, own := o.Client, false
	if cli == nil {
		if len(o.Endpoints) == 0 {
			return nil, errors.New("store: etcd: no endpoints")
		}
		var err error
		cli, err = clientv3.New(clientv3.Config{
			Endpoints: o.Endpoints, TLS: o.TLS, Username: o.Username, Password: o.Password,
			DialTimeout: dial, MaxCallSendMsgSize: 2 * RequiredRequestBytes, MaxCallRecvMsgSize: math.MaxInt32,
			// Its own JSON log on stderr would say only what the errors
			// returned here say (and its retries are ours to judge).
			Logger: zap.NewNop(),
		})
		if err != nil {
			return nil, fmt.Errorf("store: etcd %s: %w", strings.Join(o.Endpoints, ","), err)
		}
		own = true
	}
	if err := reachable(cli, prefix, dial); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("store: etcd at %s: no answer within %s: %w", strings.Join(cli.Endpoints(), ","), dial, err)
		} else {
			err = fmt.Errorf("store: etcd at %s: %w", strings.Join(cli.Endpoints(), ","), err)
		}
		if own {
			_ = cli.Close()
		}
		return nil, err
	}
	ctx, interrupt := context.WithCancel(context.Background())
	timeout := o.RequestTimeout
	if timeout == 0 {
		timeout = etcdTimeout
	}
	e := &etcdEngine{cli: cli, prefix: prefix, timeout: timeout, closeClient: own, ctx: ctx, interrupt: interrupt, probed: make(chan struct{})}
	e.mirror = newMirror(e)
	var err error
	if e.shard, e.shardSession, err = claimShard(ctx, cli, prefix, timeout); err != nil {
		// A shard of its own is only faster; a random one is as exact.
		e.shard = "\x00r" + randomID()
		if log != nil {
			log.Warn("could not claim a counter shard in etcd; using a new one", "error", err)
		}
	}
	// Probing the limits sends a request of RequiredRequestBytes, which
	// takes seconds on a busy machine: serve meanwhile (etcd refuses what
	// it cannot take in any case; the probe only makes the refusal name
	// the limit before sending, and the warning).
	go e.probeLimits(log)
	return newDB(e), nil
}

// reachable returns nil once the cluster answers a linearizable read,
// within timeout.
func reachable(cli *clientv3.Client, prefix string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := cli.Get(ctx, prefix+"probe", clientv3.WithCountOnly())
	return err
}

// probeLimits measures the cluster's limits, keeps them for commit's
// check, and warns through log (if not nil) when they are below what the
// largest DynamoDB request needs. It closes e.probed when done.
func (e *etcdEngine) probeLimits(log *slog.Logger) {
	defer close(e.probed)
	lim, err := probeEtcdLimits(e.ctx, e.cli, e.prefix)
	if err != nil {
		if log != nil && e.ctx.Err() == nil {
			log.Warn("could not probe the etcd cluster's limits", "error", err)
		}
		return
	}
	e.limitsMu.Lock()
	e.limits = lim
	e.limitsMu.Unlock()
	if w := lim.warning(); w != "" && log != nil {
		log.Warn(w)
	}
}

// currentLimits returns the limits probed so far (zero: not yet known).
func (e *etcdEngine) currentLimits() etcdLimits {
	e.limitsMu.Lock()
	defer e.limitsMu.Unlock()
	return e.limits
}

// warning says which of the cluster's limits are below what the largest
// DynamoDB request needs, naming the etcd flags; "" when none is.
func (l etcdLimits) warning() string {
	var low []string
	if l.ops < RequiredTxnOps {
		low = append(low, fmt.Sprintf("--max-txn-ops is %d (one TransactWriteItems of 100 items may need %d; start etcd with --max-txn-ops=%d)", l.ops, RequiredTxnOps, RequiredTxnOps))
	}
	if l.bytes < RequiredRequestBytes {
		low = append(low, fmt.Sprintf("--max-request-bytes is about %d (one 4 MB TransactWriteItems with its change-log images may need %d; start etcd with --max-request-bytes=%d)", l.bytes, RequiredRequestBytes, RequiredRequestBytes))
	}
	if len(low) == 0 {
		return ""
	}
	return "etcd limits below what the largest DynamoDB requests need; requests beyond them will be refused: the cluster's " + strings.Join(low, "; and its ")
}

// probeEtcdLimits measures the cluster's limits up to the Required values
// with requests that change nothing: transactions of n compares, and reads
// carrying n bytes of key (etcd's gRPC server refuses a message above
// --max-request-bytes plus grpcOverhead). Each is found by bisection when
// the Required value is refused.
func probeEtcdLimits(ctx context.Context, cli *clientv3.Client, prefix string) (etcdLimits, error) {
	probe := prefix + "probe"
	never := clientv3.Compare(clientv3.Version(probe), "<", 0)
	ops, err := largestAccepted(1, RequiredTxnOps, func(n int) (bool, error) {
		_, err := cli.Txn(ctx).If(slices.Repeat([]clientv3.Cmp{never}, n)...).Commit()
		if errors.Is(err, rpctypes.ErrTooManyOps) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return etcdLimits{}, err
	}
	// The size probe is heavy: let a store that is opened only briefly
	// (tests, a subcommand) close first.
	select {
	case <-ctx.Done():
		return etcdLimits{}, ctx.Err()
	case <-time.After(sizeProbeDelay):
	}
	size, err := largestAccepted(64<<10, RequiredRequestBytes, func(n int) (bool, error) {
		big := strings.Repeat("x", n+grpcOverhead-64)
		_, err := cli.Get(ctx, prefix+"probe/"+big, clientv3.WithSerializable())
		if status.Code(err) == codes.ResourceExhausted {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return etcdLimits{}, err
	}
	return etcdLimits{ops: ops, bytes: size}, nil
}

// sizeProbeDelay is how long after Open the request size is probed.
const sizeProbeDelay = time.Second

// largestAccepted returns the largest n in [lo, hi] that accepts (hi when
// it does, lo when nothing larger does, to within 1/64 of hi), or accept's
// first error.
func largestAccepted(lo, hi int, accept func(n int) (bool, error)) (int, error) {
	ok, err := accept(hi)
	if err != nil || ok {
		return hi, err
	}
	bad := hi
	for bad-lo > max(1, hi/64) {
		mid := lo + (bad-lo)/2
		ok, err := accept(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			bad = mid
		}
	}
	return lo, nil
}

// fits returns ErrTxnTooLarge, naming the limit, when a transaction of
// cmps compares, ops operations and about size bytes exceeds the cluster's
// limits; nil when it fits or the limits are not known yet.
func (l etcdLimits) fits(cmps, ops, size int) error {
	if l.ops == 0 {
		return nil
	}
	if n := max(cmps, ops); n > l.ops {
		return fmt.Errorf("%w: it needs %d operations in one etcd transaction and the cluster's --max-txn-ops is %d", ErrTxnTooLarge, n, l.ops)
	}
	if size > l.bytes {
		return fmt.Errorf("%w: it needs about %d bytes in one etcd request and the cluster's --max-request-bytes is about %d", ErrTxnTooLarge, size, l.bytes)
	}
	return nil
}

// backoff waits a random, growing while before an optimistic batch is
// re-run: the processes whose commits conflicted would otherwise meet again.
func backoff(attempt int) {
	time.Sleep(time.Duration(rand.Int64N(int64(100*time.Microsecond) << min(attempt, 6))))
}

// tooLarge reports whether etcd refused a commit for its size (or would).
func tooLarge(err error) bool {
	return errors.Is(err, ErrTxnTooLarge) || errors.Is(err, rpctypes.ErrTooManyOps) || errors.Is(err, rpctypes.ErrRequestTooLarge) || status.Code(err) == codes.ResourceExhausted
}

// retryable reports whether an optimistic transaction failed only because
// its snapshot went stale.
func retryable(err error) bool {
	return errors.Is(err, errConflict) || errors.Is(err, rpctypes.ErrCompacted)
}

// WatchCatalog calls changed with the key of each catalog record changed by
// any process sharing this store (this one included), from now until ctx
// ends, and with nil when changes may have been missed (the watch broke and
// etcd had compacted the history it would have resumed from): then
// everything read from the catalog before that call may be stale. Over
// an in-process engine nobody else can change the catalog, and it returns
// at once. changed runs on WatchCatalog's goroutine, one call at a time.
func (db *DB) WatchCatalog(ctx context.Context, changed func(key []byte)) {
	e, ok := db.eng.(*etcdEngine)
	if !ok {
		return
	}
	pre := e.prefix + "c"
	e.watch(ctx, pre, true, func(k []byte) { changed(k[len(pre):]) }, func() { changed(nil) })
}

// WatchLog calls appended whenever a record may have been appended to the
// change log of space id by any process sharing this store, from now until
// ctx ends (also when appends may have been missed: a watch broken past
// etcd's compacted history).
// Over an in-process engine it returns at once: the writer's own process
// knows. appended runs on WatchLog's goroutine, one call at a time.
func (db *DB) WatchLog(ctx context.Context, id string, appended func()) {
	e, ok := db.eng.(*etcdEngine)
	if !ok {
		return
	}
	e.watch(ctx, e.prefix+"q"+id, false, func([]byte) { appended() }, appended)
}

// watch calls event with the key of each change to key (or every key it
// prefixes) until ctx ends. A broken watch is restarted from the revision
// after the last one it delivered, so no change is missed; only when that
// revision has been compacted away does it restart from now and call missed,
// once the new watch is in place (so a change after missed is an event).
func (e *etcdEngine) watch(ctx context.Context, key string, prefix bool, event func(k []byte), missed func()) {
	w := e.watcher
	if w == nil {
		w = e.cli
	}
	next, lost := int64(0), false // next: the first revision not delivered; 0 = from now
	for ctx.Err() == nil {
		opts := []clientv3.OpOption{clientv3.WithCreatedNotify()}
		if prefix {
			opts = append(opts, clientv3.WithPrefix())
		}
		if next != 0 {
			opts = append(opts, clientv3.WithRev(next))
		}
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for resp := range w.Watch(wctx, key, opts...) {
			if resp.CompactRevision != 0 {
				next, lost = 0, true
				break
			}
			if resp.Err() != nil {
				break
			}
			if resp.Created && next == 0 {
				next = resp.Header.Revision + 1
				if lost {
					lost = false
					missed()
				}
			}
			for _, ev := range resp.Events {
				event(ev.Kv.Key)
				next = ev.Kv.ModRevision + 1
			}
		}
		cancel()
		// Broken before it was in place: what happened meanwhile is unknown.
		lost = lost || next == 0
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// UpdateAlone is Update for long background work (index appliers,
// backfills). Over an optimistic engine (etcd) it runs fn in a transaction
// of its own on the caller's goroutine, re-running it while its commit
// conflicts, rather than in the committer's batch: a slow fn there would
// hold up every request gathered with it, and the batch's longer conflict
// window would let other front-ends' writes starve it. Over the in-process
// engines it is Update. It returns what Update returns.
func (db *DB) UpdateAlone(ctx context.Context, fn func(tx *Tx) error) error {
	if !db.optimistic {
		return db.Update(ctx, fn)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !db.enter() {
		return ErrClosed
	}
	defer db.inflight.Done()
	for attempt := 0; ; attempt++ {
		t, err := db.eng.begin(true)
		if err != nil {
			return err
		}
		_, err = runFn(fn, &Tx{t: t})
		if ferr := t.(*etcdTxn).failure(); ferr != nil {
			err = ferr // fn saw missing data, not the store's
		}
		if err == nil {
			err = t.commit()
		}
		t.rollback()
		if !retryable(err) || ctx.Err() != nil {
			return err
		}
		backoff(attempt)
	}
}

// Ready reports whether the store can serve: over etcd, whether the cluster
// answers a linearizable read (it has a leader and a quorum) within two
// seconds; a file-backed store is ready until its write-ahead log has
// failed for good (a failed fsync: it then takes no more writes, and Ready
// says why); an in-memory store is always ready.
func (db *DB) Ready() error {
	if m, ok := db.eng.(*memEngine); ok && m.wal != nil {
		return m.wal.failure()
	}
	e, ok := db.eng.(*etcdEngine)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := e.cli.Get(ctx, e.prefix+"probe", clientv3.WithCountOnly()); err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	return nil
}

// Interrupt makes the store's requests in flight, and those to come, fail
// at once rather than wait for an etcd that may not answer: call it when
// shutting down, once no request needs an answer, before waiting for
// background work. Over an in-process engine it does nothing.
func (db *DB) Interrupt() {
	if e, ok := db.eng.(*etcdEngine); ok {
		e.interrupt()
	}
}
