package table

import (
	"encoding/json"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Bulk loads and the table's state. The developer guide's "Bulk put items
// considerations" (Table state requirements) says a load starts only on an
// ACTIVE table, or an UPDATING one whose change does not conflict with
// bulk writes: not while the table is being created (a restore and an
// import create theirs), nor while it creates a secondary index (global or
// vector). A change of throughput, streams, TTL or tags leaves it free.
// The guide names neither the error type nor the text: ddblocal answers
// ResourceInUseException ("The operation conflicts with the resource's
// availability"), in the words UpdateTable uses for a table in use
// (catalog_describe.go's inUse), the index named when one is being created.

// checkBulkState refuses a load into m while m is created, imported into,
// or creates an index.
func (s *Service) checkBulkState(m *tableMeta) error {
	now := s.now().UnixNano()
	creating := ddb.Errorf(ddb.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being created: %s", m.Name)
	if s.tableStatus(m, now) == "CREATING" {
		return creating
	}
	importing, err := s.importInto(m)
	if err != nil {
		return err
	}
	if importing {
		return creating
	}
	if len(m.GlobalSecondaryIndexes) > 0 {
		stats, err := s.stats(m)
		if err != nil {
			return err
		}
		for _, ix := range s.describeGlobalIndexes(m, stats, now) {
			if ix.IndexStatus == "CREATING" {
				return indexInUse(m, ix.IndexName)
			}
		}
	}
	if len(m.VectorIndexes) > 0 {
		for _, v := range s.describeVectorIndexes(m, now) {
			if v.IndexStatus == "CREATING" {
				return indexInUse(m, v.IndexName)
			}
		}
	}
	return nil
}

func indexInUse(m *tableMeta, index string) error {
	return ddb.Errorf(ddb.ResourceInUseException, "Attempt to change a resource which is still in use: Index is being created: %s (table %s)", index, m.Name)
}

// importInto reports whether an import into m is in progress, on whichever
// front-end runs it: the service keeps an imported table CREATING until
// the import ends.
func (s *Service) importInto(m *tableMeta) (bool, error) {
	var found bool
	var err error
	verr := s.db.View(func(tx *store.Tx) error {
		eachJob(tx, m.Region, kindImport, func(raw []byte) bool {
			var j importJob
			if err = json.Unmarshal(raw, &j); err != nil {
				return false
			}
			found = j.Desc.ImportStatus == "IN_PROGRESS" && j.Desc.TableId == m.ID
			return !found
		})
		return nil
	})
	if err == nil {
		err = verr
	}
	return found, err
}
