package table

import (
	"context"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/gsi"
	"github.com/ddblocal/ddblocal/store"
)

// Limits on table definitions, from DynamoDB's service quotas.
const (
	maxLSIs             = 5
	maxGSIs             = 20
	maxProjectedNonKeys = 100
	maxGSIKeyAttributes = 4 // per key type, for multi-attribute GSI keys
)

func invalid(format string, args ...any) *ddb.Error {
	return ddb.Errorf(ddb.ValidationException, "One or more parameter values were invalid: "+format, args...)
}

// CreateTable creates a table, and its indexes, in region.
func (s *Service) CreateTable(ctx context.Context, region string, in *ddb.CreateTableInput) (*ddb.TableOutput, error) {
	if err := checkCreateMode(in); err != nil { // replica_accounts.go
		return nil, err
	}
	if in.GlobalTableSourceArn != "" {
		return s.createFromSource(ctx, region, in)
	}
	return s.createTable(ctx, region, in, "")
}

// createTable is CreateTable of a regional table; importing is the ID of
// the import that creates it ("" for none: see tableMeta.Importing).
func (s *Service) createTable(ctx context.Context, region string, in *ddb.CreateTableInput, importing string) (*ddb.TableOutput, error) {
	m, err := s.newTableMeta(region, in)
	if err != nil {
		return nil, err
	}
	m.Importing = importing
	if mode := in.GlobalTableSettingsReplicationMode; mode != "" {
		m.Global = &globalSettings{SettingsMode: mode} // ENABLED: a multi-account global table's source
	}
	if err := s.freshDeletedLabel(m); err != nil {
		return nil, err
	}
	val, err := encodeMeta(m)
	if err != nil {
		return nil, err
	}
	key := catalogKey(region, m.Name)
	if s.deleted.has(region, m.Name, s.now()) {
		return nil, ddb.Errorf(ddb.ResourceInUseException, "Table already exists: %s", m.Name)
	}
	var stamp uint64
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		if tx.CatalogGet(key) != nil {
			return ddb.Errorf(ddb.ResourceInUseException, "Table already exists: %s", m.Name)
		}
		if err := tx.CreateSpace(m.ID); err != nil {
			return err
		}
		for _, ix := range m.indexes() {
			if err := tx.CreateSpace(indexSpaceID(m, ix.Name)); err != nil {
				return err
			}
		}
		if m.Stream != nil {
			if err := startStream(tx, m, m.Created); err != nil {
				return err
			}
		}
		stamp = s.catalog.stamp()
		return tx.CatalogPut(key, val)
	})
	if err != nil {
		return nil, err
	}
	s.catalog.set(region, m.Name, m, stamp)
	s.tableCreated(m)
	s.followVectors(m)
	// The new table is empty: building its global indexes only records their
	// starting watermark, so do it before answering.
	for _, g := range m.gsis {
		if err := gsi.Backfill(ctx, s.db, m.ID, g, indexSpaceID(m, g.Name), backfillChunk); err != nil {
			return nil, err
		}
	}
	d := s.describe(m, nil)
	if s.opts.TransientDelay > 0 {
		d.TableStatus = "CREATING"
	}
	return &ddb.TableOutput{TableDescription: d}, nil
}

// addGlobalIndexes validates a CreateTable request's global indexes (count,
// names unique among all indexes) and adds them to m.
func (m *tableMeta) addGlobalIndexes(gsis []ddb.GlobalSecondaryIndex) error {
	names := map[string]bool{}
	for _, l := range m.LocalSecondaryIndexes {
		names[l.Name] = true
	}
	if len(gsis) > maxGSIs {
		return invalid("GlobalSecondaryIndex count exceeds the per-table limit of %d", maxGSIs)
	}
	for i := range gsis {
		g := &gsis[i]
		if names[g.IndexName] {
			return invalid("Duplicate index name: %s", g.IndexName)
		}
		names[g.IndexName] = true
		im, err := m.globalIndex(g, m.Created, true)
		if err != nil {
			return err
		}
		m.GlobalSecondaryIndexes = append(m.GlobalSecondaryIndexes, im)
	}
	return nil
}

