package store

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// ErrNotOwner is returned by Ownership.Fence, and so by the Update calling
// it, when this process does not own the work (any more).
var ErrNotOwner = errors.New("store: not the owner")

// ownerTTL is the session lease of an owner: a process that dies (or loses
// etcd) hands its work over after about this long.
const ownerTTL = 5 // seconds

// Ownership is this process's claim on work that one process at a time must
// do (a table's global index applier and Time to Live sweeper). Over an
// in-process engine the process is alone and always owns it; over etcd, the
// processes sharing the store elect one owner per name on a session lease,
// and a new owner is elected when the lease ends. It is safe for concurrent
// use.
type Ownership struct {
	held atomic.Bool
	// cur is the election key and its create revision while held (etcd).
	mu    sync.Mutex
	key   string
	rev   int64
	stop  context.CancelFunc
	done  chan struct{}
	local bool
}

// Own starts claiming the work called name and returns at once: Held says
// when it is held. Close gives it up. Over an in-process engine it is held
// from the start.
func (db *DB) Own(name string) *Ownership {
	e, ok := db.eng.(*etcdEngine)
	if !ok {
		o := &Ownership{local: true, done: make(chan struct{})}
		o.held.Store(true)
		close(o.done)
		return o
	}
	ctx, stop := context.WithCancel(context.Background())
	o := &Ownership{stop: stop, done: make(chan struct{})}
	go o.campaign(ctx, e.cli, e.prefix+"owner/"+name)
	return o
}

// Held reports whether this process owns the work now, as far as it knows:
// a commit that depends on it must call Fence, since the lease may have
// ended a moment ago.
func (o *Ownership) Held() bool { return o.held.Load() }

// Fence makes tx commit only if this process still owns the work when it
// commits: a deposed owner's transaction fails its compare, is re-run, and
// then gets ErrNotOwner from Fence. Over an in-process engine it does
// nothing. It returns ErrNotOwner, or the error of reading the election key.
func (o *Ownership) Fence(tx *Tx) error {
	if o.local {
		return nil
	}
	o.mu.Lock()
	key, rev := o.key, o.rev
	o.mu.Unlock()
	t, ok := tx.t.(*etcdTxn)
	if !ok || key == "" || !o.held.Load() {
		return ErrNotOwner
	}
	kvs, _ := t.fetch(key, "", 0, false)
	if t.err != nil {
		return t.err
	}
	if len(kvs) == 0 || kvs[0].create != rev {
		return ErrNotOwner
	}
	if t.fences == nil {
		t.fences = map[string]int64{}
	}
	t.fences[key] = rev
	return nil
}

// Close gives the work up and waits until the claim is released.
func (o *Ownership) Close() {
	if o.stop != nil {
		o.stop()
	}
	<-o.done
}

// campaign runs elections for name until ctx ends: one session, campaign,
// hold while the session lives, and again with a new session.
func (o *Ownership) campaign(ctx context.Context, cli *clientv3.Client, name string) {
	defer close(o.done)
	for ctx.Err() == nil {
		if err := o.term(ctx, cli, name); err != nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// term is one session: it campaigns, holds the work while the session
// lives, and resigns when ctx ends.
func (o *Ownership) term(ctx context.Context, cli *clientv3.Client, name string) error {
	// Not ctx: the session must outlive it, so that resign below can
	// still revoke the lease.
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(ownerTTL))
	if err != nil {
		return err
	}
	defer resign(cli, s)
	el := concurrency.NewElection(s, name)
	// Campaign, when ctx ends, resigns with the client's own context, which
	// waits for an etcd that may be down: wait for it only while ctx lives.
	// The abandoned call returns once etcd answers or the client closes.
	won := make(chan error, 1)
	go func() { won <- el.Campaign(ctx, "") }()
	select {
	case err := <-won:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return ctx.Err()
	}
	o.mu.Lock()
	o.key, o.rev = el.Key(), el.Rev()
	o.mu.Unlock()
	o.held.Store(true)
	select {
	case <-ctx.Done():
	case <-s.Done():
	}
	o.held.Store(false)
	o.mu.Lock()
	o.key, o.rev = "", 0
	o.mu.Unlock()
	return nil
}

// resign ends session s and revokes its lease at once, so that the next
// owner need not wait for it to expire; when etcd does not answer within a
// second the lease expires by itself (ownerTTL).
func resign(cli *clientv3.Client, s *concurrency.Session) {
	s.Orphan()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = cli.Revoke(ctx, s.Lease())
}
