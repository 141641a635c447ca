package main

import (
	"context"
	"errors"
	"sync"
	"time"
)

// op performs one request and reports how many items it read or wrote.
type op func(ctx context.Context) (items int, err error)

// errExhausted is returned by an op that has no work left (setup's load), as
// opposed to a timed workload, which stops at its deadline.
var errExhausted = errors.New("no more work")

// runWorkers runs concurrency workers, each calling the op made for it by
// newOp until the deadline passes (a zero deadline means until the op returns
// errExhausted) or ctx is cancelled. Requests in flight at the deadline are
// allowed to finish, so they are measured rather than counted as errors.
func runWorkers(ctx context.Context, concurrency int, deadline time.Time, newOp func(worker int) op) summary {
	recs := make([]*recorder, concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range concurrency {
		rec := &recorder{}
		recs[w] = rec
		o := newOp(w)
		wg.Go(func() { work(ctx, deadline, o, rec) })
	}
	wg.Wait()
	return merge(recs, time.Since(start))
}

func work(ctx context.Context, deadline time.Time, o op, rec *recorder) {
	for ctx.Err() == nil && (deadline.IsZero() || time.Now().Before(deadline)) {
		t0 := time.Now()
		n, err := o(ctx)
		elapsed := time.Since(t0)
		switch {
		case errors.Is(err, errExhausted):
			return
		case errors.Is(err, context.Canceled):
			// Cancelled by Ctrl-C or by a failing sibling (setup); the
			// cause is recorded by whoever cancelled.
			return
		case err != nil:
			rec.failure(err)
		default:
			rec.success(elapsed, n)
		}
	}
}
