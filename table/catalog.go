package table

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
	"github.com/ddblocal/ddblocal/vector"
)

// tableMeta is a table's definition. The exported fields are stored in the
// store's catalog through catalogRecord (catalog_record.go); the others are
// derived on load and never stored.
type tableMeta struct {
	Region                 string
	Name                   string
	ID                     string
	Created                int64 // Unix nanoseconds
	Updated                int64 // last UpdateTable, Unix nanoseconds
	AttributeDefinitions   []ddb.AttributeDefinition
	KeySchema              []ddb.KeySchemaElement
	LocalSecondaryIndexes  []indexMeta
	GlobalSecondaryIndexes []indexMeta
	BillingMode            string
	PayPerRequestSince     int64 // when the table last became PAY_PER_REQUEST, Unix nanoseconds
	ReadCapacity           int64
	WriteCapacity          int64
	OnDemandThroughput     *ddb.OnDemandThroughput
	WarmRead, WarmWrite    int64 // WarmThroughput asked for (0: none)
	// WarmHighRead and WarmHighWrite are the most warmUnits described
	// before the last UpdateTable: a table's warm throughput never falls.
	WarmHighRead, WarmHighWrite int64
	Stream                      *ddb.StreamSpecification
	StreamLabel                 string
	SSE                         *ddb.SSESpecification
	TableClass                  string
	DeletionProtection          bool
	// DeletingIndexes are global indexes deleted within TransientDelay:
	// DescribeTable reports them DELETING until then.
	DeletingIndexes []deletingIndex
	Tags            []ddb.Tag
	TTLAttribute    string                    // Time to Live attribute, "" when disabled
	PITR            *pitrMeta                 // point-in-time recovery, nil when off (backup_pitr.go)
	Policies        map[string]resourcePolicy // resource-based policies by stream label, "" for the table's (policy_ops.go)
	Restore         *restoreMeta              // what a restored table came from (backup_restore.go)
	// Importing is the ID of the import that creates the table and has not
	// ended yet ("" when none): the table is CREATING until then
	// (transfer_import_state.go).
	Importing string
	// ContributorInsights is the Contributor Insights setting of the table
	// ("") and its global indexes (insights_contributor.go).
	ContributorInsights map[string]insightsState
	// Replicas are the other replicas of the global table the table is a
	// replica of (replica.go), nil for a regional table.
	Replicas []replicaMeta
	// Strong marks a global table with multi-Region strong consistency
	// (replica_strong.go); Witness is its witness's Region, if it has one,
	// added at WitnessSince.
	Strong       bool
	Witness      string
	WitnessSince int64
	// AutoScaling is the replica's auto scaling settings
	// (replica_autoscaling.go), nil when none were set.
	AutoScaling *replicaScaling
	// Global is the table's own global-table settings of 2026
	// (replica_disassociate.go), nil when none were set.
	Global *globalSettings
	// VectorIndexes are the table's vector indexes (vector_catalog.go), and
	// DeletingVectorIndexes those deleted within TransientDelay.
	VectorIndexes         []vectorMeta
	DeletingVectorIndexes []deletingVector

	schema keySchema
	lsis   []*index.Def // derived from LocalSecondaryIndexes
	gsis   []*index.Def // derived from GlobalSecondaryIndexes
	// gsiSpaces are the spaces of gsis, in their order (indexSpaceID):
	// built once, not on every write that changes them.
	gsiSpaces []string
	// vectors are derived from VectorIndexes.
	vectors []*vector.Def
	// collectionLimit is the item collection size limit (Options).
	collectionLimit int64
	// throttleTag is the value of the throttlingTag tag ("" without it);
	// tcap and gsiCap are the table's and its global indexes' throughput,
	// as package throttle takes it (throttle_admit.go).
	throttleTag string
	tcap        throttle.Capacity
	gsiCap      map[string]throttle.Capacity
}

// indexMeta is a secondary index's definition.
type indexMeta struct {
	Name          string
	KeySchema     []ddb.KeySchemaElement
	Projection    ddb.Projection
	ReadCapacity  int64
	WriteCapacity int64
	OnDemand      *ddb.OnDemandThroughput // a global index's maximums, nil when none
	// WarmRead and WarmWrite are a global index's WarmThroughput asked for
	// (0: none), never lowered.
	WarmRead, WarmWrite int64
	Created             int64
}

// deletingIndex is a deleted global index still reported as DELETING.
type deletingIndex struct {
	indexMeta
	Until int64 // Unix nanoseconds
}

// keySchema is a table's primary key in the form the item path needs.
type keySchema struct {
	PK, SK         string    // SK is "" without a sort key
	PKType, SKType attr.Type // SKType is 0 without a sort key
}

func (m *tableMeta) attrType(name string) attr.Type {
	for _, d := range m.AttributeDefinitions {
		if d.AttributeName == name {
			return attr.ParseType(d.AttributeType)
		}
	}
	return 0
}

