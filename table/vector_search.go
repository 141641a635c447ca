package table

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/vector"
)

// Limits of SearchVectors (the developer guide: "TopK was outside 1 to 100"),
// and the per-request minimum of vector capacity ("a minimum of 1 KB per
// request").
const (
	maxTopK          = 100
	minVectorMetered = 1024
)

// SearchVectors is an exact nearest-neighbour search of a vector index: the
// TopK items most similar to SearchVector among those meeting the search
// condition, most similar first (ties in storage-key order). The service's
// search is approximate; see docs/vector-search.md.
func (s *Service) SearchVectors(ctx context.Context, region string, in *ddb.SearchVectorsInput) (*ddb.SearchVectorsOutput, error) {
	if k := *in.TopK; k < 1 || k > maxTopK {
		return nil, ddb.Errorf(ddb.ValidationException, "Provided TopK value '%d' is out of valid range. The value must be between 1 and %d inclusive", k, maxTopK)
	}
	c, err := expressions.Compile(expressions.Input{SearchConditionExpression: in.SearchConditionExpression,
		ProjectionExpression: in.ProjectionExpression, Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues})
	if err != nil {
		return nil, validationError(err)
	}
	m, err := s.lookup(ctx, region, in.TableName, in.IndexName, nil)
	if err != nil {
		return nil, err
	}
	st, _, _, err := s.vectorState(ctx, m)
	if err != nil {
		return nil, err
	}
	i, err := s.searchable(m, in.IndexName, st)
	if err != nil {
		return nil, err
	}
	q, err := searchQuery(m.vectors[i], in, c.SearchCondition)
	if err != nil {
		return nil, err
	}
	r, err := s.beginSearch(m, in.IndexName, q.Partition)
	if err != nil {
		return nil, err
	}
	xs, err := s.caughtUpVectors(ctx, m)
	if err != nil {
		return nil, err
	}
	hits, scored := xs[in.IndexName].SearchCount(q)
	out, returned, err := s.searchResults(m, m.VectorIndexes[i], hits, c.Projection)
	if err != nil {
		return nil, err
	}
	metered := max(minVectorMetered, scored*4*m.vectors[i].Dims+returned)
	s.finishSearch(r, metered, scored, len(out.SearchResults))
	if in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES" {
		b := float64(metered)
		out.ConsumedCapacity = &ddb.VectorCapacity{VectorSearchRequestBytes: &b}
	}
	return out, nil
}

// searchable returns the position of m's vector index name if it can be
// searched now (st is what its owner published), or the service's
// ValidationException: no such index, or one still CREATING (the developer
// guide lists both texts for that case).
func (s *Service) searchable(m *tableMeta, name string, st vector.State) (int, error) {
	i := m.vectorPosition(name)
	if i < 0 {
		return 0, ddb.Errorf(ddb.ValidationException, "The table does not have the specified index: %s", name)
	}
	if status, backfilling := s.vectorStatus(m.VectorIndexes[i], s.now().UnixNano(), st); status != "ACTIVE" {
		if backfilling != nil {
			return 0, ddb.Errorf(ddb.ValidationException, "Cannot search backfilling vector index: %s", name)
		}
		return 0, ddb.Errorf(ddb.ValidationException, "The table does not have the specified index: %s", name)
	}
	return i, nil
}

