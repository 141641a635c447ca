package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/vector"
)

// Limits on vector indexes, from the developer guide ("up to the per-table
// limit of five"; "DynamoDB supports up to 4,096 dimensions") and AWS's
// agent-toolkit notes (at most one HASH element, up to 18 inline filters).
const (
	maxVectorIndexes = 5
	maxInlineFilters = 18
)

// vectorMeta is a vector index's definition as the catalog stores it.
type vectorMeta struct {
	Name       string           `json:"Name"`
	Attribute  string           `json:"Attribute"`
	Dims       int64            `json:"Dimensions"`
	Func       string           `json:"DistanceFunction"`
	Schema     []schemaMember   `json:"SearchSchema,omitempty"`
	Projection recordProjection `json:"Projection"`
	Created    int64            `json:"Created"`
	// Backfill marks an index added by UpdateTable, which DynamoDB reports
	// Backfilling while it is CREATING (one made by CreateTable is not).
	Backfill bool `json:"Backfill,omitempty"`
}

// schemaMember is one SearchSchema element as stored.
type schemaMember struct {
	Name string `json:"AttributeName"`
	Type string `json:"SearchSchemaElementType"`
}

// deletingVector is a deleted vector index still reported as DELETING.
type deletingVector struct {
	vectorMeta
	Until int64 `json:"Until"`
}

// vectorDef is v in the form maintenance and search use.
func (m *tableMeta) vectorDef(v vectorMeta) *vector.Def {
	fn, _ := vector.ParseFunc(v.Func)
	d := &vector.Def{Name: v.Name, Attribute: v.Attribute, Dims: int(v.Dims), Func: fn}
	for _, e := range v.Schema {
		ka := index.KeyAttr{Name: e.Name, Type: m.attrType(e.Name)}
		if e.Type == "HASH" {
			d.Hash = ka
		} else {
			d.Filters = append(d.Filters, ka)
		}
	}
	return d
}

func (m *tableMeta) vectorPosition(name string) int {
	for i, v := range m.VectorIndexes {
		if v.Name == name {
			return i
		}
	}
	return -1
}

// indexNameTaken reports whether a secondary or vector index is named name.
func (m *tableMeta) indexNameTaken(name string) bool {
	for _, ix := range m.indexes() {
		if ix.Name == name {
			return true
		}
	}
	return m.vectorPosition(name) >= 0
}

// addVectorIndexes validates CreateTable's vector indexes and adds them.
func (m *tableMeta) addVectorIndexes(vis []ddb.VectorIndex) error {
	if len(vis) == 0 {
		return nil
	}
	if len(vis) > maxVectorIndexes {
		return invalid("VectorIndex count exceeds the per-table limit of %d", maxVectorIndexes)
	}
	for i := range vis {
		v, err := m.vectorIndex(&vis[i], m.Created, false)
		if err != nil {
			return err
		}
		m.VectorIndexes = append(m.VectorIndexes, v)
	}
	return nil
}

// vectorIndex validates one vector index definition against m (its billing
// mode, attribute definitions and other indexes). The texts marked (ddblocal)
// are not documented by AWS; the others are the developer guide's or, where
// marked (reported), as other emulators report the service's.
func (m *tableMeta) vectorIndex(v *ddb.VectorIndex, created int64, backfill bool) (vectorMeta, error) {
	if m.BillingMode != "PAY_PER_REQUEST" {
		return vectorMeta{}, invalid("Vector indexes are only supported for PAY_PER_REQUEST tables") // (reported)
	}
	if m.indexNameTaken(v.IndexName) {
		return vectorMeta{}, invalid("Duplicate index name: %s", v.IndexName)
	}
	if *v.Dimensions > vector.MaxDimensions {
		return vectorMeta{}, invalid("Number of dimensions must be between 1 and %d inclusive.", vector.MaxDimensions) // (reported)
	}
	for _, o := range m.VectorIndexes {
		if o.Attribute == v.VectorAttribute.AttributeName && o.Dims != *v.Dimensions {
			return vectorMeta{}, invalid("Conflicting attribute definition for '%s'. All VectorIndexes on the same vector attribute must use the same dimensions.", o.Attribute) // (reported)
		}
	}
	if err := checkProjection(v.Projection); err != nil {
		return vectorMeta{}, err
	}
	vm := vectorMeta{Name: v.IndexName, Attribute: v.VectorAttribute.AttributeName, Dims: *v.Dimensions, Func: v.DistanceFunction,
		Projection: recordProjection(*v.Projection), Created: created, Backfill: backfill}
	hashes, filters := 0, 0
	for _, e := range v.SearchSchema {
		if m.attrType(e.AttributeName) == 0 {
			return vectorMeta{}, invalid("One element in SearchSchema is not defined in attribute definitions")
		}
		if e.SearchSchemaElementType == "HASH" {
			hashes++
		} else {
			filters++
		}
		vm.Schema = append(vm.Schema, schemaMember{e.AttributeName, e.SearchSchemaElementType})
	}
	if hashes > 1 {
		return vectorMeta{}, invalid("SearchSchema can contain at most one HASH element") // (ddblocal)
	}
	if filters > maxInlineFilters {
		return vectorMeta{}, invalid("SearchSchema can contain at most %d INLINE_FILTER elements", maxInlineFilters) // (ddblocal)
	}
	return vm, nil
}

