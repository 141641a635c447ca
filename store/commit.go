package store

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// maxBatch bounds how many Update calls share one transaction, so that a
// failing call (which forces the others to be re-run) costs a bounded amount.
const maxBatch = 1024

// gatherRounds is how many times the committer yields to gather more
// requests into a batch before running it.
const gatherRounds = 2

// Request states: the committer claims a pending request before running it;
// a caller whose context ends abandons a request that is still pending.
const (
	reqPending int32 = iota
	reqClaimed
	reqAbandoned
)

// request is one Update call waiting for the committer.
type request struct {
	ctx   context.Context
	fn    func(tx *Tx) error
	pre   []Prefetch // what fn will read (UpdatePrefetch); only over etcd
	state atomic.Int32
	err   error         // written by the committer before done is closed
	done  chan struct{} // closed when err is final
}

func (r *request) finish(err error) {
	r.err = err
	close(r.done)
}

// queue holds requests waiting for the committer.
type queue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	reqs    []*request
	closing bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) push(r *request) {
	q.mu.Lock()
	q.reqs = append(q.reqs, r)
	q.mu.Unlock()
	q.cond.Signal()
}

// take blocks until requests are queued and returns up to maxBatch of them, or
// returns nil once the queue is closing and empty.
func (q *queue) take() []*request {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.reqs) == 0 && !q.closing {
		q.cond.Wait()
	}
	n := min(len(q.reqs), maxBatch)
	if n == 0 {
		return nil
	}
	batch := make([]*request, n)
	copy(batch, q.reqs)
	rest := copy(q.reqs, q.reqs[n:])
	clear(q.reqs[rest:])
	q.reqs = q.reqs[:rest]
	return batch
}

// takeMore appends to batch, without blocking, requests queued since, up
// to maxBatch in all.
func (q *queue) takeMore(batch []*request) []*request {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.reqs), maxBatch-len(batch))
	if n <= 0 {
		return batch
	}
	batch = append(batch, q.reqs[:n]...)
	rest := copy(q.reqs, q.reqs[n:])
	clear(q.reqs[rest:])
	q.reqs = q.reqs[:rest]
	return batch
}

func (q *queue) close() {
	q.mu.Lock()
	q.closing = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// Update runs fn in a read-write transaction and commits it. Calls made while
// an earlier commit is in flight are gathered into one bbolt transaction and
// one fsync (group commit); nothing waits on a timer.
//
// If fn returns an error, Update returns it and none of fn's changes are kept,
// while the other calls in the same batch still commit. To achieve that the
// batch may be rolled back and re-run without the failing call, so fn may be
// called more than once and must depend only on what it reads through tx. A
// panic in fn is recovered and returned to that caller only, wrapping ErrPanic.
//
// Update returns ctx.Err() if ctx ends before fn starts (once fn has started,
// Update waits for the commit), ErrClosed after Close, or the commit's error.
// fn runs on the committer goroutine: it must not call Update (deadlock), keep
// tx after returning, or call runtime.Goexit. Slices obtained through tx are
// valid only until fn returns.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	return db.update(ctx, nil, fn)
}

// update is Update, with what fn will read (UpdatePrefetch).
func (db *DB) update(ctx context.Context, pre []Prefetch, fn func(tx *Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !db.enter() {
		return ErrClosed
	}
	defer db.inflight.Done()

	r := &request{ctx: ctx, fn: fn, pre: pre, done: make(chan struct{})}
	db.queue.push(r)
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqPending, reqAbandoned) {
			return ctx.Err()
		}
		<-r.done // fn already started: its outcome is the answer
		return r.err
	}
}

// commitLoop is the committer goroutine started by Open. It exits, closing
// db.committerDone, when Close has closed the queue and every queued request
// has been answered.
func (db *DB) commitLoop() {
	defer close(db.committerDone)
	for {
		batch := db.queue.take()
		if batch == nil {
			return
		}
		// Let the goroutines that are about to call Update (other requests
		// being decoded) run before committing: a commit costs about the
		// same for one write as for many, so gathering them is most of
		// group commit's gain. Gosched returns at once when nothing else is
		// runnable, so a lone writer does not wait.
		for range gatherRounds {
			runtime.Gosched()
			batch = db.queue.takeMore(batch)
		}
		db.runBatch(batch)
	}
}

