package table

import (
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/replication"
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

// replicatedAdmission is the admission of a replicated write of change c
// into the replica m: nil when m is not throttled or c is part of the
// initial copy, else one taken through the write envelope (applyOne), on
// the old item the write reads there, as a local write's is. A write made
// before forced (or the last settle) is forced: consumed, never refused.
// A refused write fails its batch with replication.ErrThrottled (the
// replicator tries again later). The units are taken in the replicator's
// transaction; a store that re-runs the transaction (etcd) runs Apply and
// so a new admission again, and may take them twice, erring towards
// throttling.
func (s *Service) replicatedAdmission(m *tableMeta, c replication.Change, forced int64) *admission {
	if c.Copy || !s.throttling(m) {
		return nil
	}
	return &admission{mult: 1, forced: c.Time <= max(s.settled.Load(), forced)}
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
