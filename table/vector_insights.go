package table

import (
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/vector"
)

// vectorInsights reports m's vector indexes for /_ddblocal/insights as the
// owner last published them (built first if this process has not yet):
// as insights indexes (their searches' heat, sized by search partition) and
// as vector index reports.
func (s *Service) vectorInsights(m *tableMeta) ([]insights.Index, []insights.VectorIndexReport, error) {
	if len(m.vectors) == 0 {
		return nil, nil, nil
	}
	st, has, _, err := s.vectorState(s.bg, m)
	if err != nil || !has {
		return nil, nil, err // nothing published yet: nothing to report
	}
	xs, err := s.follower(m).Ready(m.vectors, st.Seq)
	if err != nil {
		return nil, nil, err
	}
	return s.vectorInsightIndexes(m, xs), vectorReports(m, xs), nil
}

// vectorReports are the vector index reports of m's indexes xs.
func vectorReports(m *tableMeta, xs map[string]*vector.Index) []insights.VectorIndexReport {
	var out []insights.VectorIndexReport
	for _, d := range m.vectors {
		x := xs[d.Name]
		if x == nil {
			continue
		}
		r := insights.VectorIndexReport{Index: d.Name, Attribute: d.Attribute, Dimensions: int64(d.Dims),
			DistanceFunction: d.Func.String(), Hash: d.Hash.Name, SearchPartitions: []insights.SearchPartition{}}
		parts := x.Partitions()
		r.SearchPartitionsTotal = len(parts)
		for i, p := range parts {
			r.Vectors += int64(p.Vectors)
			if i < insights.TopN {
				r.SearchPartitions = append(r.SearchPartitions, searchPartition(p))
			}
		}
		r.VectorBytes = r.Vectors * 4 * int64(d.Dims)
		out = append(out, r)
	}
	return out
}

func searchPartition(p vector.PartitionSize) insights.SearchPartition {
	sp := insights.SearchPartition{Vectors: int64(p.Vectors)}
	if v, ok := vector.DecodeFilterValue(p.Partition); ok {
		sp.PartitionKey = &v
	}
	return sp
}
