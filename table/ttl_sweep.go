package table

import (
	"context"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/store"
)

// Time to Live: a sweeper deletes items whose TTL attribute, a Number of
// epoch seconds, is in the past by the server's clock (plus Options.TTLDelay).
// Other types, missing attributes and times more than five years past never
// expire, as in DynamoDB. A deletion is an ordinary mutation (one store
// transaction that updates local indexes and logs the change for global
// indexes and streams) marked expired, and consumes no capacity.

// Sweeper timing.
const (
	ttlBatch = 1000 // expired keys collected per table per pass
	// ttlIgnoreAge: DynamoDB does not delete items whose expiry is more than
	// five years in the past.
	ttlIgnoreAge = 5 * 365 * 24 * time.Hour
)

// sweepTTL deletes every item expired now in every table with Time to Live
// enabled, and returns once they are deleted.
func (s *Service) sweepTTL(ctx context.Context) error {
	s.sweeping.Lock() // one pass at a time: the ticker and clock moves
	defer s.sweeping.Unlock()
	metas, err := s.allTables()
	if err != nil {
		return err
	}
	for _, m := range metas {
		// In cluster mode the table's owner sweeps it; a second sweeper
		// would be harmless (each delete re-checks the item) but wasteful.
		if m.TTLAttribute == "" || !s.owns(m.ID) {
			continue
		}
		for {
			n, err := s.sweepTable(ctx, m)
			if err != nil {
				return err
			}
			if n < ttlBatch {
				break
			}
		}
	}
	return nil
}

// sweepTable deletes up to ttlBatch of m's expired items and returns how many
// it found.
func (s *Service) sweepTable(ctx context.Context, m *tableMeta) (int, error) {
	now := s.now()
	var keys [][]byte
	names := []string{m.TTLAttribute}
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return nil
		}
		var derr error
		err := sp.Ascend(nil, nil, func(k, v []byte) bool {
			it, err := attr.DecodeBinaryNames(v, names)
			if err != nil {
				derr = err
				return false
			}
			if s.ttlExpired(m, k, it, now) {
				keys = append(keys, append([]byte(nil), k...))
			}
			return len(keys) < ttlBatch
		})
		if err == nil {
			err = derr
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		mu := &mutation{meta: m, key: k, expired: true, next: func(old attr.Item) (attr.Item, error) {
			if old == nil || s.ttlExpired(m, k, old, now) {
				return nil, nil
			}
			return old, nil // changed since the scan: keep it
		}}
		if _, err := s.commit(ctx, writeService, mu); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// ttlExpired reports whether item (stored under key in m) has expired at now.
func (s *Service) ttlExpired(m *tableMeta, key []byte, item attr.Item, now time.Time) bool {
	v, ok := item[m.TTLAttribute]
	if !ok || v.T != attr.TypeN {
		return false
	}
	delay := s.ttlDelay(m, key)
	due := strconv.FormatInt(now.Add(-delay).Unix(), 10)
	floor := strconv.FormatInt(now.Add(-delay-ttlIgnoreAge).Unix(), 10)
	return attr.CompareNumbers(v.S, due) <= 0 && attr.CompareNumbers(v.S, floor) >= 0
}

// ttlDelay is how long item key of m outlives its expiry: a pure function of
// the seed, the table and the key, so runs are reproducible.
func (s *Service) ttlDelay(m *tableMeta, key []byte) time.Duration {
	l := s.opts.TTLDelay
	if l.IsZero() {
		return 0
	}
	h := fnv.New64a()
	h.Write(key)
	return s.policy.RecordDelay(l, "ttl/"+m.Region+"/"+m.Name, h.Sum64())
}