// newTableMeta validates a CreateTable request beyond its member constraints and
// returns the definition to store.
func (s *Service) newTableMeta(region string, in *ddb.CreateTableInput) (*tableMeta, error) {
	m := &tableMeta{
		Region:               region,
		Name:                 in.TableName,
		ID:                   newUUID(),
		Created:              s.now().UnixNano(),
		AttributeDefinitions: in.AttributeDefinitions,
		KeySchema:            in.KeySchema,
		BillingMode:          in.BillingMode,
		OnDemandThroughput:   in.OnDemandThroughput,
		SSE:                  in.SSESpecification,
		TableClass:           in.TableClass,
		Tags:                 in.Tags,
	}
	m.warm(in.WarmThroughput)
	if in.DeletionProtectionEnabled != nil {
		m.DeletionProtection = *in.DeletionProtectionEnabled
	}
	if err := checkTags(in.Tags); err != nil {
		return nil, err
	}
	if err := m.createPolicy(in.ResourcePolicy); err != nil {
		return nil, err
	}
	if err := checkIndexLists(in); err != nil {
		return nil, err
	}
	if err := checkAttributeDefinitions(in); err != nil { // catalog_validate.go
		return nil, err
	}
	if err := checkTableClass(in.TableClass); err != nil {
		return nil, err
	}
	if err := checkSSE(in.SSESpecification); err != nil {
		return nil, err
	}
	if err := m.setBilling(in.BillingMode, in.ProvisionedThroughput); err != nil {
		return nil, err
	}
	if err := checkOnDemand(in.OnDemandThroughput, m.BillingMode, false); err != nil { // catalog_validate.go
		return nil, err
	}
	if err := m.checkCreateWarm(in.WarmThroughput); err != nil {
		return nil, err
	}
	m.derive()
	if err := m.addLocalIndexes(in.LocalSecondaryIndexes); err != nil {
		return nil, err
	}
	if err := m.addGlobalIndexes(in.GlobalSecondaryIndexes); err != nil {
		return nil, err
	}
	if err := m.addVectorIndexes(in.VectorIndexes); err != nil {
		return nil, err
	}
	if err := m.checkProjectionTotal(); err != nil {
		return nil, err
	}
	if err := m.setStream(in.StreamSpecification); err != nil {
		return nil, err
	}
	m.derive() // again: the index definitions were added since
	return m, nil
}

