package table

import (
	"context"
	"slices"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/store"
)

// Both restores create a new table, in one store transaction with all of its
// items and local index entries, from a definition (the backup's, or the
// source table's as it is now) with the overrides applied. They keep keys,
// indexes, billing, throughput and encryption, and leave off what DynamoDB
// leaves off: tags, Time to Live, streams, point-in-time recovery, deletion
// protection, table class and the resource policy. Global indexes are built
// by a backfill before the call answers.

// restoreMeta says where a restored table came from (RestoreSummary).
type restoreMeta struct {
	SourceBackupArn string
	SourceTableArn  string
	Time            int64 // the restored instant, Unix nanoseconds
}

// restoredMeta is the definition of table target restored from src (a
// backup's or a table's definition) with the overrides o.
func (s *Service) restoredMeta(region, target string, src *tableMeta, o *ddb.RestoreOverrides, from *restoreMeta) (*tableMeta, error) {
	m := &tableMeta{Region: region, Name: target, ID: newUUID(), Created: s.now().UnixNano(),
		AttributeDefinitions: src.AttributeDefinitions, KeySchema: src.KeySchema,
		BillingMode: src.BillingMode, ReadCapacity: src.ReadCapacity, WriteCapacity: src.WriteCapacity,
		OnDemandThroughput: src.OnDemandThroughput, SSE: src.SSE, Restore: from}
	if o.SSESpecificationOverride != nil {
		m.SSE = o.SSESpecificationOverride
	}
	if err := m.overrideBilling(o); err != nil {
		return nil, err
	}
	lsis, err := overrideIndexes(src.LocalSecondaryIndexes, o.LocalSecondaryIndexOverride, func(l ddb.LocalSecondaryIndex) indexMeta {
		return indexMeta{Name: l.IndexName, KeySchema: l.KeySchema, Projection: *l.Projection}
	})
	if err != nil {
		return nil, err
	}
	gsis, err := overrideIndexes(src.GlobalSecondaryIndexes, o.GlobalSecondaryIndexOverride, func(g ddb.GlobalSecondaryIndex) indexMeta {
		ix := indexMeta{Name: g.IndexName, KeySchema: g.KeySchema, Projection: *g.Projection}
		ix.indexWarm(g.WarmThroughput)
		if pt := g.ProvisionedThroughput; pt != nil {
			ix.ReadCapacity, ix.WriteCapacity = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
		}
		return ix
	})
	if err != nil {
		return nil, err
	}
	if err := m.setIndexThroughput(gsis, o); err != nil {
		return nil, err
	}
	for i := range lsis {
		lsis[i].Created = m.Created
	}
	m.LocalSecondaryIndexes, m.GlobalSecondaryIndexes = lsis, gsis
	if err := m.restoreVectorIndexes(src, o.VectorIndexOverride); err != nil {
		return nil, err
	}
	m.pruneAttributeDefinitions()
	m.derive()
	return m, nil
}

// overrideBilling applies BillingModeOverride, ProvisionedThroughputOverride
// and OnDemandThroughputOverride with DynamoDB's rules.
func (m *tableMeta) overrideBilling(o *ddb.RestoreOverrides) error {
	mode := m.BillingMode
	if o.BillingModeOverride != "" {
		mode = o.BillingModeOverride
	}
	pt := o.ProvisionedThroughputOverride
	switch {
	case pt != nil && o.BillingModeOverride == "PAY_PER_REQUEST":
		return ddb.Errorf(ddb.ValidationException, "Invalid Request: Cannot override ProvisionedThroughput if BillingMode is overridden to PAY_PER_REQUEST")
	case pt != nil && mode == "PAY_PER_REQUEST":
		return ddb.Errorf(ddb.ValidationException, "Invalid Request: Cannot override ProvisionedThroughput unless BillingMode is PROVISIONED")
	case pt == nil && mode == "PROVISIONED" && m.BillingMode != "PROVISIONED":
		return ddb.Errorf(ddb.ValidationException, "Invalid Request: Must override ProvisionedThroughput if BillingMode is overridden to PROVISIONED")
	case o.OnDemandThroughputOverride != nil && mode != "PAY_PER_REQUEST":
		return ddb.Errorf(ddb.ValidationException, "Invalid Request: Cannot override MaxReadRequestUnits for OnDemandThroughput unless BillingModeOverride is PAY_PER_REQUEST")
	}
	m.BillingMode = mode
	if mode == "PAY_PER_REQUEST" {
		m.ReadCapacity, m.WriteCapacity = 0, 0
		if o.OnDemandThroughputOverride != nil {
			m.OnDemandThroughput = o.OnDemandThroughputOverride
		}
		return nil
	}
	m.OnDemandThroughput = nil
	if pt != nil {
		m.ReadCapacity, m.WriteCapacity = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	}
	return nil
}

