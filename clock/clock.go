// Package clock is the server's one clock: wall time by default, moved
// forward (never back) by tests through Advance and Set. Everything that
// depends on time (TTL, stream retention and iterator expiry, idempotency
// windows, eventual lag, timestamps) reads it, and work that a move makes due
// registers with OnMove so that Advance returns only once that work has run.
package clock

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ErrBackward is returned by Advance for a negative duration and by Set for
// an instant before the clock's current time: the clock never goes back.
var ErrBackward = errors.New("clock: the clock never moves backward")

// Clock is wall time plus an offset that only grows, or a frozen time plus an
// offset (Manual). Its methods are safe for concurrent use; Now is cheap
// enough for every request.
type Clock struct {
	base   func() time.Time
	offset atomic.Int64 // nanoseconds added to base()

	mu    sync.Mutex // serialises moves and guards hooks
	hooks []func(ctx context.Context, now time.Time) error
}

// New returns a clock that reads the wall clock until it is moved.
func New() *Clock { return &Clock{base: time.Now} }

// Manual returns a clock frozen at start: it changes only when moved, which
// makes unit tests exact.
func Manual(start time.Time) *Clock {
	return &Clock{base: func() time.Time { return start }}
}

// Now returns the clock's current time.
func (c *Clock) Now() time.Time { return c.base().Add(time.Duration(c.offset.Load())) }

// Offset returns how far Advance and Set have moved the clock in all.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// OnMove registers fn to run after every Advance or Set with the new time,
// in registration order: work the move made due (expiring items, rolling
// stream shards). fn must be safe to call concurrently with everything else
// the server does, and should return once that work is done.
func (c *Clock) OnMove(fn func(ctx context.Context, now time.Time) error) {
	c.mu.Lock()
	c.hooks = append(c.hooks, fn)
	c.mu.Unlock()
}

// Advance moves the clock forward by d, runs the OnMove hooks and returns
// the new time. It returns ErrBackward for a negative d (nothing moves), or
// the first hook error (the clock has moved; later hooks still run).
func (c *Clock) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		return c.Now(), ErrBackward
	}
	c.mu.Lock()
	c.offset.Add(int64(d))
	hooks := c.hooks
	c.mu.Unlock()
	return c.runHooks(ctx, hooks)
}

// Set moves the clock to t, runs the OnMove hooks and returns the new time.
// It returns ErrBackward when t is before Now (nothing moves), or the first
// hook error.
func (c *Clock) Set(ctx context.Context, t time.Time) (time.Time, error) {
	c.mu.Lock()
	now := c.Now()
	if t.Before(now) {
		c.mu.Unlock()
		return now, ErrBackward
	}
	c.offset.Add(int64(t.Sub(now)))
	hooks := c.hooks
	c.mu.Unlock()
	return c.runHooks(ctx, hooks)
}

func (c *Clock) runHooks(ctx context.Context, hooks []func(context.Context, time.Time) error) (time.Time, error) {
	now := c.Now()
	var first error
	for _, fn := range hooks {
		if err := fn(ctx, now); err != nil && first == nil {
			first = err
		}
	}
	return now, first
}
