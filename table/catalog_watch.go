package table

import (
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/store"
)

// catalogChanged is told of each change another front-end (or this one)
// made to the catalog (store.DB.WatchCatalog; nil: any may have been
// missed). It drops the cached definition, and stops this process's
// applier and ownership claim of every table that is gone: deleted through
// another front-end, which stopped only its own.
func (s *Service) catalogChanged(k []byte) {
	s.catalog.forget(k)
	s.appliers.mu.Lock()
	ids := slices.Collect(maps.Keys(s.appliers.owners))
	for id := range s.appliers.m {
		if _, ok := s.appliers.owners[id]; !ok {
			ids = append(ids, id)
		}
	}
	s.appliers.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	live := map[string]bool{}
	err := s.db.View(func(tx *store.Tx) error {
		clear(live)
		return tx.CatalogAscend(nil, func(_, v []byte) bool {
			if m, err := decodeMeta(v); err == nil {
				live[m.ID] = true
			}
			return true
		})
	})
	if err != nil {
		return // the next change, or the owner's fence, will tell
	}
	for _, id := range ids {
		if !live[id] {
			s.stopApplier(id)
		}
	}
}
