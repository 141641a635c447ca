package store

import (
	"context"
	"errors"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// ErrNotShared is returned by PutExpiring over an engine that is not shared
// with other processes: there, a process's own memory does that job better.
var ErrNotShared = errors.New("store: expiring records need a shared (etcd) store")

// Shared reports whether other processes share this store (cluster mode):
// then state kept in this process's memory is not seen by the others.
func (db *DB) Shared() bool { return db.optimistic }

// GetExpiring returns the expiring record stored under key by PutExpiring,
// or nil if there is none (or it has expired). The slice is valid until the
// transaction ends and must not be modified. Over a store that is not
// Shared it always returns nil.
func (tx *Tx) GetExpiring(key []byte) []byte {
	t, ok := tx.t.(*etcdTxn)
	if tx.done || !ok {
		return nil
	}
	return t.getKey(t.e.prefix + "e" + string(key))
}

// PutExpiring stores val under key, in its own keyspace, for at least ttl
// and at most ttl plus a minute, in the same transaction as the rest (etcd
// deletes it with a lease). It copies val. It returns ErrNotShared over a
// store that is not Shared, ErrKeyRequired, ErrReadOnly, ErrTxClosed, or the
// error of granting the lease.
func (tx *Tx) PutExpiring(key, val []byte, ttl time.Duration) error {
	if err := tx.write(); err != nil {
		return err
	}
	t, ok := tx.t.(*etcdTxn)
	if !ok {
		return ErrNotShared
	}
	if len(key) == 0 {
		return ErrKeyRequired
	}
	id, err := t.e.leases.get(t.e.ctx, t.e.cli, ttl, t.e.timeout)
	if err != nil {
		return err
	}
	k := t.e.prefix + "e" + string(key)
	if err := t.putKey(k, append([]byte(nil), val...)); err != nil {
		return err
	}
	if t.leased == nil {
		t.leased = map[string]clientv3.LeaseID{}
	}
	t.leased[k] = id
	return nil
}

// leaseCache shares one etcd lease among the expiring records written
// within a minute, rather than granting one per record.
type leaseCache struct {
	mu      sync.Mutex
	id      clientv3.LeaseID
	ttl     time.Duration
	granted time.Time
}

// get returns a lease that expires between ttl and ttl plus a minute from now.
func (c *leaseCache) get(ctx context.Context, cli *clientv3.Client, ttl, timeout time.Duration) (clientv3.LeaseID, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id != 0 && c.ttl == ttl && time.Since(c.granted) < time.Minute {
		return c.id, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	granted := time.Now()
	resp, err := cli.Grant(ctx, int64((ttl+time.Minute)/time.Second))
	if err != nil {
		return 0, err
	}
	c.id, c.ttl, c.granted = resp.ID, ttl, granted
	return c.id, nil
}
