package table

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/bits"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
)

// Query reads one partition, in sort-key order, a page at a time.
func (s *Service) Query(ctx context.Context, region string, in *QueryInput) (*ReadOutput, error) {
	m, err := s.table(region, in.TableName)
	if err != nil {
		return nil, err
	}
	if err := m.checkIndexName(in.IndexName); err != nil {
		return nil, err
	}
	c, err := compile(expressions.Input{
		KeyConditionExpression: in.KeyConditionExpression, KeyConditions: in.KeyConditions,
		FilterExpression: in.FilterExpression, QueryFilter: in.QueryFilter, ConditionalOperator: in.ConditionalOperator,
		ProjectionExpression: in.ProjectionExpression, AttributesToGet: in.AttributesToGet,
		Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues,
	})
	if err != nil {
		return nil, err
	}
	countOnly, err := selectRules(in.Select, c.Projection != nil, in.IndexName != nil)
	if err != nil {
		return nil, err
	}
	if c.KeyCondition == nil {
		return nil, Errorf(ValidationException, "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	var sortNames []string
	if m.schema.SK != "" {
		sortNames = []string{m.schema.SK}
	}
	kc, err := c.KeyCondition.KeyCondition([]string{m.schema.PK}, sortNames)
	if err != nil {
		return nil, validationError(err)
	}
	if err := m.checkFilterKeys(c.Filter); err != nil {
		return nil, err
	}
	pk := kc.Partition[0].Values[0]
	if pk.T != m.schema.PKType {
		return nil, invalid("Condition parameter type does not match schema type")
	}
	prefix := partitionPrefix(pk)
	from, to := prefix, prefixEnd(prefix)
	if len(kc.Sort) > 0 {
		if from, to, err = sortRange(m.schema, prefix, kc.Sort[0]); err != nil {
			return nil, err
		}
	}
	reverse := in.ScanIndexForward != nil && !*in.ScanIndexForward
	if in.ExclusiveStartKey != nil {
		esk, err := m.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(esk, prefix) {
			return nil, Errorf(ValidationException, "The provided starting key is outside query boundaries based on provided conditions")
		}
		if reverse {
			if bytes.Compare(esk, to) < 0 || to == nil {
				to = esk
			}
		} else if a := after(esk); bytes.Compare(a, from) > 0 {
			from = a
		}
	}
	ps := pageSpec{from: from, to: to, reverse: reverse, filter: c.Filter, project: c.Projection,
		count: countOnly, keyOf: m.keyOf}
	if in.Limit != nil {
		ps.limit = int(*in.Limit)
	}
	return s.readPages(m, ps, in.ConsistentRead, in.ReturnConsumedCapacity)
}

// readPages runs a page read in one snapshot and renders the response.
func (s *Service) readPages(m *tableMeta, ps pageSpec, consistentRead *bool, rcc string) (*ReadOutput, error) {
	var pg page
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return Errorf(ResourceNotFoundException, "Requested resource not found")
		}
		var err error
		pg, err = readPage(sp, ps)
		return err
	})
	if err != nil {
		return nil, err
	}
	consistent := consistentRead != nil && *consistentRead
	mt := newMeter(m.Name, true)
	mt.addTable(readUnits(pg.bytes, consistent))
	out := &ReadOutput{Count: pg.count, ScannedCount: pg.scanned, LastEvaluatedKey: pg.lastEvaluated,
		ConsumedCapacity: mt.report(rcc)}
	if !ps.count {
		items := pg.items
		if items == nil {
			items = []attr.Item{}
		}
		out.Items = &items
	}
	return out, nil
}

