package table

import (
	"encoding/json"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Bulk loads and global tables. The developer guide's "Bulk put items
// considerations" says that bulk put items does not support global tables:
// a load cannot start on a table that is part of a global table (of either
// version, while it becomes one too), and a replica cannot be added to a
// table that has a load in progress. It gives neither the error type nor
// the message; both are ddblocal's (docs/import-export.md).

// checkBulkTarget refuses a bulk load into a replica of a global table.
func checkBulkTarget(m *tableMeta) error {
	if len(m.Replicas) > 0 || m.legacy() {
		return ddb.Errorf(ddb.ValidationException, "Bulk put items does not support global tables: table %s is a replica of a global table", m.Name)
	}
	return nil
}

// checkNoBulkLoad refuses to make m a replica of a global table while a
// bulk load into it is in progress (or being cancelled).
func (s *Service) checkNoBulkLoad(m *tableMeta) error {
	arn, err := s.runningBulkLoad(m)
	if err != nil {
		return err
	}
	if arn != "" {
		return ddb.Errorf(ddb.ValidationException, "Table %s cannot become part of a global table while bulk operation %s is in progress", m.Name, arn)
	}
	return nil
}

// runningBulkLoad returns the ARN of a bulk load into m that has not
// ended, "" when there is none.
func (s *Service) runningBulkLoad(m *tableMeta) (string, error) {
	var arn string
	var err error
	verr := s.db.View(func(tx *store.Tx) error {
		eachJob(tx, m.Region, kindBulk, func(raw []byte) bool {
			var j bulkJob
			if err = json.Unmarshal(raw, &j); err != nil {
				return false
			}
			d := &j.Desc
			live := d.BulkOperationStatus == "IN_PROGRESS" || d.BulkOperationStatus == "CANCELLING"
			if live && len(d.TableDetails) > 0 && d.TableDetails[0].TableId == m.ID {
				arn = d.BulkOperationArn
				return false
			}
			return true
		})
		return nil
	})
	if err == nil {
		err = verr
	}
	return arn, err
}
