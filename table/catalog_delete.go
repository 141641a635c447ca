package table

import (
	"context"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// DeleteTable, and the tombstones that keep a deleted table DELETING for
// Options.TransientDelay.

// DeleteTable deletes a table and all its items and indexes.
func (s *Service) DeleteTable(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DeleteTableOutput, error) {
	// "If table is already in the DELETING state, no error is returned."
	if d := s.deleted.get(region, tableName(in.TableName), s.now()); d != nil {
		return &ddb.DeleteTableOutput{TableDescription: deletedDescription(d)}, nil
	}
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	if m.DeletionProtection {
		return nil, ddb.Errorf(ddb.ValidationException, "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	}
	if err := s.inUse(m, s.now().UnixNano()); err != nil {
		return nil, err
	}
	if m.Strong {
		return nil, errStrongDelete()
	}
	if len(m.Replicas) > 0 { // a replica leaves its global table first (replica_leave.go)
		if err := s.leaveGroup(ctx, m, s.now().UnixNano()); err != nil {
			return nil, err
		}
	}
	stats, err := s.stats(m)
	if err != nil {
		return nil, err
	}
	d := s.describe(m, stats)
	d.TableStatus = "DELETING"
	key := catalogKey(region, m.Name)
	var stamp uint64
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		cur := tx.CatalogGet(key)
		if cur == nil {
			return ddb.NotFound("Table: %s not found", m.Name)
		}
		// The name may have been re-created since m was read: delete what is there now.
		now, err := decodeMeta(cur)
		if err != nil {
			return err
		}
		if now.DeletionProtection {
			return ddb.Errorf(ddb.ValidationException, "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
		}
		if err := s.inUse(now, s.now().UnixNano()); err != nil {
			return err
		}
		if err := s.dropTable(tx, now); err != nil {
			return err
		}
		stamp = s.catalog.stamp()
		return tx.CatalogDelete(key)
	})
	if err != nil {
		return nil, err
	}
	s.catalog.set(region, m.Name, nil, stamp)
	s.tableDropped(m.ID)
	if s.opts.TransientDelay > 0 {
		s.deleted.add(region, m.Name, d, s.now().Add(s.opts.TransientDelay))
	}
	return &ddb.DeleteTableOutput{TableDescription: deletedDescription(d)}, nil
}

// tombstones remember deleted tables for TransientDelay, so DescribeTable reports
// DELETING before ResourceNotFoundException, as DynamoDB does.
type tombstones struct {
	mu sync.Mutex
	m  map[string]tombstone
}

type tombstone struct {
	desc  *ddb.TableDescription
	until time.Time
}

func newTombstones() *tombstones { return &tombstones{m: map[string]tombstone{}} }

func (t *tombstones) add(region, name string, d *ddb.TableDescription, until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[region+"/"+name] = tombstone{d, until}
}

func (t *tombstones) get(region, name string, now time.Time) *ddb.TableDescription {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := region + "/" + name
	ts, ok := t.m[k]
	if !ok {
		return nil
	}
	if !now.Before(ts.until) {
		delete(t.m, k)
		return nil
	}
	return ts.desc
}

func (t *tombstones) has(region, name string, now time.Time) bool {
	return t.get(region, name, now) != nil
}

// deletedDescription returns the members of d that DeleteTable reports, as DELETING.
func deletedDescription(d *ddb.TableDescription) *ddb.DeletedTableDescription {
	return &ddb.DeletedTableDescription{
		TableName: d.TableName, TableStatus: "DELETING", ProvisionedThroughput: d.ProvisionedThroughput,
		TableSizeBytes: d.TableSizeBytes, ItemCount: d.ItemCount, TableArn: d.TableArn, TableId: d.TableId,
		BillingModeSummary: d.BillingModeSummary, StreamSpecification: d.StreamSpecification,
		LatestStreamLabel: d.LatestStreamLabel, LatestStreamArn: d.LatestStreamArn,
	}
}
