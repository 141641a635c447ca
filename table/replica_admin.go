package table

import (
	"slices"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/replication"
)

// Replication reports every link of every global table this process runs,
// sorted by table, source and target, and the recent conflicts of each.
func (s *Service) Replication() (*replication.Report, error) {
	rep := &replication.Report{Links: []replication.LinkReport{}, PausedRegions: s.pausedRegions(), Conflicts: []replication.ConflictReport{}}
	for _, run := range s.links() {
		st, ok, err := run.r.Status()
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		m := s.sourceOf(run)
		var account string
		var key []string
		if m != nil {
			account, _ = access.SplitScope(m.Region)
			for _, k := range m.KeySchema {
				key = append(key, k.AttributeName)
			}
		}
		rep.Links = append(rep.Links, replication.LinkReport{Table: run.name, Account: account, Source: st.Source.Region,
			Target: st.Target.Region, Watermark: st.Watermark, Copying: st.Copying, Paused: st.Paused,
			Backlog: st.Backlog, LagMillis: st.Lag.Milliseconds(), Conflicts: st.Conflicts,
			ReplicatedWriteUnits: st.ReplicatedUnits, Throttled: st.Throttled})
		_, cs := run.r.Conflicts()
		for _, c := range cs {
			rep.Conflicts = append(rep.Conflicts, conflictReport(run.name, key, c))
		}
	}
	slices.SortFunc(rep.Links, func(a, b replication.LinkReport) int {
		return strings.Compare(a.Table+"\x00"+a.Source+"\x00"+a.Target, b.Table+"\x00"+b.Source+"\x00"+b.Target)
	})
	return rep, nil
}

// sourceOf is the definition of a link's source table, nil when it is gone.
func (s *Service) sourceOf(run *linkRun) *tableMeta {
	m, err := s.catalog.get(s.db, run.scope, run.name)
	if err != nil || m == nil || m.ID != run.source.ID {
		return nil
	}
	return m
}

// conflictReport renders c, a conflict of table name whose key attributes
// are key.
func conflictReport(name string, key []string, c replication.Conflict) replication.ConflictReport {
	out := replication.ConflictReport{Table: name, Region: c.Region,
		Winner: replication.ConflictWrite{Region: c.Winner.Region, Time: time.Unix(0, c.Winner.Time).UTC(), Deleted: c.Winner.Deleted},
		Loser:  replication.ConflictWrite{Region: c.Loser.Region, Time: time.Unix(0, c.Loser.Time).UTC(), Deleted: c.Loser.Deleted}}
	if item, err := attr.DecodeBinary(c.Item); err == nil {
		out.Key = attr.Item{}
		for _, k := range key {
			if v, ok := item[k]; ok {
				out.Key[k] = v
			}
		}
	}
	return out
}

// PauseRegion stops replication to and from region, as if the Region were
// cut off from the others, until ResumeRegion; writes there and elsewhere
// go on and wait in their change logs.
func (s *Service) PauseRegion(region string) {
	s.setPaused(region, true)
}

// ResumeRegion lets a paused Region catch up.
func (s *Service) ResumeRegion(region string) {
	s.setPaused(region, false)
}

func (s *Service) setPaused(region string, paused bool) {
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	if paused {
		s.replicas.paused[region] = true
	} else {
		delete(s.replicas.paused, region)
	}
	s.replicas.applyHolds()
}

func (s *Service) pausedRegions() []string {
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	out := []string{}
	for r := range s.replicas.paused {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}
