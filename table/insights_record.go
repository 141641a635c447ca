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
	// One call for the table's key and its indexes' (a few fit on the
	// stack): one lock and one clock reading, not one per key.
	var buf [4]insights.KeyWrite
	ws := append(buf[:0], insights.KeyWrite{Key: key, Units: capacity.WriteUnits(w.oldSize, w.newSize) * mult})
	for _, d := range m.lsis {
		if u := w.lsi[d.Name]; u > 0 {
			ws = append(ws, insights.KeyWrite{Index: d.Name, Key: key, Units: u * mult}) // a local index shares the table's partitions
		}
	}
	for i, d := range w.gsiDefs {
		if u := w.gsiWriteUnits(i); u > 0 {
			if ik := w.gsiKey(i); ik != nil {
				ws = append(ws, insights.KeyWrite{Index: d.Name, Key: ik, Units: u * mult})
			}
		}
	}
	s.insights.Writes(m.ID, ws...)
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
// finds it. Its sizes come from the sizes this process maintains
// (insights_sizes.go), followed from the store's commits after one walk
// of each space (over etcd, from its watch); over a store that cannot be
// followed, from a walk of the table and its indexes.
func (s *Service) Insights(ctx context.Context, region, name string) (*insights.Report, error) {
	return s.insightsReport(ctx, region, name, false)
}

// insightsReport is Insights, measuring sizes by walking the table and its
// indexes when walk is set (the maintained sizes' plain twin).
func (s *Service) insightsReport(ctx context.Context, region, name string, walk bool) (*insights.Report, error) {
	m, err := s.tableForControl(ctx, region, name)
	if err != nil {
		return nil, err
	}
	t := insights.Table{Name: m.Name, Throttling: s.throttling(m)}
	spaces := insightsSpaces(m)
	sizers, err := s.sizers(m, spaces, walk)
	if err != nil {
		return nil, err
	}
	for i, sp := range spaces {
		t.Indexes = append(t.Indexes, insights.Index{Name: sp.index, Sizer: sizers[i], Decode: sp.decode, HasSort: sp.hasSort})
	}
	if len(m.lsis) > 0 {
		t.CollectionLimit = m.collectionLimit
		err = s.db.View(func(tx *store.Tx) error {
			t.CollectionSize = storedCollectionSizes(tx, m, sizers[0])
			return nil
		})
		if err != nil {
			return nil, err
		}
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

// insightsSpace is one space an insights report measures: the table ("")
// or one of its indexes.
type insightsSpace struct {
	index, id string
	decode    func(key []byte) (pk, sk *attr.Value)
	hasSort   bool
	prefixLen func(key []byte) int
}

// insightsSpaces are m's table then its local and global indexes.
func insightsSpaces(m *tableMeta) []insightsSpace {
	out := []insightsSpace{{index: "", id: m.ID, decode: m.decodeKey, hasSort: m.schema.SK != "", prefixLen: m.partitionPrefixLen}}
	for _, d := range indexDefs(m) {
		out = append(out, insightsSpace{index: d.Name, id: indexSpaceID(m, d.Name), decode: indexKeyDecoder(d),
			hasSort: len(d.Sort) > 0, prefixLen: indexPrefixLen(d)})
	}
	return out
}

// walkedSizers measures each of m's spaces by walking it, in one snapshot.
func (s *Service) walkedSizers(m *tableMeta, spaces []insightsSpace) ([]*insights.Sizer, error) {
	out := make([]*insights.Sizer, len(spaces))
	err := s.db.View(func(tx *store.Tx) error {
		for i, sp := range spaces {
			out[i] = s.insights.Sizer(m.ID, sp.index)
			if err := measure(tx.Space(sp.id), out[i], sp.prefixLen); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
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
		z.Entry(k, prefixLen(k), int(entrySize(v)))
		return true
	})
}

// entrySize is the size insights count for a stored entry: the item's
// size recorded in its encoding, or its length when it has none.
func entrySize(v []byte) int64 {
	if n, err := attr.BinarySize(v); err == nil {
		return int64(n)
	}
	return int64(len(v))
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