// searchSchemaAttributes returns the attributes vector indexes' search
// schemas use: like key attributes, they need attribute definitions.
func searchSchemaAttributes(vis []ddb.VectorIndex) []string {
	var out []string
	for _, v := range vis {
		for _, e := range v.SearchSchema {
			out = append(out, e.AttributeName)
		}
	}
	return out
}

// vectorStatus is a vector index's IndexStatus and Backfilling at now,
// given the state its owner published: CREATING for TransientDelay after it
// was created (Backfilling when UpdateTable added it or a restore rebuilds
// it), and such an index stays CREATING with Backfilling until its owner
// has built it; then ACTIVE. Without the delay every index is ACTIVE at
// once, and a search waits for the owner's build (caughtUpVectors).
func (s *Service) vectorStatus(v vectorMeta, now int64, st vector.State) (string, *bool) {
	delay := s.opts.TransientDelay.Nanoseconds()
	_, built := st.Built(v.Name, v.Created)
	if delay > 0 && (now < v.Created+delay || v.Backfill && !built) {
		if v.Backfill {
			t := true
			return "CREATING", &t
		}
		return "CREATING", nil
	}
	return "ACTIVE", nil
}

// describeVectorIndexes describes m's vector indexes at now, then those
// still DELETING (nil if none). ItemCount and IndexSizeBytes are those the
// owner published, as of the last write it applied (the service updates
// them about every six hours).
func (s *Service) describeVectorIndexes(m *tableMeta, now int64) []ddb.VectorIndexDescription {
	var st vector.State
	if len(m.VectorIndexes) > 0 {
		// Unreadable, the indexes describe as not built yet.
		_ = s.db.View(func(tx *store.Tx) error {
			if sp := tx.Space(m.ID); sp != nil {
				st, _ = vector.ReadState(sp)
			}
			return nil
		})
	}
	var out []ddb.VectorIndexDescription
	for _, v := range m.VectorIndexes {
		d := vectorDescription(m, v)
		d.IndexStatus, d.Backfilling = s.vectorStatus(v, now, st)
		if n, ok := st.Built(v.Name, v.Created); ok {
			d.ItemCount = n
			d.IndexSizeBytes = n * 4 * v.Dims
		}
		out = append(out, d)
	}
	for _, v := range m.DeletingVectorIndexes {
		if now < v.Until {
			d := vectorDescription(m, v.vectorMeta)
			d.IndexStatus = "DELETING"
			out = append(out, d)
		}
	}
	return out
}

func vectorDescription(m *tableMeta, v vectorMeta) ddb.VectorIndexDescription {
	d := ddb.VectorIndexDescription{IndexName: v.Name, IndexArn: m.arn() + "/index/" + v.Name,
		VectorAttribute: ddb.VectorAttributeDefinition{AttributeName: v.Attribute},
		Dimensions:      v.Dims, DistanceFunction: v.Func, Projection: ddb.Projection(v.Projection)}
	for _, e := range v.Schema {
		d.SearchSchema = append(d.SearchSchema, ddb.SearchSchemaElement{AttributeName: e.Name, SearchSchemaElementType: e.Type})
	}
	return d
}

// vectorIndexInputs returns m's vector indexes as CreateTable takes them
// (a backup's or a restore's definition).
func (m *tableMeta) vectorIndexInputs() []ddb.VectorIndex {
	var out []ddb.VectorIndex
	for _, v := range m.VectorIndexes {
		d := vectorDescription(m, v)
		dims := v.Dims
		p := d.Projection
		out = append(out, ddb.VectorIndex{IndexName: v.Name, VectorAttribute: &d.VectorAttribute, Dimensions: &dims,
			DistanceFunction: v.Func, Projection: &p, SearchSchema: d.SearchSchema})
	}
	return out
}

