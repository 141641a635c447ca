package table

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/expressions"
	"github.com/ddblocal/ddblocal/store"
)

// Batch limits from the DynamoDB API reference.
const (
	maxBatchGetKeys       = 100
	maxBatchWriteRequests = 25
	maxBatchGetBytes      = 16 << 20
)

// BatchGetItem reads up to 100 items from one or more tables. Reads beyond the
// 16 MB response limit come back as UnprocessedKeys.
func (s *Service) BatchGetItem(ctx context.Context, region string, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	type tableReq struct {
		name    string
		meta    *tableMeta
		req     KeysAndAttributes
		keys    [][]byte
		project *expressions.Projection
	}
	var reqs []tableReq
	total := 0
	for _, ka := range in.RequestItems {
		total += len(ka.Keys)
	}
	if total > maxBatchGetKeys {
		return nil, Errorf(ValidationException, "Too many items requested for the BatchGetItem call")
	}
	for name, ka := range in.RequestItems {
		m, err := s.table(region, name)
		if err != nil {
			return nil, err
		}
		c, err := s.compileExpr(expressions.Input{ProjectionExpression: ka.ProjectionExpression, AttributesToGet: ka.AttributesToGet,
			Names: ka.ExpressionAttributeNames})
		if err != nil {
			return nil, err
		}
		tr := tableReq{name: name, meta: m, req: ka, project: c.Projection}
		seen := map[string]bool{}
		for _, k := range ka.Keys {
			key, err := m.lookupKey(k)
			if err != nil {
				return nil, err
			}
			if seen[string(key)] {
				return nil, Errorf(ValidationException, "Provided list of item keys contains duplicates")
			}
			seen[string(key)] = true
			tr.keys = append(tr.keys, key)
		}
		reqs = append(reqs, tr)
	}
	out := &BatchGetItemOutput{Responses: map[string][]attr.Item{}, UnprocessedKeys: map[string]KeysAndAttributes{}}
	meters := make([]*meter, len(reqs))
	err := s.db.View(func(tx *store.Tx) error {
		size := 0
		for i, tr := range reqs {
			sp := tx.Space(tr.meta.ID)
			if sp == nil {
				return errNotFound("", "")
			}
			consistent := tr.req.ConsistentRead != nil && *tr.req.ConsistentRead
			at := s.readTime(tr.meta, consistent)
			if at != 0 {
				if err := s.syncHistory(tx, tr.meta); err != nil {
					return err
				}
			}
			meters[i] = newMeter(tr.meta.Name, true)
			items := []attr.Item{}
			for j, key := range tr.keys {
				var item attr.Item
				if raw := sp.Get(key); raw != nil {
					var err error
					if item, err = attr.DecodeBinary(raw); err != nil {
						return err
					}
				}
				item = s.itemAt(tr.meta, key, item, at)
				if size+item.Size() > maxBatchGetBytes {
					// The response would pass 16 MB: this key and the rest wait.
					un := tr.req
					un.Keys = append([]attr.Item(nil), tr.req.Keys[j:]...)
					out.UnprocessedKeys[tr.name] = un
					break
				}
				meters[i].addTable(readUnits(item.Size(), consistent))
				if item == nil {
					continue
				}
				size += item.Size()
				if tr.project != nil {
					item = tr.project.Apply(item)
				}
				items = append(items, item)
			}
			out.Responses[tr.name] = items
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, mt := range meters {
		if cc := mt.report(in.ReturnConsumedCapacity); cc != nil {
			out.ConsumedCapacity = append(out.ConsumedCapacity, cc)
		}
	}
	return out, nil
}

// BatchWriteItem puts or deletes up to 25 items across tables. Every request
// is validated before any is applied, and all are applied in one store
// transaction, so UnprocessedItems is empty in normal operation.
func (s *Service) BatchWriteItem(ctx context.Context, region string, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	total := 0
	for _, reqs := range in.RequestItems {
		total += len(reqs)
	}
	if total > maxBatchWriteRequests {
		return nil, Errorf(ValidationException, "Too many items requested for the BatchWriteItem call")
	}
	muts := make([]mutation, 0, total) // one allocation for the batch
	var tables []*tableMeta
	for name, reqs := range in.RequestItems {
		m, err := s.table(region, name)
		if err != nil {
			return nil, err
		}
		tables = append(tables, m)
		if len(reqs) == 0 {
			return nil, Errorf(ValidationException, "1 validation error detected: Value '%s' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]", fmt.Sprint(in.RequestItems))
		}
		for _, r := range reqs {
			mu, err := m.batchMutation(r)
			if err != nil {
				return nil, err
			}
			// At most 25 keys: comparing pairs costs less than a map of
			// copied keys.
			for j := range muts {
				if muts[j].meta.ID == m.ID && bytes.Equal(muts[j].key, mu.key) {
					return nil, Errorf(ValidationException, "Provided list of item keys contains duplicates")
				}
			}
			muts = append(muts, mu)
		}
	}
	results := make([]written, len(muts))
	for i := range muts {
		muts[i].keepLog = s.keepsLog(muts[i].meta)
	}
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		now := s.now().UnixNano()
		sw := &spaceWrites{spaces: map[string]*store.Space{}, stats: map[string]*[2]int64{}}
		for i := range muts {
			w, err := muts[i].applyIn(tx, now, sw)
			if err != nil {
				return err
			}
			results[i] = w
		}
		return sw.flush()
	})
	if err != nil {
		return nil, err
	}
	for i := range muts {
		s.notifyWrite(muts[i].meta, results[i])
	}
	out := &BatchWriteItemOutput{UnprocessedItems: map[string][]WriteRequest{}}
	for i, mu := range muts {
		if icm := mu.meta.collectionMetrics(in.ReturnItemCollectionMetrics, results[i]); icm != nil {
			if out.ItemCollectionMetrics == nil {
				out.ItemCollectionMetrics = map[string][]*ItemCollectionMetrics{}
			}
			out.ItemCollectionMetrics[mu.meta.Name] = append(out.ItemCollectionMetrics[mu.meta.Name], icm)
		}
	}
	if in.ReturnConsumedCapacity == "TOTAL" || in.ReturnConsumedCapacity == "INDEXES" {
		byTable := map[string]*meter{}
		for i, mu := range muts {
			mt := byTable[mu.meta.Name]
			if mt == nil {
				mt = newMeter(mu.meta.Name, false)
				byTable[mu.meta.Name] = mt
			}
			mt.addWrite(results[i])
		}
		for _, m := range tables {
			if mt := byTable[m.Name]; mt != nil {
				out.ConsumedCapacity = append(out.ConsumedCapacity, mt.report(in.ReturnConsumedCapacity))
			}
		}
	}
	return out, nil
}

// batchMutation validates one BatchWriteItem request as PutItem or DeleteItem
// would, without conditions.
func (m *tableMeta) batchMutation(r WriteRequest) (mutation, error) {
	switch {
	case (r.PutRequest == nil) == (r.DeleteRequest == nil):
		return mutation{}, Errorf(ValidationException, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
	case r.PutRequest != nil:
		item := r.PutRequest.Item
		key, err := m.itemKeyFrom(item.Lookup)
		if err != nil {
			return mutation{}, err
		}
		if err := m.checkEncoded(item); err != nil {
			return mutation{}, err
		}
		return mutation{meta: m, key: key, blind: true, enc: item.Bytes()}, nil
	default:
		key, err := m.lookupKey(r.DeleteRequest.Key)
		if err != nil {
			return mutation{}, err
		}
		return mutation{meta: m, key: key, next: func(attr.Item) (attr.Item, error) { return nil, nil }}, nil
	}
}