// sortRange turns a sort-key condition into a storage-key range within the
// partition whose keys start with prefix.
func sortRange(ks keySchema, prefix []byte, t expressions.KeyTerm) (from, to []byte, err error) {
	for _, v := range t.Values {
		if v.T != ks.SKType {
			return nil, nil, invalid("Condition parameter type does not match schema type")
		}
	}
	key := func(v attr.Value) []byte { return attr.AppendKey(append([]byte(nil), prefix...), v) }
	end := prefixEnd(prefix)
	v := t.Values[0]
	switch t.Op {
	case "=":
		k := key(v)
		return k, after(k), nil
	case "<":
		return prefix, key(v), nil
	case "<=":
		return prefix, after(key(v)), nil
	case ">":
		return after(key(v)), end, nil
	case ">=":
		return key(v), end, nil
	case "BETWEEN":
		hi := t.Values[1]
		if c, _ := attr.Compare(v, hi); c > 0 {
			return nil, nil, Errorf(ValidationException, "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s:%s}, upper bound operand: AttributeValue: {%s:%s}",
				v.T, scalarText(v), hi.T, scalarText(hi))
		}
		return key(v), after(key(hi)), nil
	case "begins_with":
		if v.T != attr.TypeS && v.T != attr.TypeB {
			return nil, nil, Errorf(ValidationException, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: %s", v.T)
		}
		// Every value with prefix p sorts in [p, succ(p)), succ(p) being p with
		// its last byte incremented (and trailing 0xff bytes dropped).
		raw := []byte(v.S)
		if v.T == attr.TypeB {
			raw = v.B
		}
		succ := prefixEnd(raw)
		if succ == nil {
			return key(v), end, nil
		}
		hi := attr.Value{T: v.T}
		if v.T == attr.TypeS {
			hi.S = string(succ)
		} else {
			hi.B = succ
		}
		return key(v), key(hi), nil
	}
	return nil, nil, Errorf(ValidationException, "Query key condition not supported")
}

func scalarText(v attr.Value) string {
	if v.T == attr.TypeB {
		return string(attr.AppendJSON(nil, v))
	}
	return v.S
}

// startKey validates an ExclusiveStartKey and returns its storage key.
func (m *tableMeta) startKey(k attr.Item) ([]byte, error) {
	key, err := m.lookupKey(k)
	if err != nil {
		return nil, Errorf(ValidationException, "The provided starting key is invalid: %s", err.(*Error).Message)
	}
	return key, nil
}

// checkIndexName refuses index reads until secondary indexes are maintained.
func (m *tableMeta) checkIndexName(name *string) error {
	if name == nil {
		return nil
	}
	for _, ix := range m.indexes() {
		if ix.Name == *name {
			return Errorf(ValidationException, "Reading secondary index %s is not supported by ddblocal yet", *name)
		}
	}
	return Errorf(ValidationException, "The table does not have the specified index: %s", *name)
}

// checkFilterKeys rejects a Query filter on a primary key attribute.
func (m *tableMeta) checkFilterKeys(f *expressions.Condition) error {
	if f == nil {
		return nil
	}
	for _, name := range f.TopLevelNames() {
		if name == m.schema.PK || name == m.schema.SK {
			return Errorf(ValidationException, "Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", name)
		}
	}
	return nil
}

// Scan reads the whole table (or one parallel segment of it) in storage order.
func (s *Service) Scan(ctx context.Context, region string, in *ScanInput) (*ReadOutput, error) {
	m, err := s.table(region, in.TableName)
	if err != nil {
		return nil, err
	}
	if err := m.checkIndexName(in.IndexName); err != nil {
		return nil, err
	}
	c, err := compile(expressions.Input{
		FilterExpression: in.FilterExpression, ScanFilter: in.ScanFilter, ConditionalOperator: in.ConditionalOperator,
		ProjectionExpression: in.ProjectionExpression, AttributesToGet: in.AttributesToGet,
		Names: in.ExpressionAttributeNames, Values: in.ExpressionAttributeValues,
	})
	if err != nil {
		return nil, err
	}
	countOnly, err := selectRules(in.Select, c.Projection != nil, in.IndexName != nil)
	if err != nil {
		return nil, err
	}
	var from, to []byte
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, Errorf(ValidationException, "The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, Errorf(ValidationException, "The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil:
		seg, total := uint64(*in.Segment), uint64(*in.TotalSegments)
		if seg >= total {
			return nil, Errorf(ValidationException, "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", seg, total)
		}
		from, to = segmentRange(seg, total)
	}
	if in.ExclusiveStartKey != nil {
		esk, err := m.startKey(in.ExclusiveStartKey)
		if err != nil {
			return nil, err
		}
		if (from != nil && bytes.Compare(esk, from) < 0) || (to != nil && bytes.Compare(esk, to) >= 0) {
			return nil, Errorf(ValidationException, "The provided Exclusive start key does not map to the provided segment")
		}
		from = after(esk)
	}
	ps := pageSpec{from: from, to: to, filter: c.Filter, project: c.Projection, count: countOnly, keyOf: m.keyOf}
	if in.Limit != nil {
		ps.limit = int(*in.Limit)
	}
	return s.readPages(m, ps, in.ConsistentRead, in.ReturnConsumedCapacity)
}

// segmentRange is parallel-scan segment seg of total: the seg-th of total
// equal slices of the 64-bit partition-hash space that prefixes storage keys.
func segmentRange(seg, total uint64) (from, to []byte) {
	bound := func(i uint64) []byte {
		if i == total {
			return nil
		}
		q, _ := bits.Div64(i, 0, total) // floor(i * 2^64 / total)
		return binary.BigEndian.AppendUint64(nil, q)
	}
	return bound(seg), bound(seg + 1)
}
