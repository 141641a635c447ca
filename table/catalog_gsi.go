package table

import (
	"context"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
)

// backfillChunk is how many items one backfill transaction indexes.
const backfillChunk = 1000

// appliers runs one gsi.Applier per table whose writes are logged (it has a
// global index, or reads that may lag) once one is written, read through a
// global index or settled: the applier maintains the table's global indexes
// from its change log and trims the log. A table without either has none.
type appliers struct {
	mu          sync.Mutex
	m           map[string]*gsi.Applier // by table ID
	backfilling map[string]bool         // by index space ID
	// owners are this process's claims on tables' one-owner work (the
	// applier and the Time to Live sweep), by table ID: in cluster mode one
	// front-end per table does it; alone, this process always owns it.
	owners map[string]*store.Ownership
	// unresumed are the tables, by ID, whose interrupted backfills could
	// not be looked for (the store failed): applier looks again.
	unresumed map[string]bool
}

func newAppliers() *appliers {
	return &appliers{m: map[string]*gsi.Applier{}, backfilling: map[string]bool{}, owners: map[string]*store.Ownership{},
		unresumed: map[string]bool{}}
}

// ownerLocked returns this process's claim on table id's one-owner work,
// starting it on first use; s.appliers.mu is held.
func (s *Service) ownerLocked(id string) *store.Ownership {
	o, ok := s.appliers.owners[id]
	if !ok {
		o = s.db.Own("table/" + id)
		s.appliers.owners[id] = o
	}
	return o
}

// owns reports whether this process does table id's one-owner work now.
func (s *Service) owns(id string) bool {
	s.appliers.mu.Lock()
	defer s.appliers.mu.Unlock()
	return s.ownerLocked(id).Held()
}

// applier returns table m's applier, starting it on first use. Starting it
// also resumes the backfill of any global index that has none finished (the
// server stopped during one).
func (s *Service) applier(m *tableMeta) *gsi.Applier {
	s.appliers.mu.Lock()
	a, ok := s.appliers.m[m.ID]
	if !ok {
		a = s.startApplier(m)
	}
	resume := !ok || s.appliers.unresumed[m.ID]
	delete(s.appliers.unresumed, m.ID)
	s.appliers.mu.Unlock()
	if resume {
		s.resumeBackfills(m, a)
	}
	return a
}

// resumeBackfills starts the backfill of each of m's global indexes that
// has none finished. When the store cannot say (its read failed), the
// table is asked again on its applier's next use instead: a finished
// index taken for an unfinished one would be built again for nothing.
func (s *Service) resumeBackfills(m *tableMeta, a *gsi.Applier) {
	for _, d := range m.gsis {
		_, done, err := a.Watermark(d.Name)
		if err != nil {
			s.appliers.mu.Lock()
			s.appliers.unresumed[m.ID] = true
			s.appliers.mu.Unlock()
			if s.opts.Logger != nil {
				s.opts.Logger.Warn("gsi: cannot tell whether a backfill was interrupted; asking again on next use", "table", m.Name, "index", d.Name, "err", err)
			}
			return
		}
		if !done {
			s.startBackfill(m, d)
		}
	}
}

// startApplier starts m's applier; s.appliers.mu is held.
func (s *Service) startApplier(m *tableMeta) *gsi.Applier {
	region, name, id := m.Region, m.Name, m.ID
	a := gsi.Start(s.bg, gsi.Options{
		DB:      s.db,
		TableID: id,
		Indexes: func() []*index.Def {
			cur, err := s.catalog.get(s.db, region, name)
			if err != nil || cur == nil || cur.ID != id {
				return nil
			}
			return cur.gsis
		},
		SpaceID: func(index string) string { return id + "/" + index },
		Retain: func() time.Duration {
			cur, err := s.catalog.get(s.db, region, name)
			if err != nil || cur == nil {
				return 0
			}
			return max(s.logRetention(cur), streamRetain(cur))
		},
		Due:    s.applierDue(m),
		Hold:   func(tx *store.Tx) (uint64, bool) { return logHold(tx, id) },
		Now:    s.opts.Now,
		Logger: s.opts.Logger,
		Owner:  s.ownerLocked(id),
		Watch:  func(ctx context.Context, notify func()) { s.db.WatchLog(ctx, id, notify) },
	})
	s.appliers.m[m.ID] = a
	return a
}