// checkVectorValues validates, for a write, the attributes an item carries
// that m's vector indexes read: a present vector must be a list of the
// index's dimensions of numbers that fit a float32, and present search
// schema attributes must have their defined type and not be empty. The
// texts are as other emulators report the service's (unverified).
func (m *tableMeta) checkVectorValues(get lookup) error {
	for _, d := range m.vectors {
		if v, ok := get(d.Attribute); ok {
			if err := vectorValueError(d, v); err != nil {
				return err
			}
		}
		keys := d.Filters
		if d.Hash.Name != "" {
			keys = append([]index.KeyAttr{d.Hash}, keys...)
		}
		for _, k := range keys {
			if v, ok := get(k.Name); ok {
				if err := indexKeyError(d.Name, k, v, true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// vectorValueError words a vector attribute's ParseError for a write.
func vectorValueError(d *vector.Def, v attr.Value) error {
	pe, ok := vector.Validate(v, d.Dims).(*vector.ParseError)
	if !ok {
		return nil
	}
	const pre = "One or more parameter values were invalid. "
	switch pe.Reason {
	case vector.Length:
		return ddb.Errorf(ddb.ValidationException, pre+"Invalid size for parameter %s, Expected: %d, Actual: %d. IndexName: %s", d.Attribute, pe.Expected, pe.Actual, d.Name)
	case vector.NotList:
		return ddb.Errorf(ddb.ValidationException, pre+"Invalid type for parameter %s, Expected: 32-bit floating point number list IndexName: %s", d.Attribute, d.Name)
	case vector.NotNumber:
		return ddb.Errorf(ddb.ValidationException, pre+"Invalid type for parameter %s[%d], Expected: 32-bit floating point number, Actual: %s. IndexName: %s", d.Attribute, pe.Index, v.L[pe.Index].T, d.Name)
	default: // (ddblocal): the service's text for an out-of-range value is not documented
		return ddb.Errorf(ddb.ValidationException, pre+"Invalid value for parameter %s[%d], Expected: 32-bit floating point number IndexName: %s", d.Attribute, pe.Index, d.Name)
	}
}

// applyVectorUpdates applies UpdateTable's VectorIndexUpdates to m, a copy
// of the definition: one index created or deleted per call, shared with
// global index creation ("Only 1 online index can be created or deleted
// simultaneously per table", the developer guide).
func (m *tableMeta) applyVectorUpdates(in *ddb.UpdateTableInput) error {
	if len(in.VectorIndexUpdates) == 0 {
		return nil
	}
	structural := len(in.VectorIndexUpdates)
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil || u.Delete != nil {
			structural++
		}
	}
	if structural > 1 {
		return ddb.Errorf(ddb.LimitExceededException, "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	}
	u := in.VectorIndexUpdates[0]
	switch {
	case (u.Create == nil) == (u.Delete == nil):
		return invalid("One of VectorIndexUpdate.Create or Delete must be specified") // (ddblocal)
	case u.Delete != nil:
		i := m.vectorPosition(u.Delete.IndexName)
		if i < 0 { // (ddblocal): as the service words an unknown global index's update
			return ddb.NotFound("Index %s for table %s", u.Delete.IndexName, m.Name)
		}
		m.VectorIndexes = append(m.VectorIndexes[:i:i], m.VectorIndexes[i+1:]...)
		m.pruneAttributeDefinitions()
		return nil
	}
	if len(m.VectorIndexes) >= maxVectorIndexes {
		return invalid("VectorIndex count exceeds the per-table limit of %d", maxVectorIndexes)
	}
	m.AttributeDefinitions = append([]ddb.AttributeDefinition(nil), m.AttributeDefinitions...)
	for _, d := range in.AttributeDefinitions {
		if m.attrType(d.AttributeName) == 0 {
			m.AttributeDefinitions = append(m.AttributeDefinitions, d)
		}
	}
	v, err := m.vectorIndex(u.Create, m.Updated, true)
	if err != nil {
		return err
	}
	m.VectorIndexes = append(append([]vectorMeta(nil), m.VectorIndexes...), v)
	return nil
}

// vectorDeletions lists the vector indexes cur has and next lacks, still
// DELETING until delay after next's update; the earlier ones not yet over.
func vectorDeletions(cur, next *tableMeta, delay int64) []deletingVector {
	var out []deletingVector
	for _, d := range cur.DeletingVectorIndexes {
		if d.Until > next.Updated && next.vectorPosition(d.Name) < 0 {
			out = append(out, d)
		}
	}
	if delay == 0 {
		return out
	}
	for _, v := range cur.VectorIndexes {
		if next.vectorPosition(v.Name) < 0 {
			out = append(out, deletingVector{vectorMeta: v, Until: next.Updated + delay})
		}
	}
	return out
}

// restoreVectorIndexes gives a restored table m the vector indexes of src,
// or those of override when it is not nil (validated as CreateTable's). A
// restored index is rebuilt from the restored items, so it reports
// Backfilling while CREATING ("the index definition is restored and
// rebuilt from base-table data, so it backfills before it is searchable").
func (m *tableMeta) restoreVectorIndexes(src *tableMeta, override []ddb.VectorIndex) error {
	m.derive()
	if override == nil {
		for _, v := range src.VectorIndexes {
			v.Created, v.Backfill = m.Created, true
			m.VectorIndexes = append(m.VectorIndexes, v)
		}
		return nil
	}
	if err := m.addVectorIndexes(override); err != nil {
		return err
	}
	for i := range m.VectorIndexes {
		m.VectorIndexes[i].Backfill = true
	}
	return nil
}
