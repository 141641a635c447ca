package store

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
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
	// Client, when set, is used instead of dialling Endpoints (tests); Close
	// then leaves it open.
	Client *clientv3.Client
}

// What one DynamoDB request may need of one etcd transaction: a
// TransactWriteItems of 100 items and 4 MB writes each item, its change-log
// record (old and new image) and local index entries, and compares each key
// it read. etcd's defaults (128 operations, 1.5 MiB) are smaller.
const (
	RequiredTxnOps       = 2048
	RequiredRequestBytes = 13 << 20
	// grpcOverhead is what etcd's gRPC server accepts beyond
	// --max-request-bytes.
	grpcOverhead = 512 << 10
)

// ErrEtcdLimits is returned by Open when the etcd cluster's limits are too
// small for the largest DynamoDB transaction.
var ErrEtcdLimits = errors.New("store: etcd limits too small")

// openEtcd connects to etcd, checks its limits and returns a DB over it.
func openEtcd(o EtcdOptions) (*DB, error) {
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
	if err := checkEtcdLimits(cli, prefix, dial); err != nil {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("store: etcd at %s: no answer within %s: %w", strings.Join(cli.Endpoints(), ","), dial, err)
		case !errors.Is(err, ErrEtcdLimits):
			err = fmt.Errorf("store: etcd at %s: %w", strings.Join(cli.Endpoints(), ","), err)
		}
		if own {
			_ = cli.Close()
		}
		return nil, err
	}
	ctx, interrupt := context.WithCancel(context.Background())
	return newDB(&etcdEngine{cli: cli, prefix: prefix, closeClient: own, ctx: ctx, interrupt: interrupt}), nil
}

// checkEtcdLimits probes the cluster, within timeout, with requests that
// change nothing: a transaction of RequiredTxnOps compares, and a read
// carrying RequiredRequestBytes of key (see below).
func checkEtcdLimits(cli *clientv3.Client, prefix string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	probe := prefix + "probe"
	never := clientv3.Compare(clientv3.Version(probe), "<", 0)
	cmps := make([]clientv3.Cmp, RequiredTxnOps)
	for i := range cmps {
		cmps[i] = never
	}
	if _, err := cli.Txn(ctx).If(cmps...).Commit(); err != nil {
		if errors.Is(err, rpctypes.ErrTooManyOps) {
			return fmt.Errorf("%w: the cluster's --max-txn-ops is below %d, which one TransactWriteItems of 100 items may need; start etcd with --max-txn-ops=%d or more", ErrEtcdLimits, RequiredTxnOps, RequiredTxnOps)
		}
		return err
	}
	// etcd's gRPC server takes messages up to --max-request-bytes plus
	// 512 KiB: a read carrying that much key probes it without writing.
	big := strings.Repeat("x", RequiredRequestBytes+grpcOverhead-64)
	if _, err := cli.Get(ctx, prefix+"probe/"+big, clientv3.WithSerializable()); err != nil {
		if status.Code(err) == codes.ResourceExhausted {
			return fmt.Errorf("%w: the cluster's --max-request-bytes is below %d, which one 4 MB TransactWriteItems (items and their change-log images) may need; start etcd with --max-request-bytes=%d or more", ErrEtcdLimits, RequiredRequestBytes, RequiredRequestBytes)
		}
		return err
	}
	return nil
}

// backoff waits a random, growing while before an optimistic batch is
// re-run: the processes whose commits conflicted would otherwise meet again.
func backoff(attempt int) {
	time.Sleep(time.Duration(rand.Int64N(int64(100*time.Microsecond) << min(attempt, 6))))
}

// tooLarge reports whether etcd refused a commit for its size.
func tooLarge(err error) bool {
	return errors.Is(err, rpctypes.ErrTooManyOps) || errors.Is(err, rpctypes.ErrRequestTooLarge) || status.Code(err) == codes.ResourceExhausted
}

// retryable reports whether an optimistic transaction failed only because
// its snapshot went stale.
func retryable(err error) bool {
	return errors.Is(err, errConflict) || errors.Is(err, rpctypes.ErrCompacted)
}

// WatchCatalog calls changed with the key of each catalog record changed by
// any process sharing this store (this one included), from now until ctx
// ends, and with nil when changes may have been missed (the watch broke and
// was restarted): then everything read from the catalog may be stale. Over
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
// ctx ends (also after a broken watch, when appends may have been missed).
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
// prefixes) until ctx ends, re-watching after a broken watch and calling
// missed then.
func (e *etcdEngine) watch(ctx context.Context, key string, prefix bool, event func(k []byte), missed func()) {
	var opts []clientv3.OpOption
	if prefix {
		opts = append(opts, clientv3.WithPrefix())
	}
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for resp := range e.cli.Watch(wctx, key, opts...) {
			if resp.Err() != nil {
				break
			}
			for _, ev := range resp.Events {
				event(ev.Kv.Key)
			}
		}
		cancel()
		if ctx.Err() != nil {
			return
		}
		missed()
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
// seconds; an in-process store is always ready.
func (db *DB) Ready() error {
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
