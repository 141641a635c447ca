package table

import (
	"github.com/ddblocal/ddblocal/ddb"
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
	// An import keeps its table CREATING (tableMeta.Importing) until it
	// ends, whichever front-end runs it.
	if s.tableStatus(m, now) == "CREATING" {
		return ddb.Errorf(ddb.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being created: %s", m.Name)
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