// derive fills the fields computed from the stored definition.
func (m *tableMeta) derive() {
	m.schema = keySchema{}
	for _, k := range m.KeySchema {
		if k.KeyType == "HASH" {
			m.schema.PK, m.schema.PKType = k.AttributeName, m.attrType(k.AttributeName)
		} else {
			m.schema.SK, m.schema.SKType = k.AttributeName, m.attrType(k.AttributeName)
		}
	}
	m.lsis, m.gsis, m.gsiSpaces = nil, nil, nil
	for _, ix := range m.LocalSecondaryIndexes {
		m.lsis = append(m.lsis, m.indexDef(ix, false))
	}
	for _, ix := range m.GlobalSecondaryIndexes {
		m.gsis = append(m.gsis, m.indexDef(ix, true))
		m.gsiSpaces = append(m.gsiSpaces, indexSpaceID(m, ix.Name))
	}
	m.vectors = nil
	for _, v := range m.VectorIndexes {
		m.vectors = append(m.vectors, m.vectorDef(v))
	}
	m.deriveThrottling()
}

// indexDef is ix in the form index maintenance and reads use.
func (m *tableMeta) indexDef(ix indexMeta, global bool) *index.Def {
	d := &index.Def{Name: ix.Name, Global: global, ProjectionType: ix.Projection.ProjectionType, NonKey: ix.Projection.NonKeyAttributes}
	for _, k := range ix.KeySchema {
		ka := index.KeyAttr{Name: k.AttributeName, Type: m.attrType(k.AttributeName)}
		if k.KeyType == "HASH" {
			d.Partition = append(d.Partition, ka)
		} else {
			d.Sort = append(d.Sort, ka)
		}
	}
	d.TableKey = []index.KeyAttr{{Name: m.schema.PK, Type: m.schema.PKType}}
	if m.schema.SK != "" {
		d.TableKey = append(d.TableKey, index.KeyAttr{Name: m.schema.SK, Type: m.schema.SKType})
	}
	return d
}

// arn returns the table's ARN, in its scope's account and region.
func (m *tableMeta) arn() string {
	account, region := access.SplitScope(m.Region)
	return "arn:aws:dynamodb:" + region + ":" + account + ":table/" + m.Name
}

func catalogKey(region, name string) []byte { return appendCatalogKey(nil, region, name) }

// appendCatalogKey appends the catalog key of region's table name to b.
func appendCatalogKey(b []byte, region, name string) []byte {
	return append(append(append(b, region...), '/'), name...)
}

// catalog caches table definitions in memory in front of the store's catalog.
// A cached *tableMeta is never mutated: changes replace it. Every change to
// the store's catalog takes a stamp inside its transaction, so stamps follow
// commit order; the cache takes a change only if its stamp is newer than the
// last one it took for that name, so that two changes committed close together
// cannot leave the older one cached (nor a deleted table come back).
type catalog struct {
	mu              sync.RWMutex
	tables          map[string]*tableMeta // by string(catalogKey)
	stamps          map[string]uint64     // the last change's stamp by catalogKey, kept after a delete
	lastStamp       atomic.Uint64
	collectionLimit int64
	// gen counts forget(nil) calls: a get that read the store before one
	// does not cache what it read (it may be older than a missed change).
	gen uint64
}

func newCatalog(collectionLimit int64) *catalog {
	return &catalog{tables: make(map[string]*tableMeta), stamps: make(map[string]uint64), collectionLimit: collectionLimit}
}

// stamp returns the stamp of a catalog change. Call it inside the change's
// store transaction (which runs on the store's one committer, in commit
// order), and pass it to set after the commit.
func (c *catalog) stamp() uint64 { return c.lastStamp.Add(1) }

// get returns the table or nil. It reads the store only on a cache miss.
func (c *catalog) get(db *store.DB, region, name string) (*tableMeta, error) {
	// The key of a hit (every item operation's) is built on the stack.
	var buf [128]byte
	hk := appendCatalogKey(buf[:0], region, name)
	c.mu.RLock()
	m, ok := c.tables[string(hk)]
	seen, gen := c.stamps[string(hk)], c.gen
	c.mu.RUnlock()
	if ok {
		return m, nil
	}
	return c.load(db, region, name, seen, gen)
}

// load is get's miss: it reads the table from the store and caches it
// unless a change was cached meanwhile (seen and gen are what get saw).
func (c *catalog) load(db *store.DB, region, name string, seen, gen uint64) (*tableMeta, error) {
	k := catalogKey(region, name)
	m, err := c.stored(db, k)
	if err != nil || m == nil {
		return nil, err
	}
	c.mu.Lock()
	// A change that was cached while the store was read may be newer than
	// what was read: then it stays.
	if _, ok := c.tables[string(k)]; !ok && c.stamps[string(k)] == seen && c.gen == gen {
		c.tables[string(k)] = m
	}
	c.mu.Unlock()
	return m, nil
}

