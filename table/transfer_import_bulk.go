package table

import (
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// An import builds its table whole when nothing else needs its items one
// write at a time: the table has no global or vector index (which follow
// the change log) and keeps no change log (no stream, PITR or eventual
// consistency lag), and the store can (store.Bulk: the memory engine,
// durable or not, not etcd). The items go into a private copy of the
// table's data, which store.Bulk.Install writes to bbolt in key order and
// publishes in the transaction that records the import's last counts:
// no write-ahead record, copy-on-write insert or checkpoint per item.
//
// While it builds, the table is CREATING (DescribeTable), as the service
// keeps an imported table, and refuses every item write, as a missing
// table (ResourceNotFoundException): the data is replaced whole at the end.
// Its progress (counts, no position) is recorded now and then; a server
// killed before the install starts the import again from the first object
// (Progress.Bulk), which builds the data again and replaces whatever bbolt
// held of it.

// bulkProgressEvery is how often a bulk import records its counts for
// DescribeImport.
const bulkProgressEvery = 100 * time.Millisecond

// bulkImportable reports whether m's import may build it whole.
func (s *Service) bulkImportable(m *tableMeta, job *importJob) bool {
	if s.plain || len(m.gsis) > 0 || len(m.vectors) > 0 || len(m.lsis) > 0 || s.keepsLog(m) {
		return false
	}
	// An import begun item by item (by an earlier version) goes on so.
	return job.Progress.Bulk || job.Progress.Written == 0 && job.Progress.Pos.Key == ""
}

// importingTable reports whether m is being built by an import, and so
// takes no writes.
func (s *Service) importingTable(m *tableMeta) bool {
	r := s.transfers
	if r == nil || r.importing.Load() == 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.building[m.ID]
}

// refuseImporting refuses a write to a table an import is building.
func (s *Service) refuseImporting(muts []*mutation) error {
	for _, mu := range muts {
		if s.importingTable(mu.meta) {
			return ddb.NotFound("")
		}
	}
	return nil
}

// setBuilding marks a table as built by an import (on) or not.
func (r *transferRunner) setBuilding(id string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.building[id] = true
		r.importing.Add(1)
		return
	}
	delete(r.building, id)
	r.importing.Add(-1)
}

// loadImportBulk is loadImport building the table whole.
func (s *Service) loadImportBulk(o *store.Ownership, region, id string, job *importJob, m *tableMeta, o3 s3import.Options) (s3import.Stats, error) {
	s.transfers.setBuilding(m.ID, true)
	defer s.transfers.setBuilding(m.ID, false)
	b, ok, err := s.db.NewBulk(m.ID)
	if err != nil || !ok {
		return s3import.Stats{}, err
	}
	d := &job.Desc
	job.Progress = jobProgress{Bulk: true} // from the start, whatever a killed attempt did
	o3.Encoded = true                      // the items are only keyed, checked and stored
	var size int64
	var last time.Time
	st, err := s.readChunks(d.S3BucketSource.S3Bucket, d.S3BucketSource.S3KeyPrefix, o3, s3import.Position{}, 0, func(c s3import.Chunk) error {
		for _, r := range c.Records {
			p := r.Prepared.(*importPrep)
			old, err := b.Put(p.key, p.enc)
			if err != nil {
				return err
			}
			size += int64(p.size)
			if old != nil {
				n, err := attr.BinarySize(old)
				if err != nil {
					return err
				}
				size -= int64(n)
			}
		}
		job.Progress.Written += int64(len(c.Records))
		d.ProcessedItemCount, d.ErrorCount, d.ImportedItemCount = c.Pos.Stats.Processed, c.Pos.Stats.Errors, job.Progress.Written
		if time.Since(last) < bulkProgressEvery {
			return nil
		}
		last = time.Now()
		return s.db.Update(s.bg, func(tx *store.Tx) error { return s.recordBulk(tx, o, region, id, job) })
	})
	if err != nil {
		return st, err
	}
	err = b.Install(s.bg, func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return store.ErrBulkConflict
		}
		items, bytes := sp.Stats()
		if err := sp.AddStats(int64(b.Len())-items, size-bytes); err != nil {
			return err
		}
		return s.recordBulk(tx, o, region, id, job)
	})
	return st, err
}

// recordBulk records a bulk import's counts, while this process owns the
// transfers.
func (s *Service) recordBulk(tx *store.Tx, o *store.Ownership, region, id string, job *importJob) error {
	if err := o.Fence(tx); err != nil {
		return err
	}
	return writeJob(tx, region, kindImport, id, job)
}