// searchQuery validates the search vector and the search condition against
// index d and returns the query. Texts marked (reported) are as other
// emulators report the service's; the others are the developer guide's.
func searchQuery(d *vector.Def, in *ddb.SearchVectorsInput, cond *expressions.Condition) (vector.Query, error) {
	q := vector.Query{K: int(*in.TopK)}
	var err error
	if q.Vector, err = vector.ParseList(in.SearchVector, d.Dims, nil); err != nil {
		var pe *vector.ParseError
		if errors.As(err, &pe) && pe.Reason == vector.Length {
			return q, ddb.Errorf(ddb.ValidationException, "Input search vector dimension %d does not match vector index dimension %d", pe.Actual, pe.Expected)
		}
		return q, ddb.Errorf(ddb.ValidationException, "Search vector contains invalid values. All values in the search vector must be a 32-bit floating-point number attribute") // (reported)
	}
	var eqs []expressions.Equality
	if cond != nil {
		if eqs, err = cond.Equalities(); err != nil {
			return q, validationError(err)
		}
	}
	hashed := false
	seen := map[string]bool{}
	for _, e := range eqs {
		name := e.Path[0].Name
		if seen[name] {
			return q, ddb.Errorf(ddb.ValidationException, "Invalid SearchConditionExpression: SearchConditionExpression must only contain one condition per attribute") // (reported)
		}
		seen[name] = true
		switch f := filterPosition(d, name); {
		case len(e.Path) > 1 || f == -2: // a nested path's text is ddblocal's
			return q, ddb.Errorf(ddb.ValidationException, "SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: %s", name) // (reported)
		case f == -1:
			hashed = true
			q.Partition = vector.FilterValue(e.Value)
			if e.Value.T != d.Hash.Type {
				q.Partition = "\x00no match" // a value of another type equals nothing
			}
		default:
			q.Filters = append(q.Filters, vector.Match{Filter: f, Value: vector.FilterValue(e.Value)})
		}
	}
	if d.Hash.Name != "" && !hashed {
		return q, ddb.Errorf(ddb.ValidationException, "SearchConditionExpression must be provided when SearchSchema has a HASH key")
	}
	return q, nil
}

// filterPosition is name's INLINE_FILTER position in d, -1 for its HASH
// element, -2 when the search schema does not have it.
func filterPosition(d *vector.Def, name string) int {
	if name == d.Hash.Name {
		return -1
	}
	for i, f := range d.Filters {
		if f.Name == name {
			return i
		}
	}
	return -2
}

// searchResults reads the hits' items from the table and projects them:
// the index's projection without the vector attribute (which only a
// ProjectionExpression asks for), narrowed by proj when given. An item
// gone since the index saw it (an index that lags) is left out. It also
// returns the results' size in bytes.
func (s *Service) searchResults(m *tableMeta, v vectorMeta, hits []vector.Hit, proj *expressions.Projection) (*ddb.SearchVectorsOutput, int, error) {
	out := &ddb.SearchVectorsOutput{SearchResults: []ddb.SearchResultItem{}}
	projected := m.vectorProjected(v)
	size := 0
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return ddb.NotFound("")
		}
		for _, h := range hits {
			raw := sp.Get([]byte(h.Key))
			if raw == nil {
				continue
			}
			item, err := attr.DecodeBinary(raw)
			if err != nil {
				return err
			}
			item = projectSearchItem(item, v.Attribute, projected, proj)
			size += item.Size()
			out.SearchResults = append(out.SearchResults, ddb.SearchResultItem{Item: item, Score: h.Score})
		}
		return nil
	})
	return out, size, err
}

// vectorProjected reports which attributes index v projects: nil for ALL,
// else the table key, the search schema, the vector and any NonKeyAttributes.
func (m *tableMeta) vectorProjected(v vectorMeta) map[string]bool {
	if v.Projection.ProjectionType == "ALL" {
		return nil
	}
	p := map[string]bool{m.schema.PK: true, v.Attribute: true}
	if m.schema.SK != "" {
		p[m.schema.SK] = true
	}
	for _, e := range v.Schema {
		p[e.Name] = true
	}
	for _, n := range v.Projection.NonKeyAttributes {
		p[n] = true
	}
	return p
}

// projectSearchItem keeps the attributes of item a search returns: those
// projected (all when projected is nil) and, without proj, not the vector;
// with proj, those proj names that are projected (others are ignored).
func projectSearchItem(item attr.Item, vectorAttr string, projected map[string]bool, proj *expressions.Projection) attr.Item {
	if proj != nil {
		item = proj.Apply(item)
	} else {
		delete(item, vectorAttr)
	}
	for name := range item {
		if projected != nil && !projected[name] {
			delete(item, name)
		}
	}
	return item
}

// notVectorIndex refuses a Query or Scan (op) of a vector index, which only
// SearchVectors reads. The Query text is AWS's (agent-toolkit notes); the
// Scan one follows it.
func (m *tableMeta) notVectorIndex(name *string, op string) error {
	if name != nil && m.vectorPosition(*name) >= 0 {
		return ddb.Errorf(ddb.ValidationException, "%s operation not supported on this index type.", op)
	}
	return nil
}
