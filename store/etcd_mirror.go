package store

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/btree"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// A process's local copy of an etcd store, for eventually consistent reads
// (ReadEventual). The first such read starts it: the store's catalog, space
// markers, log sequences and the spaces' data and metadata (not their change
// logs, commit markers or shard claims) are loaded at one revision, then an
// etcd watch from the revision after it applies every later commit, one
// watch response at a time, to a B-tree of which each applied revision is
// published as an immutable copy (copy-on-write, as the memory engine's
// maps). A read served from a copy sends nothing to etcd.
//
// How stale a copy may be is bounded: a read is served from it only when a
// confirmation began at most mirrorStale ago, a confirmation being a
// linearizable read of etcd's revision followed by the watch's delivery of
// everything through that revision (etcd's progress notification when
// nothing under the prefix changed); so the copy holds every write
// acknowledged, through any process, before then. Reads ask for the next
// confirmation once the last is half that old, so a steady stream of reads
// costs about one etcd request per mirrorStale/2, not one per read. A copy
// that is not confirmed (a broken watch, a slow etcd, the process's first
// reads) sends the read to etcd as Read does, and a read never sees less
// than this process's own commits (a copy behind them is not used), so a
// client writing and reading through one front-end reads its writes.

// mirrorStale bounds how long before an eventually consistent read served
// from the local copy a write acknowledged by any process may be missing
// from it.
const mirrorStale = 100 * time.Millisecond

// mirrorPage is how many keys one request of the copy's load returns.
const mirrorPage = 1000

// mirror is an etcd engine's local copy.
type mirror struct {
	e       *etcdEngine
	epoch   time.Time // fresh is measured from it (a monotonic clock)
	started sync.Once
	running sync.WaitGroup // its goroutines, once started
	snap    atomic.Pointer[mirrorSnap]
	fresh   atomic.Int64  // when the last confirmation began, in ns since epoch (0: never)
	own     atomic.Int64  // the latest revision this process committed
	wake    chan struct{} // a read asks for a confirmation (capacity 1)

	mu    sync.Mutex
	moved chan struct{}   // closed and replaced when a revision is published
	wctx  context.Context // the running watch's context (RequestProgress); nil between watches
}

// mirrorSnap is one published revision of the copy.
type mirrorSnap struct {
	m   *mirror
	t   *btree.BTreeG[kv]
	rev int64
}

func newMirror(e *etcdEngine) *mirror {
	return &mirror{e: e, epoch: time.Now(), wake: make(chan struct{}, 1), moved: make(chan struct{})}
}

// noteCommit records that this process committed revision rev.
func (m *mirror) noteCommit(rev int64) {
	for {
		cur := m.own.Load()
		if cur >= rev || m.own.CompareAndSwap(cur, rev) {
			return
		}
	}
}