// setBilling applies BillingMode and ProvisionedThroughput with DynamoDB's rules:
// PROVISIONED (the default) needs throughput, PAY_PER_REQUEST forbids it.
func (m *tableMeta) setBilling(mode string, pt *ddb.ProvisionedThroughput) error {
	if mode == "" {
		mode = "PROVISIONED"
	}
	if mode == "PAY_PER_REQUEST" && (m.BillingMode != mode || m.PayPerRequestSince == 0) {
		m.PayPerRequestSince = max(m.Created, m.Updated) // now: creation, or this update
	}
	m.BillingMode = mode
	if mode == "PAY_PER_REQUEST" {
		if pt != nil {
			return invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		m.ReadCapacity, m.WriteCapacity = 0, 0
		return nil
	}
	if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
		return invalid("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	m.ReadCapacity, m.WriteCapacity = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	return nil
}

func (m *tableMeta) addLocalIndexes(lsis []ddb.LocalSecondaryIndex) error {
	if len(lsis) == 0 {
		return nil
	}
	if m.schema.SK == "" {
		return invalid("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
	}
	if len(lsis) > maxLSIs {
		return invalid("Number of LocalSecondaryIndexes exceeds per-table limit of %d", maxLSIs)
	}
	seen := map[string]bool{}
	for _, l := range lsis {
		if seen[l.IndexName] {
			return invalid("Duplicate index name: %s", l.IndexName)
		}
		seen[l.IndexName] = true
		ks := l.KeySchema
		if ks[0].KeyType != "HASH" {
			return ddb.Errorf(ddb.ValidationException, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
		}
		if len(ks) != 2 || ks[1].KeyType != "RANGE" {
			return invalid("Index KeySchema does not have a range key for index: %s", l.IndexName)
		}
		if ks[0].AttributeName != m.schema.PK {
			return invalid("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
				l.IndexName, ks[0].AttributeName, m.schema.PK)
		}
		if ks[0].AttributeName == ks[1].AttributeName {
			return ddb.Errorf(ddb.ValidationException, "Both the Hash Key and the Range Key element in the KeySchema have the same name")
		}
		if err := checkProjection(l.Projection); err != nil {
			return err
		}
		m.LocalSecondaryIndexes = append(m.LocalSecondaryIndexes, indexMeta{
			Name: l.IndexName, KeySchema: ks, Projection: *l.Projection, Created: m.Created,
		})
	}
	return nil
}

// globalIndex validates one GSI definition against the table; creating
// says whether CreateTable (true) or UpdateTable defines it, which word
// their messages for a missing ProvisionedThroughput differently.
func (m *tableMeta) globalIndex(g *ddb.GlobalSecondaryIndex, created int64, creating bool) (indexMeta, error) {
	if err := checkGlobalKeySchema(g.KeySchema); err != nil {
		return indexMeta{}, err
	}
	if err := checkProjection(g.Projection); err != nil {
		return indexMeta{}, err
	}
	im := indexMeta{Name: g.IndexName, KeySchema: g.KeySchema, Projection: *g.Projection, Created: created}
	im.indexWarm(g.WarmThroughput) // catalog_warm.go
	if m.BillingMode == "PAY_PER_REQUEST" {
		if g.ProvisionedThroughput != nil {
			return indexMeta{}, invalid("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", g.IndexName)
		}
		im.OnDemand = g.OnDemandThroughput
		return im, nil
	}
	pt := g.ProvisionedThroughput
	if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
		if creating {
			return indexMeta{}, invalid("ProvisionedThroughput is not specified for index: %s", g.IndexName)
		}
		// UpdateTable's words (ack-api-quirks DDB-TABLE-152, recorded
		// from the service).
		return indexMeta{}, invalid("Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: %s", g.IndexName)
	}
	im.ReadCapacity, im.WriteCapacity = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	return im, nil
}

// checkProjectionTotal enforces the limit on distinct projected non-key
// attributes summed over all of a table's indexes.
func (m *tableMeta) checkProjectionTotal() error {
	n := 0
	for _, ix := range m.indexes() {
		n += len(ix.Projection.NonKeyAttributes)
	}
	if n > maxProjectedNonKeys {
		return invalid("The number of projected attributes in all indexes exceeds the limit of %d, provided: %d", maxProjectedNonKeys, n)
	}
	return nil
}

func (m *tableMeta) indexes() []indexMeta {
	all := make([]indexMeta, 0, len(m.LocalSecondaryIndexes)+len(m.GlobalSecondaryIndexes))
	all = append(all, m.LocalSecondaryIndexes...)
	return append(all, m.GlobalSecondaryIndexes...)
}

// setStream applies CreateTable's StreamSpecification, refused in the
// service's words (recorded from DynamoDB by the ack-api-quirks catalogue,
// DDB-TABLE-442) when StreamViewType does not go with StreamEnabled.
func (m *tableMeta) setStream(spec *ddb.StreamSpecification) error {
	if spec == nil || spec.StreamEnabled == nil {
		return nil
	}
	if !*spec.StreamEnabled {
		if spec.StreamViewType != "" {
			return invalid("Table is being created with a stream disabled, UpdateViewType should not be specified")
		}
		return nil
	}
	if spec.StreamViewType == "" {
		return invalid("Table is being created with a stream enabled, UpdateViewType is required")
	}
	m.enableStream(spec)
	return nil
}

// updateStream applies UpdateTable's StreamSpecification. As DynamoDB does
// (ack-api-quirks DDB-TABLE-050 and DDB-TABLE-442, responses recorded in
// us-east-1 and us-west-2), the request's shape is judged before the
// table's state: a view type must come with enabling and only with it, a
// table with a stream cannot enable another (even of the same view type),
// and one without a stream has none to disable.
func (m *tableMeta) updateStream(spec *ddb.StreamSpecification) error {
	if spec.StreamEnabled == nil {
		return nil
	}
	enable := *spec.StreamEnabled
	switch {
	case enable && spec.StreamViewType == "":
		return invalid("If stream is being enabled then UpdateViewType is required")
	case !enable && spec.StreamViewType != "":
		return invalid("If stream is being disabled, then UpdateViewType must not be specified")
	case enable && m.Stream != nil:
		return ddb.Errorf(ddb.ValidationException, "Table already has an enabled stream: TableName: %s", m.Name)
	case !enable && m.Stream == nil:
		return ddb.Errorf(ddb.ValidationException, "Table has no stream to disable: TableName: %s", m.Name)
	case enable:
		m.enableStream(spec)
	default:
		m.Stream = nil
	}
	return nil
}

// enableStream gives the table a new stream of spec's view type.
func (m *tableMeta) enableStream(spec *ddb.StreamSpecification) {
	m.Stream = spec
	m.StreamLabel = streamLabel(m.Updated, m.Created)
}

func streamLabel(updated, created int64) string {
	t := created
	if updated > t {
		t = updated
	}
	return time.Unix(0, t).UTC().Format("2006-01-02T15:04:05.000")
}
