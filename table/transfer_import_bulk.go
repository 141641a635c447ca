package table

import (
	"slices"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/s3import"
	"github.com/ddblocal/ddblocal/vector"
)

// An import builds its table whole when nothing else needs its items one
// write at a time: the table keeps no change log (ImportTable cannot ask
// for a stream or PITR, and the table takes no UpdateTable until it is
// ACTIVE), and the store can (store.Bulk: the memory engine, durable or
// not, not etcd). An eventual consistency lag (--eventual-lag, or the
// table's tags) does not stop it: the service serves no read of an
// imported table before it is ACTIVE, so no read can see the import
// half done, and the first eventually consistent read after it sees every
// item, as a strongly consistent one does; the lag applies to the writes
// after (TestImportLaggingMatchesPlain, TestImportLaggingTable). A vector index, which follows the
// change log, is built from the table's data instead, as a Follower builds
// a copy it does not hold yet (installVectors). The items go into a private copy of the
// table's data; its global indexes' data is built from that once every
// item is in (buildIndexes: what the index applier would write for each
// item put into the empty table, so their watermarks stay where the
// table's creation put them). store.Bulk.Install writes all of it to
// bbolt in key order and publishes it in the transaction that records the
// import's last counts: no write-ahead record, change-log record,
// copy-on-write insert or checkpoint per item.
//
// While it builds, the table is CREATING and takes no item operation
// (transfer_import_state.go): the data is replaced whole at the end.
// Its progress (counts, no position) is recorded now and then; a server
// killed before the install starts the import again from the first object
// (Progress.Bulk), which builds the data again and replaces whatever bbolt
// held of it.

// bulkProgressEvery is how often a bulk import records its counts for
// DescribeImport.
const bulkProgressEvery = 100 * time.Millisecond

// bulkImportable reports whether m's import may build it whole.
func (s *Service) bulkImportable(m *tableMeta, job *importJob) bool {
	if s.plain || len(m.lsis) > 0 {
		return false
	}
	// An import begun item by item (by an earlier version) goes on so.
	return job.Progress.Bulk || job.Progress.Written == 0 && job.Progress.Pos.Key == ""
}

