package table

import (
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/vector"
)

// vectorFollowers holds, per table ID, the in-memory vector indexes this
// process keeps (vector.Follower): built from the table on first use and
// caught up from its change log before each search. The zero value is ready.
type vectorFollowers struct {
	mu sync.Mutex
	m  map[string]*vector.Follower
}

// follower returns m's Follower, creating it (empty) on first use.
func (s *Service) follower(m *tableMeta) *vector.Follower {
	s.vectors.mu.Lock()
	defer s.vectors.mu.Unlock()
	if s.vectors.m == nil {
		s.vectors.m = map[string]*vector.Follower{}
	}
	f := s.vectors.m[m.ID]
	if f == nil {
		f = vector.NewFollower(s.db, m.ID, s.gsiDue(m))
		s.vectors.m[m.ID] = f
	}
	return f
}

// dropFollower forgets a deleted table's vector indexes.
func (s *Service) dropFollower(tableID string) {
	s.vectors.mu.Lock()
	delete(s.vectors.m, tableID)
	s.vectors.mu.Unlock()
}

// caughtUpVectors returns m's vector indexes by name, built if new and
// caught up with every write that is due (all of them without a lag, or
// after Settle), as a global index is before it is read. The map holds
// exactly m's indexes, whatever definition a concurrent request read.
func (s *Service) caughtUpVectors(m *tableMeta) (map[string]*vector.Index, error) {
	return s.follower(m).Ready(m.vectors, s.now().UnixNano())
}

// followVectors starts keeping m's vector indexes now, when they are
// created, so that the writes after it reach them through the change log
// (and its lag) rather than a later snapshot, and catches them up for
// DescribeTable's counts. Its errors are logged: the first search builds
// the indexes anyway.
func (s *Service) followVectors(m *tableMeta) {
	if len(m.vectors) == 0 {
		return
	}
	if _, err := s.caughtUpVectors(m); err != nil && s.opts.Logger != nil {
		s.opts.Logger.Warn("vector index build", "table", m.Name, "err", err)
	}
}

// vectorIndexIfBuilt returns m's vector index name if this process has
// built it, without building or catching it up (DescribeTable's counts).
func (s *Service) vectorIndexIfBuilt(m *tableMeta, name string) *vector.Index {
	s.vectors.mu.Lock()
	f := s.vectors.m[m.ID]
	s.vectors.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.Index(name)
}

// vectorRetain is how long m's change log must keep records for its vector
// indexes: since the oldest record the Follower may still apply (0 when
// the table has none, or no Follower yet: a first search builds from the
// table). A second of margin covers writes committed in the same instant.
func (s *Service) vectorRetain(m *tableMeta) time.Duration {
	if len(m.vectors) == 0 {
		return 0
	}
	s.vectors.mu.Lock()
	f := s.vectors.m[m.ID]
	s.vectors.mu.Unlock()
	if f == nil || f.Need() == 0 {
		return 0
	}
	return s.now().Sub(time.Unix(0, f.Need())) + time.Second
}