// current returns the copy a read may be served from now, or nil (then
// the read goes to etcd). The first call starts the copy.
func (m *mirror) current() *mirrorSnap {
	m.started.Do(func() {
		m.running.Add(2)
		go func() { defer m.running.Done(); m.run() }()
		go func() { defer m.running.Done(); m.confirmLoop() }()
	})
	age := int64(time.Since(m.epoch)) - m.fresh.Load()
	if m.fresh.Load() == 0 || age > int64(mirrorStale/2) {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
	s := m.snap.Load()
	if s == nil || m.fresh.Load() == 0 || age > int64(mirrorStale) || s.rev < m.own.Load() {
		return nil
	}
	return s
}

// stop waits for the copy's goroutines, once the engine's context has
// ended.
func (m *mirror) stop() { m.running.Wait() }

// run loads the copy and keeps it following the store until the engine's
// context ends; a broken watch resumes where it stopped, and from a new load
// when etcd has compacted that revision away.
func (m *mirror) run() {
	var work *btree.BTreeG[kv]
	var rev int64
	for m.e.ctx.Err() == nil {
		if work == nil {
			w, r, err := m.load()
			if err == nil {
				work, rev = w, r
				m.publish(work, rev)
			}
		}
		if work != nil {
			var lost bool
			if rev, lost = m.follow(work, rev); lost {
				work = nil
			}
		}
		select {
		case <-m.e.ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// load reads what the copy holds at one revision, a page at a time.
func (m *mirror) load() (*btree.BTreeG[kv], int64, error) {
	t := btree.NewBTreeGOptions(func(a, b kv) bool { return a.key < b.key }, btree.Options{NoLocks: true})
	end := clientv3.GetPrefixRangeEnd(m.e.prefix)
	from, rev := m.e.prefix, int64(0)
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(mirrorPage)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		ctx, cancel := context.WithTimeout(m.e.ctx, m.e.timeout)
		resp, err := m.e.cli.Get(ctx, from, opts...)
		cancel()
		if err != nil {
			return nil, 0, err
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, x := range resp.Kvs {
			if m.mirrored(string(x.Key)) {
				t.Set(mirrorKV(x.Key, x.Value, x.ModRevision, x.CreateRevision))
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return t, rev, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

func mirrorKV(key, val []byte, mod, create int64) kv {
	if val == nil {
		val = []byte{}
	}
	return kv{key: string(key), val: val, mod: mod, create: create}
}

// follow applies the store's commits after rev to work, publishing each
// watch response's revision, until the watch breaks; it returns the last
// revision applied, and lost when etcd no longer has the next one.
func (m *mirror) follow(work *btree.BTreeG[kv], rev int64) (int64, bool) {
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(m.e.ctx))
	defer cancel()
	m.setWatch(ctx)
	defer m.setWatch(nil)
	for resp := range m.watcher().Watch(ctx, m.e.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		switch {
		case resp.CompactRevision != 0:
			return rev, true
		case resp.Err() != nil:
			return rev, false
		case len(resp.Events) > 0:
			for _, ev := range resp.Events {
				if !m.mirrored(string(ev.Kv.Key)) {
					continue
				}
				if ev.Type == clientv3.EventTypePut {
					work.Set(mirrorKV(ev.Kv.Key, ev.Kv.Value, ev.Kv.ModRevision, ev.Kv.CreateRevision))
				} else {
					work.Delete(kv{key: string(ev.Kv.Key)})
				}
			}
			rev = max(rev, resp.Events[len(resp.Events)-1].Kv.ModRevision)
		case resp.IsProgressNotify():
			rev = max(rev, resp.Header.Revision) // everything through it was sent
		default:
			continue
		}
		m.publish(work, rev)
	}
	return rev, false
}

func (m *mirror) watcher() clientv3.Watcher {
	if m.e.watcher != nil {
		return m.e.watcher
	}
	return m.e.cli
}

func (m *mirror) setWatch(ctx context.Context) {
	m.mu.Lock()
	m.wctx = ctx
	m.mu.Unlock()
}

// publish makes work, as of rev, the copy reads see.
func (m *mirror) publish(work *btree.BTreeG[kv], rev int64) {
	m.snap.Store(&mirrorSnap{m: m, t: work.Copy(), rev: rev})
	m.mu.Lock()
	close(m.moved)
	m.moved = make(chan struct{})
	m.mu.Unlock()
}

// confirmLoop confirms the copy whenever a read asks, until the engine's
// context ends.
func (m *mirror) confirmLoop() {
	for {
		select {
		case <-m.e.ctx.Done():
			return
		case <-m.wake:
		}
		began := max(int64(time.Since(m.epoch)), 1)
		rev, err := m.e.currentRevision()
		if err == nil && m.reach(rev) {
			m.fresh.Store(began)
		}
	}
}

// reach waits until the copy has applied revision rev, asking etcd for the
// watch's progress, and reports whether it did within mirrorStale.
func (m *mirror) reach(rev int64) bool {
	deadline := time.After(mirrorStale)
	ask := true
	for {
		m.mu.Lock()
		moved, wctx := m.moved, m.wctx
		m.mu.Unlock()
		if s := m.snap.Load(); s != nil && s.rev >= rev {
			return true
		}
		if ask && wctx != nil {
			// etcd answers only once the watch is in step with the store.
			_ = m.watcher().RequestProgress(wctx)
		}
		ask = false
		select {
		case <-moved:
		case <-time.After(catchUpPoll):
			ask = true
		case <-deadline:
			return false
		case <-m.e.ctx.Done():
			return false
		}
	}
}

// mirrored reports whether full key k is kept in the copy: a catalog
// record, a space's marker, a log sequence, or a space's data or metadata.
func (m *mirror) mirrored(k string) bool {
	_, ok := m.family(k)
	return ok
}

// family returns the keyspace of the copy that full key k belongs to (the
// prefix its keys share), and false when k is not kept in the copy.
func (m *mirror) family(k string) (string, bool) {
	p := m.e.prefix
	if len(k) <= len(p) || !strings.HasPrefix(k, p) {
		return "", false
	}
	switch k[len(p)] {
	case 'c', 'S', 'q':
		return k[:len(p)+1], true
	case 's':
		i := strings.IndexByte(k[len(p):], 0)
		if i < 0 || len(p)+i+1 >= len(k) {
			return "", false
		}
		n := len(p) + i + 2 // through the sub's byte
		if k[n-1] != byte('0'+subData) && k[n-1] != byte('0'+subMeta) {
			return "", false
		}
		return k[:n], true
	}
	return "", false
}

// fetch serves etcdTxn.fetch's read of [from, to) (to "": just from) from
// the copy, and reports false when the copy does not hold that range.
func (s *mirrorSnap) fetch(from, to string, limit int64, desc bool) ([]kv, bool, bool) {
	fam, ok := s.m.family(from)
	if !ok || (to != "" && to > clientv3.GetPrefixRangeEnd(fam)) {
		return nil, false, false
	}
	if to == "" {
		if x, ok := s.t.Get(kv{key: from}); ok {
			return []kv{x}, false, true
		}
		return nil, false, true
	}
	var out []kv
	more := false
	take := func(x kv) bool {
		if limit > 0 && int64(len(out)) == limit {
			more = true
			return false
		}
		out = append(out, x)
		return true
	}
	if desc {
		s.t.Descend(kv{key: to}, func(x kv) bool {
			if x.key >= to {
				return true
			}
			return x.key >= from && take(x)
		})
	} else {
		s.t.Ascend(kv{key: from}, func(x kv) bool { return x.key < to && take(x) })
	}
	return out, more, true
}

// ReadEventual is Read for an eventually consistent read. Over etcd, fn
// reads this process's local copy of the store (etcd_mirror.go) when it is
// running and current: it then holds every write acknowledged by any
// process up to mirrorStale before the call, and every commit this
// process has made, and costs no etcd request. Otherwise, and over the
// in-process engines, it is Read.
func (db *DB) ReadEventual(fn func(tx *Tx) error) error {
	e, ok := db.eng.(*etcdEngine)
	if !ok || e.mirror == nil {
		return db.Read(fn)
	}
	if !db.enter() {
		return ErrClosed
	}
	s := e.mirror.current()
	if s == nil {
		db.inflight.Done()
		return db.Read(fn)
	}
	t := &etcdTxn{e: e, local: s, rev: s.rev, reads: map[string]int64{}, seen: map[string][]byte{}, writes: map[string]*[]byte{}}
	_, err := runFn(fn, &Tx{t: t})
	t.rollback()
	db.inflight.Done()
	if t.failure() != nil {
		// A key the copy does not hold, read from etcd at the copy's
		// revision, failed (compacted away): read the store itself.
		return db.Read(fn)
	}
	return err
}

// SettleReads makes the eventually consistent reads (ReadEventual) that
// this process begins after it returns see every write acknowledged before
// it was called, by any process: over etcd it reads the store's revision
// and reads no local copy older than that. Over the in-process engines,
// where reads are never stale, it does nothing.
func (db *DB) SettleReads() error {
	e, ok := db.eng.(*etcdEngine)
	if !ok || e.mirror == nil {
		return nil
	}
	rev, err := e.currentRevision()
	if err != nil {
		return err
	}
	e.mirror.noteCommit(rev)
	return nil
}

// mirrorCatchUp bounds how long a batch of writes waits for the local copy
// to hold this process's previous commit (the watch delivers it about when
// etcd answers the commit) before reading etcd instead.
const mirrorCatchUp = 5 * time.Millisecond

// readLocal makes write transaction t, before it reads, read the local
// copy (when current, waiting up to mirrorCatchUp for it to hold this
// process's last commit) instead of prefetching from etcd: its commit
// compares every key it read, so a copy behind another process's commit
// costs a conflict (the batch then runs again reading etcd), never a lost
// update, and a commit that writes nothing checks its reads alone
// (validate). It reports whether t reads the copy.
func (t *etcdTxn) readLocal() bool {
	m := t.e.mirror
	if m == nil || t.rev != 0 || !t.rw {
		return false
	}
	timer := time.NewTimer(mirrorCatchUp)
	defer timer.Stop()
	for {
		m.mu.Lock()
		moved := m.moved
		m.mu.Unlock()
		s := m.current()
		if s != nil {
			t.local, t.rev = s, s.rev
			return true
		}
		if s := m.snap.Load(); s == nil || int64(time.Since(m.epoch))-m.fresh.Load() > int64(mirrorStale) {
			return false // not current: no use waiting
		}
		select {
		case <-moved:
		case <-timer.C:
			return false
		}
	}
}

// validate commits nothing but the compares of what t read: for a write
// transaction that read the local copy (readLocal) and wrote nothing, it
// returns errConflict when something it read has changed since.
func (t *etcdTxn) validate() error {
	cmps, _, _ := t.request()
	ctx, cancel := context.WithTimeout(t.e.ctx, t.e.timeout)
	defer cancel()
	resp, err := t.e.cli.Txn(ctx).If(cmps...).Commit()
	switch {
	case err != nil:
		return err
	case !resp.Succeeded:
		return errConflict
	}
	return nil
}
