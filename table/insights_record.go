package table

import (
	"context"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/index"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/lsi"
	"github.com/ddblocal/ddblocal/partition"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/throttle"
)

// The Service feeds its insights.Recorder after every operation (one call
// per operation family: observeWrite, observeRead, and pageOutput's Page)
// and measures sizes when a report is asked for (Insights).

// partitions is the partitioning of a table (by ID) or one of its indexes
// that insights reports against: the throttle model's, once a throttled
// request has touched it, else DynamoDB's starting four partitions.
func (s *Service) partitions(tableID, index string) partition.Map {
	if m, ok := s.limiter.Partitions(tableID, index); ok {
		return m
	}
	return partition.Even(throttle.OnDemandPartitions)
}

// newRecorder returns the Service's insights recorder.
func (s *Service) newRecorder() *insights.Recorder {
	return insights.New(insights.Options{Now: s.now, Partitions: s.partitions})
}

// observeWrite records a committed write of m's item under key: the
// table's units against the key, each index's against its own key.
func (s *Service) observeWrite(m *tableMeta, key []byte, w written, transactional bool) {
	mult := 1.0
	if transactional {
		mult = 2
	}
	u := capacity.WriteUnits(w.oldSize, w.newSize)
	s.insights.Write(m.ID, "", key, u*mult)
	for _, d := range m.lsis {
		if u := w.lsi[d.Name]; u > 0 {
			s.insights.Write(m.ID, d.Name, key, u*mult) // a local index shares the table's partitions
		}
	}
	for _, d := range m.gsis {
		u := w.gsi[d.Name]
		if u <= 0 {
			continue
		}
		item := w.new
		if item == nil {
			item = w.old
		}
		if ik, ok := d.Key(item, key); ok {
			s.insights.Write(m.ID, d.Name, ik, u*mult)
		}
	}
}

// observeRead records a keyed read of size bytes of m's item under key.
func (s *Service) observeRead(m *tableMeta, key []byte, size int, consistent, transactional bool) {
	u := capacity.ReadUnits(size, consistent)
	if transactional {
		u *= 2
	}
	s.insights.Read(m.ID, "", key, u)
}

