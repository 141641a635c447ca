package table

import (
	"context"
	"sync"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/kinesis"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/vector"
)

// deliverers runs one kinesis.Deliverer per table with Kinesis streaming
// destinations, in this process: started by the operations, by the first
// logged write after a restart, and by the maintenance ticker for tables
// whose destinations another front-end enabled (cluster mode).
type deliverers struct {
	mu sync.Mutex
	m  map[string]*deliveryRun // by table ID
}

// deliveryRun is a running deliverer and its one-owner claim.
type deliveryRun struct {
	d     *kinesis.Deliverer
	owner *store.Ownership
}

// startDelivery returns table m's deliverer, starting it on first use.
func (s *Service) startDelivery(m *tableMeta) *kinesis.Deliverer {
	s.deliveries.mu.Lock()
	defer s.deliveries.mu.Unlock()
	if s.deliveries.m == nil {
		s.deliveries.m = map[string]*deliveryRun{}
	}
	if run, ok := s.deliveries.m[m.ID]; ok {
		return run.d
	}
	id, scope, name := m.ID, m.Region, m.Name
	run := &deliveryRun{owner: s.db.Own("kinesis/" + id)}
	opts := kinesis.Options{
		DB: s.db, TableID: id, Now: s.opts.Now, Logger: s.opts.Logger, Owner: run.owner,
		Table: func() (kinesis.Table, bool) {
			cur, err := s.catalog.get(s.db, scope, name)
			if err != nil || cur == nil || cur.ID != id {
				return kinesis.Table{}, false
			}
			t := kinesis.Table{Name: cur.Name, Region: access.RegionOf(cur.Region)}
			for _, k := range cur.KeySchema {
				t.KeyNames = append(t.KeyNames, k.AttributeName)
			}
			return t, true
		},
		Watch: func(ctx context.Context, notify func()) { s.db.WatchLog(ctx, id, notify) },
		Sink:  s.opts.Kinesis,
	}
	run.d = kinesis.Start(s.bg, opts)
	s.deliveries.m[id] = run
	return run.d
}

// notifyDelivery tells table m's deliverer, if it runs here, that m was
// written.
func (s *Service) notifyDelivery(m *tableMeta) {
	s.deliveries.mu.Lock()
	run := s.deliveries.m[m.ID]
	s.deliveries.mu.Unlock()
	if run != nil {
		run.d.Notify()
	}
}

// stopDelivery stops a deleted table's deliverer.
func (s *Service) stopDelivery(id string) {
	s.deliveries.mu.Lock()
	run := s.deliveries.m[id]
	delete(s.deliveries.m, id)
	s.deliveries.mu.Unlock()
	if run != nil {
		run.d.Close()
		run.owner.Close()
	}
}

// closeDeliveries stops every deliverer (Close).
func (s *Service) closeDeliveries() {
	s.deliveries.mu.Lock()
	all := s.deliveries.m
	s.deliveries.m = nil
	s.deliveries.mu.Unlock()
	var wg sync.WaitGroup
	for _, run := range all {
		run.d.Close()
		wg.Go(run.owner.Close)
	}
	wg.Wait()
}

// resumeDeliveries starts the deliverer of every table with a destination
// in flight or active that has none running here: after a restart, or
// enabled through another front-end.
func (s *Service) resumeDeliveries(ctx context.Context) error {
	metas, err := s.allTables()
	if err != nil {
		return err
	}
	var start []*tableMeta
	err = s.db.View(func(tx *store.Tx) error {
		s.deliveries.mu.Lock()
		defer s.deliveries.mu.Unlock()
		for _, m := range metas {
			if _, running := s.deliveries.m[m.ID]; running {
				continue
			}
			if sp := tx.Space(m.ID); sp != nil {
				if _, live := kinesis.Floor(sp); live {
					start = append(start, m)
				}
			}
		}
		return nil
	})
	for _, m := range start {
		s.startDelivery(m)
	}
	return err
}

// logHold is the change-log sequence after which table id's records are
// still needed by consumers other than its global indexes (global-table
// replication, Kinesis destinations, the vector indexes' published
// watermark), for the applier's trimming.
func logHold(tx *store.Tx, id string) (uint64, bool) {
	floor, held := replication.Floor(tx, id)
	if sp := tx.Space(id); sp != nil {
		for _, floorOf := range []func(*store.Space) (uint64, bool){kinesis.Floor, vector.Floor} {
			if f, ok := floorOf(sp); ok {
				if !held || f < floor {
					floor = f
				}
				held = true
			}
		}
	}
	return floor, held
}