// runBatch runs the claimable requests of batch in one transaction and
// commits it. A call that fails after writing forces a rollback; it is
// answered with its error and the rest are re-run in a fresh transaction. A
// call that fails without writing needs no rollback: it changed nothing.
func (db *DB) runBatch(batch []*request) {
	live := batch[:0]
	for _, r := range batch {
		if !r.state.CompareAndSwap(reqPending, reqClaimed) {
			continue // abandoned by its caller
		}
		if err := r.ctx.Err(); err != nil {
			r.finish(err)
			continue
		}
		live = append(live, r)
	}

	db.runLive(live)
}

// runLive runs claimed requests in one transaction and commits it, as
// runBatch says. Over an optimistic engine (etcd) a commit that conflicts
// with another process's re-runs them all on a fresh snapshot (those whose
// context has not ended), and a batch
// too large for one etcd transaction is split in two. Over a synced log the
// commit is pipelined (wal_pipeline.go): runLive returns once the record is
// written, and the calls are answered when it is durable.
func (db *DB) runLive(live []*request) {
	results := make([]error, len(live))
	// refused: calls that failed after writing, rolled back and taken out
	// of live. What they read may belong to a commit still in the
	// pipeline, so they are answered with the others.
	var refused []*request
	local := true // over etcd, read the local copy until a commit conflicts
	for attempt := 0; len(live) > 0; attempt++ {
		t, err := db.eng.begin(true)
		if err != nil {
			finishAll(live, err)
			break
		}
		if db.optimistic && !(local && t.(*etcdTxn).readLocal()) {
			t.(*etcdTxn).prefetch(batchPrefetch(live))
		}
		failed := -1
		for i, r := range live {
			tx := &Tx{t: t}
			dirty, err := runFn(r.fn, tx)
			if db.optimistic && t.(*etcdTxn).failure() != nil {
				break // fn saw missing data: the commit fails below
			}
			if err != nil && dirty {
				failed = i
				r.err = err
				break
			}
			results[i] = err
		}
		if failed >= 0 {
			t.rollback()
			refused = append(refused, live[failed])
			live = append(live[:failed], live[failed+1:]...)
			results = results[:len(live)]
			continue
		}
		if mt, ok := t.(*memTxn); ok && mt.pipelined() {
			mt.commitAsync(func(err error) {
				answer(live, results, err)
				finishRefused(refused)
			})
			return
		}
		if err = t.commit(); err != nil {
			switch {
			case db.optimistic && retryable(err):
				// Nothing applied: a caller whose context has ended
				// gets its error rather than another attempt.
				live, results = dropEnded(live, results)
				local = false
				backoff(attempt)
				continue
			case db.optimistic && tooLarge(err) && len(live) > 1:
				finishRefused(refused)
				db.runLive(live[:len(live)/2])
				db.runLive(live[len(live)/2:])
				return
			}
		}
		answer(live, results, err)
		break
	}
	finishRefused(refused)
}

// answer finishes the calls of one commit: each with its own result, or
// all with the commit's error.
func answer(live []*request, results []error, err error) {
	if err != nil {
		finishAll(live, fmt.Errorf("store: commit: %w", err))
		return
	}
	for i, r := range live {
		r.finish(results[i])
	}
}

// finishRefused answers the calls that failed after writing with their
// own errors (already in r.err).
func finishRefused(refused []*request) {
	for _, r := range refused {
		r.finish(r.err)
	}
}

// dropEnded answers the requests whose context has ended with its error
// and returns the others, with their results.
func dropEnded(live []*request, results []error) ([]*request, []error) {
	n := 0
	for _, r := range live {
		if err := r.ctx.Err(); err != nil {
			r.finish(err)
			continue
		}
		live[n] = r
		n++
	}
	return live[:n], results[:n]
}

func finishAll(reqs []*request, err error) {
	for _, r := range reqs {
		r.finish(err)
	}
}

// runFn calls fn, turning a panic into an error wrapping ErrPanic. dirty
// reports whether the transaction may have been changed: true if fn wrote or
// panicked (a panic may interrupt a write half-way through fn's own logic).
func runFn(fn func(tx *Tx) error, tx *Tx) (dirty bool, err error) {
	defer func() {
		tx.done = true
		if p := recover(); p != nil {
			dirty, err = true, fmt.Errorf("%w: %v", ErrPanic, p)
		}
	}()
	err = fn(tx)
	return tx.dirty, err
}
