package throttle

import "time"

// bucket is a token bucket on the server's clock. A request is admitted
// while the bucket holds any tokens; what it actually consumed is taken
// afterwards and may leave the bucket in debt, which later refills repay.
// That is how DynamoDB admits a read before it knows the item's size, and
// it means no single request is ever too large to pass.
type bucket struct {
	rate   float64 // tokens per second
	cap    float64 // most tokens held
	tokens float64
	last   time.Time
}

// newBucket returns a bucket refilling at rate up to cap, holding initial
// tokens at now.
func newBucket(rate, cap, initial float64, now time.Time) bucket {
	return bucket{rate: rate, cap: cap, tokens: min(initial, cap), last: now}
}

// refill adds the tokens earned since the last refill. A clock that has not
// moved (a manual clock) earns nothing.
func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.last); dt > 0 {
		b.tokens = min(b.cap, b.tokens+b.rate*dt.Seconds())
		b.last = now
	}
}

// ok reports whether a request may start: some tokens are left.
func (b *bucket) ok(now time.Time) bool {
	b.refill(now)
	return b.tokens > 1e-9
}

// take consumes u tokens.
func (b *bucket) take(now time.Time, u float64) {
	b.refill(now)
	b.tokens -= u
}

// setRate changes the refill rate and cap, keeping the tokens held (up to
// the new cap).
func (b *bucket) setRate(now time.Time, rate, cap float64) {
	b.refill(now)
	b.rate, b.cap = rate, cap
	b.tokens = min(b.tokens, cap)
}