// stopApplier stops a deleted table's applier.
func (s *Service) stopApplier(tableID string) {
	s.dropFollower(tableID)
	s.appliers.mu.Lock()
	a, ok := s.appliers.m[tableID]
	delete(s.appliers.m, tableID)
	o := s.appliers.owners[tableID]
	delete(s.appliers.owners, tableID)
	delete(s.appliers.unresumed, tableID)
	s.appliers.mu.Unlock()
	if ok {
		a.Close()
	}
	if o != nil {
		o.Close()
	}
}

// Close stops every background goroutine of the service (index appliers and
// backfills) by cancelling their context, and waits for them. The store
// stays open; close it afterwards.
func (s *Service) Close() {
	s.stopBG()
	s.background.Wait()
	s.closeLinks()
	s.closeDeliveries()
	s.stopSizes()
	s.appliers.mu.Lock()
	all, owners := s.appliers.m, s.appliers.owners
	s.appliers.m, s.appliers.owners = map[string]*gsi.Applier{}, map[string]*store.Ownership{}
	s.appliers.mu.Unlock()
	for _, a := range all {
		a.Close()
	}
	// Concurrently: each may wait a second for etcd to revoke its lease.
	var wg sync.WaitGroup
	for _, o := range owners {
		wg.Go(o.Close)
	}
	wg.Wait()
}

// notifyWrite tells table m's applier that write w committed, if w appended
// to the change log: nothing else gives an applier work.
func (s *Service) notifyWrite(m *tableMeta, w written) {
	if w.logged {
		a := s.applier(m) // started on first use: it also trims the log
		if len(m.gsis) > 0 && !w.direct {
			// Only global indexes need the applier at once, and only for a
			// record the write did not apply itself (gsi_direct.go). A table
			// logged for a stream or lagging reads leaves its log's trimming
			// to the applier's tick, rather than wake it after every write
			// for nothing (readers through an index and Settle notify it).
			a.Notify()
		}
		s.notifyVectors(m)
		s.notifyReplicas(m)
		s.notifyDelivery(m)
	}
}

// settleIndexes waits until m's global indexes have applied every write
// acknowledged before it was called: the default read-your-writes
// visibility (and, with lagging indexes, every write before the Settle,
// which another front-end's applier learns of through recordSettle).
func (s *Service) settleIndexes(ctx context.Context, m *tableMeta) error {
	var seq uint64
	err := s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(m.ID); sp != nil {
			seq = sp.LastLogSeq()
		}
		return nil
	})
	if err != nil {
		return err
	}
	a := s.applier(m)
	if err := s.recordSettle(ctx, m); err != nil {
		return err
	}
	a.Notify()
	return a.WaitFor(ctx, seq)
}

// indexReady reports whether global index name has finished its backfill.
// One that has not is being built, or will be once the table's applier
// runs (a restart interrupted the backfill): it is started here.
func (s *Service) indexReady(m *tableMeta, name string) (bool, error) {
	var ok bool
	err := s.db.View(func(tx *store.Tx) error {
		_, ok = gsi.Watermark(tx, m.ID, name)
		return nil
	})
	if err != nil {
		return false, err
	}
	if !ok {
		s.applier(m)
	}
	return ok, nil
}

// startBackfill builds a new global index in the background, unless a
// backfill of it is already running.
func (s *Service) startBackfill(m *tableMeta, d *index.Def) {
	space := indexSpaceID(m, d.Name)
	s.appliers.mu.Lock()
	if s.appliers.backfilling[space] {
		s.appliers.mu.Unlock()
		return
	}
	s.appliers.backfilling[space] = true
	s.appliers.mu.Unlock()
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer func() {
			s.appliers.mu.Lock()
			delete(s.appliers.backfilling, space)
			s.appliers.mu.Unlock()
		}()
		ctx := s.bg
		err := gsi.Backfill(ctx, s.db, m.ID, d, indexSpaceID(m, d.Name), backfillChunk)
		if err != nil && ctx.Err() == nil && s.opts.Logger != nil {
			s.opts.Logger.Error("backfill failed", "table", m.Name, "index", d.Name, "err", err)
		}
		s.applier(m).Notify()
	}()
}