// loadImportBulk is loadImport building the table whole.
func (s *Service) loadImportBulk(o *store.Ownership, region, id string, job *importJob, m *tableMeta, o3 s3import.Options) (s3import.Stats, error) {
	b, ok, err := s.db.NewBulk(m.ID)
	if err != nil || !ok {
		return s3import.Stats{}, err
	}
	d := &job.Desc
	job.Progress = jobProgress{Bulk: true} // from the start, whatever a killed attempt did
	o3.Encoded = true                      // the items are only keyed, checked and stored
	var last time.Time
	src := d.S3BucketSource
	st, err := s.readChunks(s.s3Store(region, src.S3BucketOwner), src.S3Bucket, src.S3KeyPrefix, o3, s3import.Position{}, 0, func(c s3import.Chunk) error {
		s.logImportErrors(d.ImportArn, c)
		var err error
		o3.CPU.Run(func() { err = putChunk(b, c.Records, o3.CPU) })
		if err != nil {
			return err
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
	var ixs []indexBulk
	var size int64
	o3.CPU.Run(func() {
		if size, err = bulkSize(b, o3.CPU); err == nil {
			ixs, err = s.buildIndexes(m, b, o3.CPU)
		}
	})
	if err != nil {
		return st, err
	}
	others := make([]*store.Bulk, len(ixs))
	for i := range ixs {
		others[i] = ixs[i].b
	}
	err = s.installVectors(m, func() error {
		return b.Install(s.bg, func(tx *store.Tx) error {
			if err := setStats(tx, m.ID, int64(b.Len()), size); err != nil {
				return err
			}
			for i, g := range m.gsis {
				if err := setStats(tx, indexSpaceID(m, g.Name), ixs[i].items, ixs[i].size); err != nil {
					return err
				}
			}
			if err := unpublishVectors(tx, m); err != nil {
				return err
			}
			return s.recordBulk(tx, o, region, id, job)
		}, others...)
	})
	return st, err
}

// installVectors runs install, which replaces m's data whole (and no
// change-log record says so), so that m's vector indexes are built again
// from the data installed: it holds the owner's decisions back meanwhile
// (vectorOwner.step) and then forgets this process's copies (which hold
// the empty table they were built from), and install withdraws the owner's
// publication (unpublishVectors); the owner's next decision, at once,
// builds the indexes from the table and publishes their counts. A table
// without vector indexes is just installed. (The store.Bulk of an install
// is the memory engine, one process: no other front-end holds copies.)
func (s *Service) installVectors(m *tableMeta, install func() error) error {
	if len(m.vectors) == 0 {
		return install()
	}
	o := s.vectorOwnerOf(m)
	o.step.Lock()
	err := install()
	if err == nil {
		s.follower(m).Reset()
	}
	o.step.Unlock()
	if err == nil {
		s.followVectors(m)
	}
	return err
}

// unpublishVectors withdraws the published state of m's vector indexes,
// in the transaction that installs m's data: the indexes it lists were
// built from the data replaced, and their owner publishes them again.
func unpublishVectors(tx *store.Tx, m *tableMeta) error {
	if len(m.vectors) == 0 {
		return nil
	}
	sp := tx.Space(m.ID)
	if sp == nil {
		return store.ErrBulkConflict
	}
	return vector.WriteState(sp, vector.State{})
}

// putChunk puts the records' items (prepared) into b.
func putChunk(b *store.Bulk, recs []s3import.Record, cpu *s3import.Budget) error {
	for i, r := range recs {
		cpu.Pause(i)
		if err := b.Put(r.Prepared.(*importPrep).key, r.Prepared.(*importPrep).enc); err != nil {
			return err
		}
	}
	return nil
}

// bulkSize returns the size of the items b holds.
func bulkSize(b *store.Bulk, cpu *s3import.Budget) (int64, error) {
	var size int64
	var err error
	n := 0
	b.Ascend(func(_, v []byte) bool {
		cpu.Pause(n)
		n++
		var s int
		s, err = attr.BinarySize(v)
		size += int64(s)
		return err == nil
	})
	return size, err
}

// setStats sets space id's item and byte counters.
func setStats(tx *store.Tx, id string, items, size int64) error {
	sp := tx.Space(id)
	if sp == nil {
		return store.ErrBulkConflict
	}
	n, bytes := sp.Stats()
	return sp.AddStats(items-n, size-bytes)
}

// indexBulk is the data of a global index built for an import.
type indexBulk struct {
	b           *store.Bulk
	items, size int64 // its entries, and their projected items' bytes
}

// buildIndexes builds the data of each of m's global indexes from the
// table's data built (b): for each item, the entry the index applier writes
// for a put into an empty index (index.Change.Apply). Only the attributes
// the indexes need are decoded from each stored item (indexEntry);
// TestImportSortedMatchesPlain shows the same bytes as the plain twin's
// import item by item, whose applier decodes each item whole.
func (s *Service) buildIndexes(m *tableMeta, b *store.Bulk, cpu *s3import.Budget) ([]indexBulk, error) {
	out := make([]indexBulk, len(m.gsis))
	for i, g := range m.gsis {
		ib, ok, err := s.db.NewBulk(indexSpaceID(m, g.Name))
		if err == nil && !ok {
			err = store.ErrBulkConflict // not the memory engine, though the table's was
		}
		if err != nil {
			return nil, err
		}
		out[i].b = ib
	}
	if len(out) == 0 {
		return nil, nil
	}
	names := indexNames(m.gsis)
	var err error
	var scratch []byte  // Put copies the entry
	part := attr.Item{} // each item's attributes of names, in one map: a new one per item was a sixth of the import's garbage
	n := 0
	b.Ascend(func(k, v []byte) bool {
		cpu.Pause(n)
		n++
		if _, err = attr.BinarySizeNames(v, names, part); err != nil {
			return false
		}
		for i, g := range m.gsis {
			key, entry, size, ok, ierr := indexEntry(scratch[:0], g, k, v, part)
			if err = ierr; err != nil {
				return false
			}
			if !ok {
				continue
			}
			if err = out[i].b.Put(key, entry); err != nil {
				return false
			}
			scratch = entry
			out[i].items++
			out[i].size += int64(size)
		}
		return true
	})
	return out, err
}

// indexNames returns the top-level attributes the indexes gsis read from
// an item: their keys, the table's key and the attributes an INCLUDE
// projection names. An index projecting ALL stores the encoded item as
// it is (indexEntry).
func indexNames(gsis []*index.Def) []string {
	var names []string
	for _, g := range gsis {
		names = append(names, g.KeyNames()...)
		if g.ProjectionType == "INCLUDE" {
			names = append(names, g.NonKey...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// indexEntry returns the key, entry (appended to dst) and projected size
// that index g stores for the item whose table key is k, stored as v, of
// which part holds the attributes indexNames names; ok is false when the
// item has no entry in g (it lacks g's key). For ALL the entry is the
// stored bytes behind the item's size; otherwise the projection of part,
// which holds every attribute projected.
func indexEntry(dst []byte, g *index.Def, k, v []byte, part attr.Item) (key, entry []byte, size int, ok bool, err error) {
	if g.ProjectionType != "ALL" {
		c := g.DiffSized(k, nil, part, -1, -1)
		if c.NewKey == nil {
			return nil, nil, 0, false, nil
		}
		return c.NewKey, index.AppendEntry(dst, c.New, c.NewSize), c.NewSize, true, nil
	}
	if key, ok = g.Key(part, k); !ok {
		return nil, nil, 0, false, nil
	}
	if size, err = attr.BinarySize(v); err != nil {
		return nil, nil, 0, false, err
	}
	return key, index.AppendEntryEncoded(dst, v, size), size, true, nil
}

// recordBulk records a bulk import's counts, while this process owns the
// transfers.
func (s *Service) recordBulk(tx *store.Tx, o *store.Ownership, region, id string, job *importJob) error {
	if err := o.Fence(tx); err != nil {
		return err
	}
	return writeJob(tx, region, kindImport, id, job)
}
