package store

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Following a space: a caller that keeps something derived from a space's
// data (insights' sizes per partition and per item collection) learns of
// every committed change to it instead of walking the space again. Follow
// walks a snapshot once, then hands the caller the changes of each later
// commit, in commit order, as sizes rather than values, so that keeping the
// derived state costs the writers nothing but a note of each changed key.
//
// The memory engine (in memory and durable) follows in its one writer,
// which sees every change; over etcd, where other processes write too, a
// watch follows the space (etcd_follow.go), and a reader calls CatchUp to
// see the commits made before it asked.

// ErrNotFollowable is returned by Follow over a store whose engine cannot
// see every change.
var ErrNotFollowable = errors.New("store: this store cannot follow a space")

// Change is one committed change of a followed space's data: a key, and the
// sizes (as the follower's measure gives them) of its value before and
// after the commit, -1 where there was or is no value.
type Change struct {
	Key      []byte
	Old, New int64
}

// Following is one follower of a space, as Follow returned it.
type Following struct {
	id      string
	measure func(val []byte) int64
	apply   func(changes []Change)

	mu     sync.Mutex // serialises apply with itself and with the walk's end
	ready  bool       // the walk has ended: changes are applied as they come
	queued [][]Change // changes committed during the walk
	// ended: Stop was called or the space was dropped; nothing more is
	// noted or applied.
	ended atomic.Bool
	stop  func()
	// etcd is the watch of a following over etcd; nil in-process.
	etcd *etcdFollow
}

// CatchUp returns once every change committed to the space before it was
// called, by any process, has been applied: at once in-process (there a
// commit is applied before its writers are answered); over etcd once the
// watch has delivered the store's revision as of the call, or with an
// error when it cannot within a request's timeout or the following has
// ended (then the caller follows again).
func (f *Following) CatchUp() error {
	if f.etcd == nil {
		return nil
	}
	return f.etcd.catchUp()
}

// Stop ends the following; apply is not called after Stop returns.
func (f *Following) Stop() {
	f.mu.Lock()
	f.ended.Store(true)
	f.mu.Unlock()
	f.stop()
}

// Ended reports whether the following has ended (Stop, or the space was
// dropped: apply was then called with nil).
func (f *Following) Ended() bool { return f.ended.Load() }

// deliver applies one commit's changes of f's space, or (nil) its drop.
func (f *Following) deliver(changes []Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended.Load() {
		return
	}
	if changes == nil {
		f.ended.Store(true)
	}
	if !f.ready {
		f.queued = append(f.queued, changes)
		return
	}
	f.apply(changes)
}

// start applies what was committed during the walk and lets later changes
// through.
func (f *Following) start() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, chs := range f.queued {
		f.apply(chs)
	}
	f.queued, f.ready = nil, true
}

// Follow follows space id (which need not exist yet): walk runs once, on a
// snapshot of the store, and apply is then called with the changes of the
// space's data made by each later commit, in commit order, never
// concurrently with walk or with itself, until Stop; when the space is
// dropped, apply is called once with nil and the following ends. measure
// gives the size of a value as apply receives it; it runs on the writer
// and must be cheap. In-process a commit is applied before its writers are
// answered; over etcd, see CatchUp. It returns ErrNotFollowable over an
// engine that cannot follow, ErrClosed after Close, or walk's error (the
// following is then stopped).
func (db *DB) Follow(id string, measure func(val []byte) int64, walk func(tx *Tx) error, apply func(changes []Change)) (*Following, error) {
	if !db.enter() {
		return nil, ErrClosed
	}
	defer db.inflight.Done()
	f := &Following{id: id, measure: measure, apply: apply}
	if e, ok := db.eng.(*etcdEngine); ok {
		if err := db.followEtcd(e, f, walk); err != nil {
			return nil, err
		}
		return f, nil
	}
	e, ok := db.eng.(*memEngine)
	if !ok {
		return nil, ErrNotFollowable
	}
	f.stop = func() { e.unfollow(f) }
	root := e.follow(f)
	_, err := runFn(walk, &Tx{t: &memTxn{e: e, catalogMap: root.catalog, spaces: root.spaces}})
	if err != nil {
		f.Stop()
		return nil, err
	}
	f.start()
	return f, nil
}

// followers maps a space id to its Following; a map once published is
// never modified.
type followers map[string]*Following

// follow registers f and returns the state its walk must see: the base of
// the next write transaction, with no commit in the pipeline (every change
// after it is noted for f).
func (e *memEngine) follow(f *Following) *memRoot {
	e.writer.Lock()
	defer e.writer.Unlock()
	if e.wal != nil && e.wal.pipe != nil {
		e.wal.pipe.drain()
	}
	root := e.cur.Load()
	if e.head != nil && e.wal.failure() == nil {
		root = e.head
	}
	e.setFollower(f.id, f)
	return root
}

// unfollow forgets f, unless a newer follower of its space replaced it.
func (e *memEngine) unfollow(f *Following) {
	e.writer.Lock()
	defer e.writer.Unlock()
	if cur := e.following.Load(); cur != nil && (*cur)[f.id] == f {
		e.setFollower(f.id, nil)
	}
}

// setFollower publishes a copy of the followers with id's set to f (nil:
// none). Only under e.writer.
func (e *memEngine) setFollower(id string, f *Following) {
	next := followers{}
	if cur := e.following.Load(); cur != nil {
		for k, v := range *cur {
			next[k] = v
		}
	}
	if f == nil {
		delete(next, id)
	} else {
		next[id] = f
	}
	if len(next) == 0 {
		e.following.Store(nil)
		return
	}
	e.following.Store(&next)
}

// noteChange notes a change of key in the data of followed space id, whose
// value was old (nil: none) and is now val (nil: deleted).
func (t *memTxn) noteChange(id string, key, old, val []byte) {
	f := (*t.follows)[id]
	if f == nil || f.ended.Load() {
		return
	}
	c := Change{Key: append([]byte(nil), key...), Old: -1, New: -1}
	if old != nil {
		c.Old = f.measure(old)
	}
	if val != nil {
		c.New = f.measure(val)
	}
	if t.changes == nil {
		t.changes = map[*Following][]Change{}
	}
	t.changes[f] = append(t.changes[f], c)
}

// noteDrop notes that followed space id was dropped.
func (t *memTxn) noteDrop(id string) {
	if f := (*t.follows)[id]; f != nil {
		t.dropped = append(t.dropped, f)
	}
}

// deliverChanges hands a committed transaction's changes to their
// followers, then the drops.
func (t *memTxn) deliverChanges() {
	for f, chs := range t.changes {
		f.deliver(chs)
	}
	for _, f := range t.dropped {
		f.deliver(nil)
	}
}
