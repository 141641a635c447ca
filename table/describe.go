package table

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/store"
)

// spaceStats are a table's or index's live item count and size.
type spaceStats struct {
	items, bytes int64
	// building marks a global index whose backfill has not finished (it
	// has no watermark yet).
	building bool
}

// stats reads the counters of the table and its indexes, and whether each
// global index is still being built, in one snapshot. An index still
// being built has its backfill started (or resumed, after a restart) by
// starting the table's applier.
func (s *Service) stats(m *tableMeta) (map[string]spaceStats, error) {
	out := map[string]spaceStats{}
	building := false
	err := s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(m.ID); sp != nil {
			i, b := sp.Stats()
			out[""] = spaceStats{items: i, bytes: b}
		}
		for _, ix := range m.indexes() {
			var st spaceStats
			if sp := tx.Space(indexSpaceID(m, ix.Name)); sp != nil {
				st.items, st.bytes = sp.Stats()
			}
			out[ix.Name] = st
		}
		for _, ix := range m.GlobalSecondaryIndexes {
			if _, ok := gsi.Watermark(tx, m.ID, ix.Name); !ok {
				st := out[ix.Name]
				st.building, building = true, true
				out[ix.Name] = st
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if building {
		s.applier(m)
	}
	return out, nil
}

func indexSpaceID(m *tableMeta, index string) string { return m.ID + "/" + index }

// describe builds m's TableDescription; stats may be nil for a table just created.
func (s *Service) describe(m *tableMeta, stats map[string]spaceStats) *ddb.TableDescription {
	now := s.now().UnixNano()
	d := &ddb.TableDescription{
		AttributeDefinitions:      m.AttributeDefinitions,
		TableName:                 m.Name,
		KeySchema:                 m.KeySchema,
		TableStatus:               s.tableStatus(m, now),
		CreationDateTime:          epochSeconds(m.Created),
		ProvisionedThroughput:     &ddb.ProvisionedThroughputDescription{ReadCapacityUnits: m.ReadCapacity, WriteCapacityUnits: m.WriteCapacity},
		TableSizeBytes:            stats[""].bytes,
		ItemCount:                 stats[""].items,
		TableArn:                  m.arn(),
		TableId:                   m.ID,
		DeletionProtectionEnabled: m.DeletionProtection,
		OnDemandThroughput:        m.OnDemandThroughput,
		WarmThroughput:            m.warmDescription(),
	}
	describeSummaries(d, m)
	d.LocalSecondaryIndexes = describeLocalIndexes(m, stats)
	d.GlobalSecondaryIndexes = s.describeGlobalIndexes(m, stats, now)
	return d
}

// tableStatus is m's TableStatus at now: CREATING or UPDATING for
// Options.TransientDelay after it was created or updated, else ACTIVE.
func (s *Service) tableStatus(m *tableMeta, now int64) string {
	delay := s.opts.TransientDelay.Nanoseconds()
	switch {
	case delay > 0 && now < m.Created+delay:
		return "CREATING"
	case delay > 0 && now < m.Updated+delay:
		return "UPDATING"
	}
	return "ACTIVE"
}

// inUse refuses a change to m while it is CREATING or UPDATING (see
// tableStatus), in DynamoDB's words: UpdateTable and DeleteTable must wait
// for ACTIVE.
func (s *Service) inUse(m *tableMeta, now int64) error {
	switch s.tableStatus(m, now) {
	case "CREATING":
		return ddb.Errorf(ddb.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being created: %s", m.Name)
	case "UPDATING":
		return ddb.Errorf(ddb.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being updated: %s", m.Name)
	}
	return nil
}

// describeSummaries fills d's restore, billing mode, table class,
// encryption and stream members from m; d.TableStatus must be set.
func describeSummaries(d *ddb.TableDescription, m *tableMeta) {
	if r := m.Restore; r != nil && d.TableStatus == "CREATING" {
		// DynamoDB reports where a table comes from only while it is restored.
		d.RestoreSummary = &ddb.RestoreSummary{SourceBackupArn: r.SourceBackupArn, SourceTableArn: r.SourceTableArn,
			RestoreDateTime: epochSeconds(r.Time), RestoreInProgress: true}
	}
	// An on-demand table, or one that has been, reports when it last became
	// on-demand (its creation, for a table created so).
	if m.BillingMode == "PAY_PER_REQUEST" || m.PayPerRequestSince != 0 {
		since := m.PayPerRequestSince
		if since == 0 {
			since = m.Created // a catalog written before the field was kept
		}
		t := epochSeconds(since)
		d.BillingModeSummary = &ddb.BillingModeSummary{BillingMode: m.BillingMode, LastUpdateToPayPerRequestDateTime: &t}
	}
	if m.TableClass != "" {
		d.TableClassSummary = &ddb.TableClassSummary{TableClass: m.TableClass}
	}
	if m.SSE != nil && m.SSE.Enabled != nil && *m.SSE.Enabled {
		d.SSEDescription = &ddb.SSEDescription{Status: "ENABLED", SSEType: "KMS",
			KMSMasterKeyArn: m.kmsARN()}
	}
	// A disabled stream is still the latest (readable for 24 hours), but
	// DynamoDB leaves its StreamSpecification out.
	d.StreamSpecification = m.Stream
	if m.StreamLabel != "" {
		d.LatestStreamLabel = m.StreamLabel
		d.LatestStreamArn = m.arn() + "/stream/" + m.StreamLabel
	}
}

// describeLocalIndexes describes m's local secondary indexes (nil if none).
func describeLocalIndexes(m *tableMeta, stats map[string]spaceStats) []ddb.IndexDescription {
	var out []ddb.IndexDescription
	for _, ix := range m.LocalSecondaryIndexes {
		out = append(out, ddb.IndexDescription{
			IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: ix.Projection,
			IndexSizeBytes: stats[ix.Name].bytes, ItemCount: stats[ix.Name].items,
			IndexArn: m.arn() + "/index/" + ix.Name,
		})
	}
	return out
}

// describeGlobalIndexes describes m's global secondary indexes at now,
// then those still DELETING (nil if none).
func (s *Service) describeGlobalIndexes(m *tableMeta, stats map[string]spaceStats, now int64) []ddb.IndexDescription {
	var out []ddb.IndexDescription
	delay := s.opts.TransientDelay.Nanoseconds()
	for _, ix := range m.GlobalSecondaryIndexes {
		gd := ddb.IndexDescription{
			IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: ix.Projection,
			IndexStatus:    "ACTIVE",
			IndexSizeBytes: stats[ix.Name].bytes, ItemCount: stats[ix.Name].items,
			IndexArn:              m.arn() + "/index/" + ix.Name,
			ProvisionedThroughput: &ddb.ProvisionedThroughputDescription{ReadCapacityUnits: ix.ReadCapacity, WriteCapacityUnits: ix.WriteCapacity},
			OnDemandThroughput:    ix.OnDemand,
		}
		if building := stats[ix.Name].building; building || (delay > 0 && now < ix.Created+delay) {
			gd.IndexStatus = "CREATING"
			gd.Backfilling = &building
		}
		out = append(out, gd)
	}
	for _, ix := range m.DeletingIndexes {
		if now < ix.Until {
			out = append(out, ddb.IndexDescription{
				IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: ix.Projection, IndexStatus: "DELETING",
				IndexArn:              m.arn() + "/index/" + ix.Name,
				ProvisionedThroughput: &ddb.ProvisionedThroughputDescription{ReadCapacityUnits: ix.ReadCapacity, WriteCapacityUnits: ix.WriteCapacity},
			})
		}
	}
	return out
}

// table returns the table named by a TableName member (name or ARN), or
// ResourceNotFoundException with the message item operations use. The
// caller (ctx) must be allowed to use it (see authorize).
func (s *Service) table(ctx context.Context, region, name string) (*tableMeta, error) {
	return s.lookup(ctx, region, name, "", nil)
}

// tableIndex is table for a Query or Scan of index (none when nil): the
// caller is judged on the index's ARN, which a table's policy must name
// (as IAM does, a grant on the table alone does not cover its indexes).
func (s *Service) tableIndex(ctx context.Context, region, name string, index *string) (*tableMeta, error) {
	ix := ""
	if index != nil {
		ix = *index
	}
	return s.lookup(ctx, region, name, ix, nil)
}

// tableForControl is table with the message the control-plane operations use.
func (s *Service) tableForControl(ctx context.Context, region, name string) (*tableMeta, error) {
	return s.lookup(ctx, region, name, "", ddb.NotFound("Table: %s not found", tableName(name)))
}

// lookup resolves a TableName member in the caller's scope, or in the
// scope its ARN names when resource-based policies are enforced, answering
// notFound (nil: the item operations' ResourceNotFoundException) when there
// is no such table, and checks the caller's access to the table or, when
// index is not "", to that index. Another account's table that does not
// exist is refused like one without a policy, so that no account learns
// which tables another has.
func (s *Service) lookup(ctx context.Context, region, name, index string, notFound error) (*tableMeta, error) {
	scope := region
	arnScope, foreign := access.ForeignARN(region, name)
	if foreign {
		if s.opts.Policies == nil {
			return nil, orNotFound(notFound)
		}
		scope = arnScope
	}
	m, err := s.catalog.get(s.db, scope, tableName(name))
	if err != nil {
		return nil, err
	}
	if m == nil && !foreign {
		return nil, orNotFound(notFound)
	}
	// Only a verified caller is judged (authorize passes everyone else):
	// the resource's ARN costs allocations on every item operation.
	if _, judged := s.callerOf(ctx); judged {
		resource := name
		if m != nil {
			resource = m.arn()
		}
		if index != "" {
			resource += "/index/" + index
		}
		if err := s.authorize(ctx, region, m, "", resource); err != nil {
			return nil, err
		}
	}
	if m == nil {
		return nil, orNotFound(notFound)
	}
	return m, nil
}

// orNotFound is err, or when nil the item operations' ResourceNotFoundException,
// made only when a table is missing.
func orNotFound(err error) error {
	if err == nil {
		return ddb.NotFound("")
	}
	return err
}

// Schema returns the key schemas of a table and of its usable indexes,
// for PartiQL: one catalog lookup (with the caller's access checked), none
// of DescribeTable's counters or index states. A table that is gone or
// being deleted is ResourceNotFoundException without detail.
func (s *Service) Schema(ctx context.Context, region, name string) (*ddb.TableSchema, error) {
	if s.deleted.has(region, tableName(name), s.now()) {
		return nil, ddb.NotFound("")
	}
	m, err := s.table(ctx, region, name)
	if err != nil {
		return nil, err
	}
	sc := &ddb.TableSchema{TableName: m.Name, KeySchema: m.KeySchema}
	for _, ix := range m.LocalSecondaryIndexes {
		sc.Indexes = append(sc.Indexes, ddb.IndexSchema{IndexName: ix.Name, KeySchema: ix.KeySchema})
	}
	for _, ix := range m.GlobalSecondaryIndexes {
		sc.Indexes = append(sc.Indexes, ddb.IndexSchema{IndexName: ix.Name, KeySchema: ix.KeySchema, Global: true})
	}
	return sc, nil
}

// DescribeTable returns a table's description.
func (s *Service) DescribeTable(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DescribeTableOutput, error) {
	if d := s.deleted.get(region, tableName(in.TableName), s.now()); d != nil {
		return &ddb.DescribeTableOutput{Table: d}, nil
	}
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	stats, err := s.stats(m)
	if err != nil {
		return nil, err
	}
	return &ddb.DescribeTableOutput{Table: s.describe(m, stats)}, nil
}

// ListTables lists the region's table names in ascending order, a page at a time.
func (s *Service) ListTables(ctx context.Context, region string, in *ddb.ListTablesInput) (*ddb.ListTablesOutput, error) {
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	prefix := catalogKey(region, "")
	from := prefix
	if in.ExclusiveStartTableName != "" {
		from = append(catalogKey(region, in.ExclusiveStartTableName), 0)
	}
	out := &ddb.ListTablesOutput{TableNames: []string{}}
	more := false
	err := s.db.View(func(tx *store.Tx) error {
		return tx.CatalogAscend(from, func(k, _ []byte) bool {
			if !strings.HasPrefix(string(k), string(prefix)) {
				return false
			}
			if len(out.TableNames) == limit {
				more = true
				return false
			}
			out.TableNames = append(out.TableNames, string(k[len(prefix):]))
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	if more {
		out.LastEvaluatedTableName = out.TableNames[len(out.TableNames)-1]
	}
	return out, nil
}

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

// sortTags orders tags by key for deterministic output.
func sortTags(tags []ddb.Tag) []ddb.Tag {
	out := append([]ddb.Tag(nil), tags...)
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
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
