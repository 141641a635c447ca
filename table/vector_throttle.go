package table

import (
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/capacity"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/throttle"
	"github.com/ddblocal/ddblocal/vector"
)

// SearchVectors under the throttle model and in insights. DynamoDB meters
// a search in vector search bytes (VectorSearchRequestBytes), apart from
// read units, and documents no throughput limit for it. ddblocal charges a
// search as an eventually consistent read of those bytes (half a read unit
// per 4 KB) against its vector index, which the throttle model and insights
// treat as one more index of the table, partitioned by the hash of the
// HASH search-schema value: the search partition a search reads is its
// "key". So a client that searches one large partition hard is throttled
// as a Query of the same bytes would be (with the table's
// MaxReadRequestUnits as the index's maximum), and its searches show in
// the partition heat, the hot keys and the read amplification.

// vectorSearch is one SearchVectors between its admission and its finish.
type vectorSearch struct {
	m        *tableMeta
	index    string
	key      []byte           // the search partition's storage-shaped key
	admitted *throttle.Target // nil without throttling
}

// searchKey is the storage-shaped key of search partition part (an encoded
// HASH value, vector.FilterValue; "" for an index without one): the
// partition hash of the value, then part. Without a HASH element it is the
// bare hash prefix 0, which names no key.
func searchKey(part string) []byte {
	v, ok := vector.DecodeFilterValue(part)
	if !ok {
		return attr.AppendHashPrefix(nil, 0)
	}
	return append(attr.AppendHashPrefix(nil, attr.PartitionHash(v)), part...)
}

// decodeSearchKey is the insights decoder of searchKey's keys: the HASH
// value, nil without one.
func decodeSearchKey(key []byte) (pk, sk *attr.Value) {
	if len(key) <= attr.HashPrefixLen {
		return nil, nil
	}
	if v, ok := vector.DecodeFilterValue(string(key[attr.HashPrefixLen:])); ok {
		return &v, nil
	}
	return nil, nil
}

// vectorTarget is the throttle target of a search of m's vector index name
// at key: an on-demand index whose read maximum is the table's.
func (m *tableMeta) vectorTarget(name string, key []byte) throttle.Target {
	c := m.tcap
	c.ARN = m.arn() + "/index/" + name
	c.WarmRead, c.WarmWrite = 0, 0
	return throttle.Target{Index: name, Cap: c, Hash: hashOf(key), Key: key}
}

// beginSearch admits a search of m's vector index name in search
// partition part, with throttling on, taking half a read unit; it returns
// the throttling exception when refused.
func (s *Service) beginSearch(m *tableMeta, name, part string) (vectorSearch, error) {
	r := vectorSearch{m: m, index: name, key: searchKey(part)}
	if s.throttling(m) {
		t := m.vectorTarget(name, r.key)
		if reasons := s.admitRead(m, t, false); reasons != nil {
			return r, throttleError(m, reasons)
		}
		r.admitted = &t
	}
	return r, nil
}

// finishSearch records a search that metered bytes (VectorSearchRequestBytes),
// scored vectors and returned results, and with throttling on takes the
// rest of its read units from its partition. It is not recorded as
// filtered: the vectors scored already met the search condition, and what
// a search leaves out is beyond TopK, which insights' filter warning would
// blame on the condition.
func (s *Service) finishSearch(r vectorSearch, bytes, scored, returned int) {
	u := capacity.ReadUnits(bytes, false)
	if r.admitted != nil {
		s.consumeRead(r.m, *r.admitted, u, false)
	}
	s.insights.Page(r.m.ID, r.index, insights.PageRead{From: r.key, LastRead: hashOf(r.key), Units: u,
		Scanned: scored, Returned: returned})
}

// vectorInsightIndexes are m's vector indexes as insights indexes, each
// with a Sizer fed one entry per vector (4 × dims bytes) under its search
// partition's key, in hash order as the Sizer wants them.
func (s *Service) vectorInsightIndexes(m *tableMeta, xs map[string]*vector.Index) []insights.Index {
	var out []insights.Index
	for _, d := range m.vectors {
		x := xs[d.Name]
		if x == nil {
			continue
		}
		type part struct {
			key []byte
			n   int
		}
		var parts []part
		for _, p := range x.Partitions() {
			parts = append(parts, part{searchKey(p.Partition), p.Vectors})
		}
		slices.SortFunc(parts, func(a, b part) int { return slices.Compare(a.key, b.key) })
		z := s.insights.Sizer(m.ID, d.Name)
		for _, p := range parts {
			for range p.n {
				z.Entry(p.key, len(p.key), 4*d.Dims)
			}
		}
		out = append(out, insights.Index{Name: d.Name, Sizer: z, Decode: decodeSearchKey})
	}
	return out
}