// setIndexThroughput gives the restored global indexes their throughput: an
// override's own (which a PROVISIONED restore requires), the recorded one
// otherwise, none on demand.
func (m *tableMeta) setIndexThroughput(gsis []indexMeta, o *ddb.RestoreOverrides) error {
	for i := range gsis {
		ix := &gsis[i]
		ix.Created = m.Created
		var pt *ddb.ProvisionedThroughput
		if o.GlobalSecondaryIndexOverride != nil {
			pt = o.GlobalSecondaryIndexOverride[i].ProvisionedThroughput
		}
		switch {
		case m.BillingMode == "PAY_PER_REQUEST" && pt != nil:
			return ddb.Errorf(ddb.ValidationException, "Invalid Request: Cannot override ProvisionedThroughput if BillingMode is overridden to PAY_PER_REQUEST for index %s", ix.Name)
		case m.BillingMode == "PAY_PER_REQUEST":
			ix.ReadCapacity, ix.WriteCapacity = 0, 0
		case o.GlobalSecondaryIndexOverride != nil && pt == nil:
			return ddb.Errorf(ddb.ValidationException, "Invalid Request: Must specify provisioned throughput for index %s", ix.Name)
		case ix.ReadCapacity == 0:
			ix.ReadCapacity, ix.WriteCapacity = m.ReadCapacity, m.WriteCapacity
		}
	}
	return nil
}

// overrideIndexes returns the indexes to restore: all of src when overrides
// is nil, else each override, which must match one of src by key schema and
// projection (it may rename it).
func overrideIndexes[T ddb.LocalSecondaryIndex | ddb.GlobalSecondaryIndex](src []indexMeta, overrides []T, conv func(T) indexMeta) ([]indexMeta, error) {
	if overrides == nil {
		return slices.Clone(src), nil
	}
	out := []indexMeta{}
	for _, o := range overrides {
		ix := conv(o)
		if !slices.ContainsFunc(src, func(s indexMeta) bool { return sameIndexShape(s, ix) }) {
			return nil, ddb.Errorf(ddb.ValidationException, "Invalid Request: Index %s does not match a secondary index that existed in the source table and cannot be created during the restore operation", ix.Name)
		}
		out = append(out, ix)
	}
	return out, nil
}

func sameIndexShape(a, b indexMeta) bool {
	return slices.Equal(a.KeySchema, b.KeySchema) && a.Projection.ProjectionType == b.Projection.ProjectionType &&
		slices.Equal(a.Projection.NonKeyAttributes, b.Projection.NonKeyAttributes)
}

// checkTarget fails when a restore may not create table m: the name is in
// use by a table being restored (TableInUseException), or by any other
// table, deleting ones included (TableAlreadyExistsException).
func (s *Service) checkTarget(tx *store.Tx, m *tableMeta) error {
	if raw := tx.CatalogGet(catalogKey(m.Region, m.Name)); raw != nil {
		cur, err := decodeMeta(raw)
		if err != nil {
			return err
		}
		if cur.Restore != nil && s.creating(cur) {
			return ddb.Errorf(ddb.TableInUseException, "Table already being restored: %s", m.Name)
		}
		return ddb.Errorf(ddb.TableAlreadyExistsException, "Table already exists: %s", m.Name)
	}
	if s.deleted.has(m.Region, m.Name, s.now()) {
		return ddb.Errorf(ddb.TableAlreadyExistsException, "Table already exists: %s", m.Name)
	}
	return nil
}

