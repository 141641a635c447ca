package table

import (
	"context"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/store"
)

// DescribeTable, ListTables and Schema: what a table is, as seen now.

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
	s.describeReplicas(d, m, now)
	d.VectorIndexes = s.describeVectorIndexes(m, now)
	return d
}

// tableStatus is m's TableStatus at now: CREATING or UPDATING for
// Options.TransientDelay after it was created or updated, CREATING while
// an import creates it, else ACTIVE.
func (s *Service) tableStatus(m *tableMeta, now int64) string {
	delay := s.opts.TransientDelay.Nanoseconds()
	switch {
	case delay > 0 && now < m.Created+delay, m.Importing != "":
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
			WarmThroughput:        m.indexWarmDescription(&ix),
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
		sc.Indexes = append(sc.Indexes, ddb.IndexSchema{IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: ix.Projection})
	}
	for _, ix := range m.GlobalSecondaryIndexes {
		sc.Indexes = append(sc.Indexes, ddb.IndexSchema{IndexName: ix.Name, KeySchema: ix.KeySchema, Global: true, Projection: ix.Projection})
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
	s.followVectors(m) // the vector indexes' counts, as a search would see them
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