// Insights returns the insights report of a table, found as DescribeTable
// finds it.
func (s *Service) Insights(ctx context.Context, region, name string) (*insights.Report, error) {
	m, err := s.tableForControl(ctx, region, name)
	if err != nil {
		return nil, err
	}
	t := insights.Table{Name: m.Name, Throttling: s.throttling(m)}
	t.Indexes = append(t.Indexes, insights.Index{Name: "", Sizer: s.insights.Sizer(m.ID, ""),
		Decode: m.decodeKey, HasSort: m.schema.SK != ""})
	for _, d := range indexDefs(m) {
		t.Indexes = append(t.Indexes, insights.Index{Name: d.Name, Sizer: s.insights.Sizer(m.ID, d.Name),
			Decode: indexKeyDecoder(d), HasSort: len(d.Sort) > 0})
	}
	if len(m.lsis) > 0 {
		t.CollectionLimit = m.collectionLimit
	}
	err = s.db.View(func(tx *store.Tx) error {
		if err := measure(tx.Space(m.ID), t.Indexes[0].Sizer, m.partitionPrefixLen); err != nil {
			return err
		}
		for i, ix := range t.Indexes[1:] {
			d := indexDefs(m)[i]
			if err := measure(tx.Space(indexSpaceID(m, ix.Name)), ix.Sizer, indexPrefixLen(d)); err != nil {
				return err
			}
		}
		if len(m.lsis) > 0 {
			t.CollectionSize = storedCollectionSizes(tx, m, t.Indexes[0].Sizer)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	vix, vectors, err := s.vectorInsights(m)
	if err != nil {
		return nil, err
	}
	t.Indexes = append(t.Indexes, vix...)
	rep := s.insights.Report(m.ID, t)
	rep.VectorIndexes = vectors
	return &rep, nil
}

// indexDefs are m's local then global indexes, the order of Insights.
func indexDefs(m *tableMeta) []*index.Def {
	return append(append([]*index.Def(nil), m.lsis...), m.gsis...)
}

// measure feeds every entry of space sp (nil: none) to z.
func measure(sp *store.Space, z *insights.Sizer, prefixLen func([]byte) int) error {
	if sp == nil {
		return nil
	}
	return sp.Ascend(nil, nil, func(k, v []byte) bool {
		size := len(v)
		if n, err := attr.BinarySize(v); err == nil {
			size = n
		}
		z.Entry(k, prefixLen(k), size)
		return true
	})
}

// storedCollectionSizes returns the item collection sizes m keeps for its
// local indexes (items plus index entries) of the largest collections z
// measured, read in snapshot tx while it is valid.
func storedCollectionSizes(tx *store.Tx, m *tableMeta, z *insights.Sizer) func([]byte) int64 {
	z.Finish()
	sizes := map[string]int64{}
	if sp := tx.Space(m.ID); sp != nil {
		for _, prefix := range z.Largest() {
			sizes[string(prefix)] = lsi.Size(sp, lsi.SizeKey(prefix))
		}
	}
	return func(prefix []byte) int64 { return sizes[string(prefix)] }
}

// decodeKey returns the key values of a table storage key or partition prefix.
func (m *tableMeta) decodeKey(key []byte) (pk, sk *attr.Value) {
	if len(key) <= attr.HashPrefixLen {
		return nil, nil
	}
	p, rest, err := attr.DecodeKey(key[attr.HashPrefixLen:], m.schema.PKType)
	if err != nil {
		return nil, nil
	}
	if m.schema.SK == "" || len(rest) == 0 {
		return &p, nil
	}
	if s, _, err := attr.DecodeKey(rest, m.schema.SKType); err == nil {
		return &p, &s
	}
	return &p, nil
}

// indexKeyDecoder returns the decoder of d's storage keys: its first
// partition attribute's value and first sort attribute's value.
func indexKeyDecoder(d *index.Def) func([]byte) (pk, sk *attr.Value) {
	return func(key []byte) (pk, sk *attr.Value) {
		if len(key) <= attr.HashPrefixLen {
			return nil, nil
		}
		rest := key[attr.HashPrefixLen:]
		var first *attr.Value
		for _, ka := range d.Partition {
			v, r, err := attr.DecodeKey(rest, ka.Type)
			if err != nil {
				return first, nil
			}
			if first == nil {
				first = &v
			}
			rest = r
		}
		if len(d.Sort) == 0 || len(rest) == 0 {
			return first, nil
		}
		if v, _, err := attr.DecodeKey(rest, d.Sort[0].Type); err == nil {
			return first, &v
		}
		return first, nil
	}
}

// indexPrefixLen returns the length of the partition part (hash and
// partition attributes) of d's storage keys.
func indexPrefixLen(d *index.Def) func([]byte) int {
	return func(key []byte) int {
		if len(key) < attr.HashPrefixLen {
			return len(key)
		}
		rest := key[attr.HashPrefixLen:]
		for _, ka := range d.Partition {
			_, r, err := attr.DecodeKey(rest, ka.Type)
			if err != nil {
				return len(key)
			}
			rest = r
		}
		return len(key) - len(rest)
	}
}

// observePage records one Query or Scan page of target t, which metered mt.
func (s *Service) observePage(t target, ps pageSpec, pg page, mt *capacity.Meter) {
	units := mt.TableUnits
	name := ""
	if t.index != nil {
		name = t.index.Name
		units = 0
		for _, u := range mt.LSI {
			units += u
		}
		for _, u := range mt.GSI {
			units += u
		}
		units += mt.TableUnits // items a local index read fetched from the table
	}
	s.insights.Page(t.meta.ID, name, insights.PageRead{From: ps.from, LastRead: pg.lastRead, Units: units,
		Scanned: pg.scanned, Returned: pg.count, Scan: ps.scan, Filtered: ps.filter != nil})
}