// createRestored creates table m in tx with the items each yields (storage
// key, stored item; valid during the call): its spaces, catalog entry,
// items, local index entries and counters. Global indexes are left to
// restore.
func (s *Service) createRestored(tx *store.Tx, m *tableMeta, each func(fn func(k, v []byte) error) error) error {
	if err := s.checkTarget(tx, m); err != nil {
		return err
	}
	if err := tx.CreateSpace(m.ID); err != nil {
		return err
	}
	for _, ix := range m.indexes() {
		if err := tx.CreateSpace(indexSpaceID(m, ix.Name)); err != nil {
			return err
		}
	}
	val, err := encodeMeta(m)
	if err != nil {
		return err
	}
	if err := tx.CatalogPut(catalogKey(m.Region, m.Name), val); err != nil {
		return err
	}
	// Writing as if there were no global index skips the change log: the
	// backfill indexes these items.
	wm := *m
	wm.gsis, wm.collectionLimit = nil, s.opts.ItemCollectionLimit
	now := s.now().UnixNano()
	sw := &spaceWrites{spaces: map[string]*store.Space{}, stats: map[string]*[2]int64{}}
	err = each(func(k, v []byte) error {
		mu := mutation{meta: &wm, key: append([]byte(nil), k...), enc: append([]byte(nil), v...), blind: true}
		_, err := mu.applyIn(tx, now, sw)
		return err
	})
	if err != nil {
		return err
	}
	return sw.flush()
}

// restore runs build, which creates a restored table in tx and returns its
// definition, in one store transaction; then caches the table, builds its
// global indexes and describes it.
func (s *Service) restore(ctx context.Context, build func(tx *store.Tx) (*tableMeta, error)) (*ddb.TableOutput, error) {
	var m *tableMeta
	var stamp uint64
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		m, err = build(tx)
		stamp = s.catalog.stamp()
		return err
	})
	if err != nil {
		return nil, err
	}
	s.catalog.set(m.Region, m.Name, m, stamp)
	s.tableCreated(m)
	for _, g := range m.gsis {
		if err := gsi.Backfill(ctx, s.db, m.ID, g, indexSpaceID(m, g.Name), backfillChunk); err != nil {
			return nil, err
		}
	}
	stats, err := s.stats(m)
	if err != nil {
		return nil, err
	}
	d := s.describe(m, stats)
	if s.opts.TransientDelay > 0 {
		d.TableStatus = "CREATING"
	}
	return &ddb.TableOutput{TableDescription: d}, nil
}

// RestoreTableFromBackup creates a new table with a backup's items and
// definition.
func (s *Service) RestoreTableFromBackup(ctx context.Context, region string, in *ddb.RestoreTableFromBackupInput) (*ddb.TableOutput, error) {
	return s.restore(ctx, func(tx *store.Tx) (*tableMeta, error) {
		b, err := s.findBackup(ctx, tx, region, in.BackupArn)
		if err != nil {
			return nil, err
		}
		now := s.now().UnixNano()
		if now < b.RestoringUntil {
			return nil, ddb.Errorf(ddb.BackupInUseException, "Backup is being used to restore another table: %s", b.arn())
		}
		m, err := s.restoredMeta(region, in.TargetTableName, &b.Table, &in.RestoreOverrides,
			&restoreMeta{SourceBackupArn: b.arn(), SourceTableArn: b.Table.arn(), Time: b.Created})
		if err != nil {
			return nil, err
		}
		data := tx.Space(backupDataSpace(region, b.ID))
		if data == nil {
			return nil, ddb.Errorf(ddb.BackupNotFoundException, "Backup not found: %s", in.BackupArn)
		}
		err = s.createRestored(tx, m, func(fn func(k, v []byte) error) error {
			var err error
			data.Ascend(nil, nil, func(k, v []byte) bool {
				err = fn(k, v)
				return err == nil
			})
			return err
		})
		if err != nil || s.opts.TransientDelay == 0 {
			return m, err
		}
		b.RestoringUntil = now + s.opts.TransientDelay.Nanoseconds()
		return m, writeBackup(tx, b)
	})
}