// stored reads the definition under catalog key k from the store, past the
// cache (nil: no such table).
func (c *catalog) stored(db *store.DB, k []byte) (*tableMeta, error) {
	var m *tableMeta
	err := db.Read(func(tx *store.Tx) error {
		m = nil
		b := tx.CatalogGet(k)
		if b == nil {
			return nil
		}
		var err error
		m, err = decodeMeta(b)
		return err
	})
	if err != nil || m == nil {
		return nil, err
	}
	m.collectionLimit = c.collectionLimit
	return m, nil
}

// forget drops the cached definition under catalog key k (nil: all of
// them), which another process sharing the store may have changed
// (store.DB.WatchCatalog); the next get reads the store. A get that read
// the store before forget does not cache what it read.
func (c *catalog) forget(k []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k == nil {
		c.gen++
		for name := range c.tables {
			c.stamps[name] = c.lastStamp.Add(1)
		}
		clear(c.tables)
		return
	}
	c.stamps[string(k)] = c.lastStamp.Add(1)
	delete(c.tables, string(k))
}

// set caches m (nil: removes the entry) after a committed change stamped
// stamp, unless a later change is cached already.
func (c *catalog) set(region, name string, m *tableMeta, stamp uint64) {
	k := string(catalogKey(region, name))
	c.mu.Lock()
	defer c.mu.Unlock()
	if stamp <= c.stamps[k] {
		return
	}
	c.stamps[k] = stamp
	if m == nil {
		delete(c.tables, k)
		return
	}
	m.collectionLimit = c.collectionLimit
	c.tables[k] = m
}

// newUUID returns a random RFC 4122 version 4 UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// tableName resolves a TableName member, which may be a name or a table ARN.
// An ARN's region is not checked: as before accounts, the caller's
// region is used (see ForeignARN for its account).
func tableName(s string) string {
	if strings.HasPrefix(s, "arn:") {
		if i := strings.LastIndex(s, ":table/"); i >= 0 {
			return strings.SplitN(s[i+len(":table/"):], "/", 2)[0]
		}
	}
	return s
}

func epochSeconds(nanos int64) float64 { return float64(nanos) / float64(time.Second) }

// changeTable commits a change to table m's definition as one
// read-modify-write: in one store transaction it reads the stored
// definition, passes it as cur to change with next, a separate copy of it
// for change to edit, and stores next; then it caches next and returns it.
// So a change always starts from every change committed before it, and
// checks that depend on the definition belong in change. It fails with
// notFound when the table was deleted, or deleted and re-created, since m
// was read, so a change is never applied to the wrong incarnation. change
// may return an error to cancel; like any store.Update function it may run
// more than once and must depend only on what it reads through tx.
func (s *Service) changeTable(ctx context.Context, m *tableMeta, notFound *ddb.Error, change func(tx *store.Tx, cur, next *tableMeta) error) (*tableMeta, error) {
	key := catalogKey(m.Region, m.Name)
	var next *tableMeta
	var stamp uint64
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		b := tx.CatalogGet(key)
		if b == nil {
			return notFound
		}
		cur, err := decodeMeta(b)
		if err != nil || cur.ID != m.ID {
			return notFound
		}
		// A second decode, not a copy, so that edits to next's slices
		// and maps never reach cur.
		if next, err = decodeMeta(b); err != nil {
			return err
		}
		if err := change(tx, cur, next); err != nil {
			return err
		}
		next.derive()
		val, err := encodeMeta(next)
		if err != nil {
			return err
		}
		stamp = s.catalog.stamp()
		return tx.CatalogPut(key, val)
	})
	if err != nil {
		return nil, err
	}
	s.catalog.set(m.Region, m.Name, next, stamp)
	return next, nil
}

// kmsARN is the ARN of the KMS key a KMS-encrypted table names, in the
// table's own Region and account (a replica's own key, for a replica): its
// KMSMasterKeyId when that is an ARN, the alias's ARN for an alias name
// (ddblocal has no KMS to resolve it to its key's), the key's ARN for a key
// ID, and a pretend key standing for the AWS managed key when it names none.
func (m *tableMeta) kmsARN() string {
	account, region := access.SplitScope(m.Region)
	prefix := "arn:aws:kms:" + region + ":" + account + ":"
	var id string
	if m.SSE != nil {
		id = m.SSE.KMSMasterKeyId
	}
	switch {
	case id == "":
		return prefix + "key/ddblocal"
	case strings.HasPrefix(id, "arn:"):
		return id
	case strings.HasPrefix(id, "alias/"):
		return prefix + id
	}
	return prefix + "key/" + id
}
