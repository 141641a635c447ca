package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
)

// Replicated writes consume write capacity in the replica they are applied
// to, as DynamoDB documents: a global table's writes are measured in
// replicated write capacity units (rWCU, provisioned) or replicated write
// request units (rWRU, on demand), one write of an item in every Region,
// and a Time to Live deletion, free in the Region that makes it, costs the
// other replicas a replicated write. What a replicated write costs is what
// the same write costs there locally (the table's units and its local and
// global indexes'); it is not reported to any client (no request asked for
// it) but counted per link in /_ddblocal/replication.
//
// When the replica is throttled (--throttling or its ddblocal:throttling
// tag), a replicated write is admitted like a local one, from the same
// buckets: a replica short of capacity holds its incoming replication back
// (the link's backlog and lag grow, nothing is lost, as the service's
// ReplicationLatency grows) until its buckets refill, and the replicated
// writes it admits leave less for the Region's own writes. A write made
// before the last /_ddblocal/settle (or the link's forced time, see
// drainLinks) is applied at once: its units are consumed, possibly into
// debt, and the Region's own writes pay for it.

// admitReplicated admits mu, a replicated write of change c into the
// replica m, when m is throttled: it returns replication.ErrThrottled when
// m's buckets have no room for it now. A write made before forced (or the
// last settle) is taken without admission. The units are taken in the
// replicator's transaction; a store that re-runs the transaction (etcd)
// may take them twice, erring towards throttling.
func (s *Service) admitReplicated(tx *store.Tx, mu *mutation, c replication.Change, forced int64) error {
	m := mu.meta
	if c.Copy || !s.throttling(m) {
		return nil
	}
	sp := tx.Space(m.ID)
	if sp == nil {
		return nil // applyIn reports it
	}
	var old attr.Item
	if raw := sp.Get(mu.key); raw != nil {
		var err error
		if old, err = attr.DecodeBinary(raw); err != nil {
			return err
		}
	}
	next, err := mu.nextItem(old)
	if err != nil {
		return err
	}
	targets := replicatedTargets(m, mu.key, old, next)
	if c.Time <= max(s.settled.Load(), forced) {
		for _, t := range targets {
			s.limiter.Consume(s.now(), m.ID, throttle.Write, t)
		}
		return nil
	}
	if reasons := s.limiter.Take(s.now(), m.ID, throttle.Write, targets); len(reasons) > 0 {
		return replication.ErrThrottled
	}
	return nil
}

// replicatedTargets is what a write of key from old to next draws on in m:
// the table's partition and each global index whose entry changes.
func replicatedTargets(m *tableMeta, key []byte, old, next attr.Item) []throttle.Target {
	targets := []throttle.Target{{Cap: m.tcap, Hash: hashOf(key), Key: key,
		Units: capacity.WriteUnits(old.Size(), next.Size()), Bytes: int64(next.Size() - old.Size())}}
	for _, d := range m.gsis {
		c := d.Diff(key, old, next)
		u := capacity.IndexWriteUnits(c)
		if u == 0 {
			continue
		}
		k := c.NewKey
		if k == nil {
			k = c.OldKey
		}
		targets = append(targets, throttle.Target{Index: d.Name, Cap: m.gsiCap[d.Name], Hash: hashOf(k), Key: k,
			Units: u, Bytes: int64(c.NewSize - c.OldSize)})
	}
	return targets
}

// replicatedUnits is the write capacity a committed replicated write w
// consumed: what the same write would report as ConsumedCapacity in its
// Region (a copy consumes none).
func replicatedUnits(w written, c replication.Change) float64 {
	if c.Copy {
		return 0
	}
	var mt capacity.Meter
	addWrite(&mt, w)
	return mt.Total()
}
