package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Following a space over etcd (follow.go). The walk reads one snapshot;
// then a watch of the space's data from the revision after it hands apply
// each later commit's changes (one etcd revision each, in order), sized
// from the values etcd sends before (its previous key-values) and after, and
// a watch of the space's marker ends the following when the space is
// dropped. The changes come from every process sharing the store, and
// arrive after their writers were answered: a reader that must see the
// commits made before it asked calls CatchUp first. A watch broken past
// etcd's compacted history ends the following too (apply gets nil), so
// that the next reader walks again.

// errFollowLost is what CatchUp returns once a following over etcd has
// ended: its state no longer follows the store.
var errFollowLost = errors.New("store: the following of the space has ended")

// etcdFollow is the watch side of one Following over etcd.
type etcdFollow struct {
	e      *etcdEngine
	ctx    context.Context // the watches'; cancelled by Stop
	cancel context.CancelFunc
	done   chan struct{} // closed when the watching goroutine has returned

	mu sync.Mutex
	// at is the revision through which both watches have delivered
	// everything; moved is closed and replaced whenever at moves.
	at, dataAt, markerAt int64
	moved                chan struct{}
}

// followEtcd is Follow over etcd.
func (db *DB) followEtcd(e *etcdEngine, f *Following, walk func(tx *Tx) error) error {
	t, _ := e.begin(false)
	_, err := runFn(walk, &Tx{t: t})
	et := t.(*etcdTxn)
	if ferr := et.failure(); ferr != nil {
		err = ferr
	}
	t.rollback()
	if err != nil {
		return err
	}
	rev := et.rev
	if rev == 0 { // the walk read nothing: follow from now
		if rev, err = e.currentRevision(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancel(e.ctx)
	w := &etcdFollow{e: e, ctx: ctx, cancel: cancel, done: make(chan struct{}), at: rev, dataAt: rev, markerAt: rev, moved: make(chan struct{})}
	f.etcd = w
	f.stop = func() {
		cancel()
		<-w.done
	}
	data := e.cli.Watch(ctx, e.prefix+"s"+f.id+"\x00"+string(rune('0'+subData)), clientv3.WithPrefix(), clientv3.WithPrevKV(), clientv3.WithRev(rev+1))
	marker := e.cli.Watch(ctx, e.prefix+"S"+f.id, clientv3.WithRev(rev+1))
	go w.run(f, data, marker)
	f.start()
	return nil
}

// currentRevision returns the store's revision now (a linearizable read).
func (e *etcdEngine) currentRevision() (int64, error) {
	ctx, cancel := context.WithTimeout(e.ctx, e.timeout)
	defer cancel()
	resp, err := e.cli.Get(ctx, e.prefix+"probe", clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// run delivers the watches' changes until the following ends.
func (w *etcdFollow) run(f *Following, data, marker clientv3.WatchChan) {
	defer close(w.done)
	defer w.cancel()
	for {
		var resp clientv3.WatchResponse
		var ok, isData bool
		select {
		case resp, ok = <-data:
			isData = true
		case resp, ok = <-marker:
		}
		if !ok || resp.Canceled || resp.CompactRevision != 0 || resp.Err() != nil {
			f.deliver(nil) // stopped, or changes may have been missed
			w.advance(false, 0, true)
			return
		}
		if !isData && len(resp.Events) > 0 {
			f.deliver(nil) // the marker changes only when the space is dropped
			w.advance(false, 0, true)
			return
		}
		switch {
		case len(resp.Events) > 0:
			if isData {
				deliverByRevision(f, resp.Events, len(w.e.prefix)+len("s")+len(f.id)+2)
			}
			w.advance(isData, resp.Events[len(resp.Events)-1].Kv.ModRevision, false)
		case resp.IsProgressNotify():
			w.advance(isData, resp.Header.Revision, false) // all through it was sent
		}
	}
}

// deliverByRevision hands f the changes of events, one commit (revision)
// at a time; keys lose their first skip bytes (the data keyspace's prefix).
func deliverByRevision(f *Following, events []*clientv3.Event, skip int) {
	var changes []Change
	for i, ev := range events {
		c := Change{Key: ev.Kv.Key[skip:], Old: -1, New: -1}
		if ev.PrevKv != nil {
			c.Old = f.measure(ev.PrevKv.Value)
		}
		if ev.Type == clientv3.EventTypePut {
			c.New = f.measure(ev.Kv.Value)
		}
		changes = append(changes, c)
		if i == len(events)-1 || events[i+1].Kv.ModRevision != ev.Kv.ModRevision {
			f.deliver(changes)
			changes = nil
		}
	}
}

// advance records that one watch (data or marker) has delivered
// everything through rev, or (ended) that the following has ended.
func (w *etcdFollow) advance(data bool, rev int64, ended bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case ended:
		w.at = -1
	case data:
		w.dataAt = max(w.dataAt, rev)
	default:
		w.markerAt = max(w.markerAt, rev)
	}
	if w.at >= 0 {
		w.at = min(w.dataAt, w.markerAt)
	}
	close(w.moved)
	w.moved = make(chan struct{})
}

// catchUpPoll is how often CatchUp asks etcd again for the watches'
// progress: etcd answers a request for it only once the watches are in
// step with the store.
const catchUpPoll = 20 * time.Millisecond

// catchUp waits until everything committed before it was called has been
// applied, within the store's request timeout.
func (w *etcdFollow) catchUp() error {
	target, err := w.e.currentRevision()
	if err != nil {
		return err
	}
	deadline := time.After(w.e.timeout)
	for {
		w.mu.Lock()
		at, moved := w.at, w.moved
		w.mu.Unlock()
		switch {
		case at < 0:
			return errFollowLost
		case at >= target:
			return nil
		}
		if err := w.e.cli.RequestProgress(w.ctx); err != nil {
			return err
		}
		select {
		case <-moved:
		case <-time.After(catchUpPoll):
		case <-deadline:
			return fmt.Errorf("store: following the space: not caught up with revision %d within %s (at %d)", target, w.e.timeout, at)
		}
	}
}
