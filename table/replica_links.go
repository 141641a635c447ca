package table

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
)

// replicators runs one replication.Replicator per link between two
// replicas of a global table (both ways for each pair), in this process.
type replicators struct {
	mu       sync.Mutex
	m        map[link]*linkRun
	paused   map[string]bool     // Regions cut off by PauseRegion
	denied   map[string]denial   // tables the replication service may not replicate, by table space id (replica_authorize.go)
	inflight map[string]inflight // MRSC writes replicating, by global table and key (replica_strong.go)
}

// link is a source and a target table space id.
type link struct{ source, target string }

// linkRun is a running link: its replicator, its one-owner claim (cluster
// mode) and its endpoints' Regions.
type linkRun struct {
	r              *replication.Replicator
	owner          *store.Ownership
	source, target replication.Endpoint
	name           string // the global table's name
	scope          string // the source table's scope
	// forced is a time (Unix nanoseconds) before which the link's writes
	// are due at once and admitted whatever the target's capacity, as
	// before a settle: drainLinks sets it.
	forced atomic.Int64
}

func newReplicators() *replicators {
	return &replicators{m: map[link]*linkRun{}, paused: map[string]bool{}, denied: map[string]denial{}, inflight: map[string]inflight{}}
}

// held reports whether link l, running as run, must not apply anything:
// its source's or target's Region is paused, or the replication service
// may not replicate to or from one of its tables. rs.mu is held.
func (rs *replicators) held(l link, run *linkRun) bool {
	_, src := rs.denied[l.source]
	_, dst := rs.denied[l.target]
	return rs.paused[run.source.Region] || rs.paused[run.target.Region] || src || dst
}

// applyHolds pauses every held link and resumes the others. rs.mu is held.
func (rs *replicators) applyHolds() {
	for l, run := range rs.m {
		switch {
		case rs.held(l, run) && !run.r.Paused():
			run.r.Pause()
		case !rs.held(l, run) && run.r.Paused():
			run.r.Resume()
		}
	}
}

// startLinks starts every link to and from m's global table's members that
// is not running yet.
func (s *Service) startLinks(m *tableMeta) {
	members := []*tableMeta{m}
	for _, r := range m.Replicas {
		if r.Status == replicaDeleting {
			continue
		}
		if o, err := s.catalog.get(s.db, memberScope(m, r.Region), m.Name); err == nil && o != nil {
			members = append(members, o)
		}
	}
	s.seedDenials(m, members)
	for _, a := range members {
		for _, b := range members {
			if a != b {
				s.startLink(a, b)
			}
		}
	}
	s.reauthorize(m)
}

// seedDenials holds the links of members whose definition records that the
// replication service was not authorized for them (after a restart, or on
// another front-end) before those links start: reauthorize, which checks
// the policies again, runs only once they have, and a link started
// unheld could apply a change it must not meanwhile.
func (s *Service) seedDenials(m *tableMeta, members []*tableMeta) {
	if s.opts.Policies == nil || !m.multiAccount() { // as reauthorize, which would never clear them
		return
	}
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	for _, t := range members {
		since := t.global().NotAuthorizedSince
		if _, ok := s.replicas.denied[t.ID]; !ok && since != 0 {
			s.replicas.denied[t.ID] = denial{since: since, scope: t.Region, name: t.Name}
		}
	}
}

// startLink starts the replicator from table a to table b unless it runs.
func (s *Service) startLink(a, b *tableMeta) {
	l := link{a.ID, b.ID}
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	if _, ok := s.replicas.m[l]; ok {
		return
	}
	run := &linkRun{owner: s.db.Own("replication/" + a.ID + ">" + b.ID), name: a.Name, scope: a.Region,
		source: replication.Endpoint{ID: a.ID, Region: regionOf(a)}, target: replication.Endpoint{ID: b.ID, Region: regionOf(b)}}
	targetScope := b.Region
	held := s.replicas.held(l, run)
	run.r = replication.Start(s.bg, replication.Options{
		DB: s.db, Source: run.source, Target: run.target,
		Apply:  s.replicaApply(targetScope, b.Name, &run.forced),
		Due:    s.replicationDue(a, run.target.Region, &run.forced),
		Now:    s.opts.Now,
		Logger: s.opts.Logger,
		Owner:  run.owner,
		Watch:  func(ctx context.Context, notify func()) { s.db.WatchLog(ctx, a.ID, notify) },
		Applied: func() {
			if t, err := s.catalog.get(s.db, targetScope, b.Name); err == nil && t != nil && t.ID == b.ID {
				s.applier(t).Notify()
			}
		},
		Paused: held,
	})
	s.replicas.m[l] = run
}

// stopLinks stops every link to or from table space id.
func (s *Service) stopLinks(id string) {
	s.replicas.mu.Lock()
	var stop []*linkRun
	for l, run := range s.replicas.m {
		if l.source == id || l.target == id {
			stop = append(stop, run)
			delete(s.replicas.m, l)
		}
	}
	delete(s.replicas.denied, id)
	s.replicas.mu.Unlock()
	for _, run := range stop {
		run.r.Close()
		run.owner.Close()
	}
}

// closeLinks stops every link (Close).
func (s *Service) closeLinks() {
	s.replicas.mu.Lock()
	all := s.replicas.m
	s.replicas.m = map[link]*linkRun{}
	s.replicas.mu.Unlock()
	var wg sync.WaitGroup
	for _, run := range all {
		run.r.Close()
		wg.Go(run.owner.Close)
	}
	wg.Wait()
}

