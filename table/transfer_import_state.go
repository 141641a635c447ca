package table

import (
	"errors"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// A table an import creates is CREATING until the import ends, as the
// service keeps it: its definition records the import (tableMeta.Importing)
// from the transaction that creates it to the one that records the
// import's end, so every front-end sharing the store, and a server
// restarted after kill -9, sees it so. Meanwhile:
//
//   - DescribeTable reports it CREATING (tableStatus);
//   - the item operations (reads and writes, PartiQL, bulk loads) answer
//     ResourceNotFoundException, as for a table that is not ACTIVE
//     (notImporting, through table and tableIndex);
//   - UpdateTable, DeleteTable and UpdateTimeToLive answer
//     ResourceInUseException, the backup and point-in-time recovery
//     operations TableNotFoundException, DescribeTimeToLive a
//     ValidationException, as for any CREATING table (creating, inUse).
//
// The import itself writes through neither lookup.

// notImporting refuses the item operations on a table an import creates.
// The catalog's cache takes the import's end a moment after its
// transaction commits (changeTable), when DescribeImport already reports
// it: so a definition cached as importing is read again from the store
// before the refusal.
func (s *Service) notImporting(m *tableMeta, err error) (*tableMeta, error) {
	if err != nil || m.Importing == "" {
		return m, err
	}
	stored, err := s.catalog.stored(s.db, catalogKey(m.Region, m.Name))
	switch {
	case err != nil:
		return nil, err
	case stored == nil || stored.ID != m.ID || stored.Importing != "":
		return nil, ddb.NotFound("")
	}
	return stored, nil
}

// endImport records how import id ended and, in the same transaction,
// makes its table ACTIVE, while this process owns the transfers (o).
func (s *Service) endImport(o *store.Ownership, region, id string, job *importJob) {
	_, name, _ := parseTableARN(job.Desc.TableArn)
	m, err := s.catalog.get(s.db, region, name)
	if err == nil && m != nil && m.ID == job.Desc.TableId && m.Importing == id {
		gone := ddb.NotFound("")
		_, err = s.changeTable(s.bg, m, gone, func(tx *store.Tx, cur, next *tableMeta) error {
			if err := o.Fence(tx); err != nil {
				return err
			}
			next.Importing = ""
			return writeJob(tx, region, kindImport, id, job)
		})
		if !errors.Is(err, gone) {
			if err != nil && !s.jobStopped(err) {
				s.logError("transfer: recording a job's end", "kind", kindImport, "id", id, "err", err)
			}
			return
		}
	}
	s.endJob(o, region, kindImport, id, job) // the table is gone, or not the import's
}
