package table

import "github.com/ddblocal/ddblocal/store"

// tableHook is one feature that keeps state of its own per table, and so
// must learn when a table comes and goes. Each field may be nil.
type tableHook struct {
	name string
	// created runs after a table's creation (or restore) commits.
	created func(m *tableMeta)
	// dropping runs inside the store transaction that deletes table m (the
	// definition tx sees, before its spaces go); keep reports that the
	// feature still needs the table's space, which is then not dropped.
	dropping func(tx *store.Tx, m *tableMeta) (keep bool, err error)
	// dropped runs after that transaction commits, with the table's id.
	dropped func(id string)
}

// lifecycle is the one list of features with per-table state, in the order
// they are told. A new feature that keeps state per table adds its entry
// here; CreateTable, RestoreTable* and DeleteTable name none of them.
func (s *Service) lifecycle() []tableHook {
	return []tableHook{
		{name: "backup", dropping: func(tx *store.Tx, m *tableMeta) (bool, error) {
			return false, s.deletedTableBackup(tx, m)
		}},
		{name: "streams", dropping: func(tx *store.Tx, m *tableMeta) (bool, error) {
			return retainStreams(tx, m, s.now().UnixNano())
		}},
		{name: "gsi", dropped: s.stopApplier},
		{name: "consistency", dropped: s.history.Drop},
		{name: "insights", dropped: s.insights.Drop},
		{name: "throttle", dropped: s.limiter.Forget},
		{name: "kinesis", dropped: s.stopDelivery},
	}
}

// tableCreated tells every feature that m was created.
func (s *Service) tableCreated(m *tableMeta) {
	for _, h := range s.lifecycle() {
		if h.created != nil {
			h.created(m)
		}
	}
}

// dropTable tells every feature, inside tx, that table m is being
// deleted, then drops m's index spaces and, unless a feature keeps it, its
// table space.
func (s *Service) dropTable(tx *store.Tx, m *tableMeta) error {
	kept := false
	for _, h := range s.lifecycle() {
		if h.dropping == nil {
			continue
		}
		keep, err := h.dropping(tx, m)
		if err != nil {
			return err
		}
		kept = kept || keep
	}
	for _, ix := range m.indexes() {
		if err := tx.DropSpace(indexSpaceID(m, ix.Name)); err != nil {
			return err
		}
	}
	if kept {
		return nil
	}
	return tx.DropSpace(m.ID)
}

// tableDropped tells every feature that the table with id id is gone.
func (s *Service) tableDropped(id string) {
	for _, h := range s.lifecycle() {
		if h.dropped != nil {
			h.dropped(id)
		}
	}
}
