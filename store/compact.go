package store

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Compaction of etcd's history. ddblocal's durable state is keys, not
// history: the change log is records under the space, and every consumer's
// checkpoint (a GSI watermark, a stream iterator's sequence) is a key or a
// log sequence, so compacting history never leaves a consumer with a gap.
// What history serves is snapshots (a transaction reads at one revision,
// for well under etcdTimeout) and watches restarted from a revision. So the
// compactor keeps History of it: it compacts to the revision that was
// current that long ago, never newer.

// CompactOptions configures RunCompactor.
type CompactOptions struct {
	Every   time.Duration // how often to compact; 0 means a minute
	History time.Duration // how much history to keep; 0 means 10 minutes
}

// RunCompactor compacts the etcd history of a Shared store until ctx ends,
// while this process owns the "compactor" work (one front-end of a cluster
// does it). Over an in-process engine it returns at once.
func (db *DB) RunCompactor(ctx context.Context, o CompactOptions) {
	e, ok := db.eng.(*etcdEngine)
	if !ok {
		return
	}
	if o.Every == 0 {
		o.Every = time.Minute
	}
	if o.History == 0 {
		o.History = 10 * time.Minute
	}
	own := db.Own("compactor")
	defer own.Close()
	type sample struct {
		at  time.Time
		rev int64
	}
	var samples []sample // oldest first
	t := time.NewTicker(o.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, e.timeout)
		resp, err := e.cli.Get(rctx, e.prefix+"probe", clientv3.WithCountOnly())
		cancel()
		if err != nil {
			continue
		}
		now := time.Now()
		samples = append(samples, sample{now, resp.Header.Revision})
		// The newest sample at least History old is the target.
		target := int64(0)
		for len(samples) > 0 && now.Sub(samples[0].at) >= o.History {
			target = samples[0].rev
			samples = samples[1:]
		}
		if target == 0 || !own.Held() {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, e.timeout)
		_, _ = e.cli.Compact(cctx, target) // an older compaction is no error to mend
		cancel()
	}
}