// links returns the running links, for settling and reporting.
func (s *Service) links() []*linkRun {
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	out := make([]*linkRun, 0, len(s.replicas.m))
	for _, run := range s.replicas.m {
		out = append(out, run)
	}
	return out
}

// notifyReplicas tells the links out of table m that it was written,
// starting them if this process does not run them yet (in cluster mode,
// another front-end made the global table).
func (s *Service) notifyReplicas(m *tableMeta) {
	if len(m.Replicas) == 0 {
		return
	}
	s.replicas.mu.Lock()
	found := false
	for l, run := range s.replicas.m {
		if l.source == m.ID {
			run.r.Notify()
			found = true
		}
	}
	s.replicas.mu.Unlock()
	if !found {
		s.startLinks(m)
	}
}

// resumeLinks starts the links of every global table in the store: after a
// restart, replication picks up where the watermarks are.
func (s *Service) resumeLinks() {
	metas, err := s.regionTables("", "")
	if err != nil {
		s.opts.Logger.Error("replication: listing tables", "err", err)
		return
	}
	for _, m := range metas {
		if len(m.Replicas) > 0 {
			s.startLinks(m)
		}
	}
}

// replicaApply is the Apply of links into table name in scope: a write as
// the service makes it (local indexes, counters, change log with the
// write's origin), of the table's definition as the transaction reads it.
// It returns the write's replicated write units, and replication.ErrThrottled
// when the replica has no capacity for it (replica_capacity.go).
func (s *Service) replicaApply(scope, name string, forced *atomic.Int64) func(tx *store.Tx, c replication.Change) (float64, error) {
	var last []byte
	var m *tableMeta
	return func(tx *store.Tx, c replication.Change) (float64, error) {
		raw := tx.CatalogGet(catalogKey(scope, name))
		if raw == nil {
			return 0, errReplicaGone
		}
		if m == nil || !bytes.Equal(raw, last) {
			var err error
			if m, err = decodeMeta(raw); err != nil {
				return 0, err
			}
			// As the catalog gives it (catalog.get): without it, every
			// write to a table with local indexes exceeds a 0-byte item
			// collection limit, and the link stalls.
			m.collectionLimit = s.catalog.collectionLimit
			last = bytes.Clone(raw)
		}
		item := c.Item
		mu := &mutation{meta: m, key: c.Key, keepLog: true, expired: c.Expired, origin: c.Origin, originTime: c.Time,
			next: func(attr.Item) (attr.Item, error) {
				if item == nil {
					return nil, nil
				}
				return attr.DecodeBinary(item)
			}}
		mu.adm = s.replicatedAdmission(m, c, forced.Load()) // replica_capacity.go
		w, reasons, err := s.applyOne(tx, s.now().UnixNano(), nil, mu)
		if reasons != nil {
			return 0, replication.ErrThrottled
		}
		return replicatedUnits(w, c), err
	}
}

// errReplicaGone stops a batch into a replica whose table was deleted
// while the link ran: the link is being removed.
var errReplicaGone = errors.New("table: replica table deleted")

// replicationDue is the lag of the link from table m to region: records
// are due after Options.ReplicationLag (drawn per record, seeded, for a
// random lag), or at once when written before the last Settle or the
// link's forced time.
func (s *Service) replicationDue(m *tableMeta, region string, forced *atomic.Int64) func(seq uint64, t int64) bool {
	key := m.Region + "/" + m.Name + ">" + region // not the random IDs: runs are reproducible
	return func(seq uint64, t int64) bool {
		l := s.opts.ReplicationLag
		if l.IsZero() || t <= max(s.settled.Load(), forced.Load()) {
			return true
		}
		return t+int64(s.policy.RecordDelay(l, key, seq)) <= s.now().UnixNano()
	}
}

// settleReplication waits until every running link that is not paused has
// applied every write its source had when it was called.
func (s *Service) settleReplication(ctx context.Context) error {
	s.resumeLinks() // any another front-end made
	for _, run := range s.links() {
		if err := s.waitLink(ctx, run); err != nil {
			return err
		}
	}
	return nil
}

// drainLinks waits until every running link to or from table space id that
// is not paused has applied every write its source had when it was called,
// forcing those writes through lag and throttling as a settle does
// (Disassociate's WAIT_FOR_REPLICATION). A paused link is not waited for:
// its Region is cut off.
func (s *Service) drainLinks(ctx context.Context, id string) error {
	now := s.now().UnixNano()
	for _, run := range s.links() {
		if run.source.ID != id && run.target.ID != id {
			continue
		}
		run.forced.Store(max(run.forced.Load(), now))
		if err := s.waitLink(ctx, run); err != nil {
			return err
		}
	}
	return nil
}

// waitLink waits until run has applied every write its source has now,
// unless it is paused or closed.
func (s *Service) waitLink(ctx context.Context, run *linkRun) error {
	var seq uint64
	err := s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(run.source.ID); sp != nil {
			seq = sp.LastLogSeq()
		}
		return nil
	})
	if err == nil {
		err = run.r.WaitFor(ctx, seq)
	}
	if errors.Is(err, replication.ErrPaused) || errors.Is(err, replication.ErrClosed) {
		return nil
	}
	return err
}
