package table

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/store"
)

// Multi-Region strong consistency (MRSC): a global table made STRONG in one
// UpdateTable with three Regions (two new replicas, or one and a witness),
// frozen afterwards until one UpdateTable deletes every replica and the
// witness. A write is acknowledged once every other replica has it, so a
// strongly consistent read in any Region sees every acknowledged write; a
// write to an item that a write from another Region is still replicating is
// refused with ReplicatedWriteConflictException.

// strongRegions are the Regions that offer MRSC (AWS's US, EU and AP sets;
// us-west-1 is refused by the service).
func strongRegions() []string {
	return []string{"us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1",
		"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"}
}

// witnessUpdate returns the Regions of in's witness Create and Delete.
func witnessUpdate(in *ddb.UpdateTableInput) (create, del string) {
	for _, w := range in.GlobalTableWitnessUpdates {
		if w.Create != nil {
			create = w.Create.RegionName
		}
		if w.Delete != nil {
			del = w.Delete.RegionName
		}
	}
	return create, del
}

// strongRequest reports whether in speaks of MRSC or witnesses.
func strongRequest(in *ddb.UpdateTableInput) bool {
	return in.MultiRegionConsistency != "" || len(in.GlobalTableWitnessUpdates) > 0
}

// checkStrong checks the MRSC rules of a replica change a of m.
func checkStrong(m *tableMeta, in *ddb.UpdateTableInput, a *replicaAction) error {
	wc, wd := witnessUpdate(in)
	mrc := in.MultiRegionConsistency
	if wc != "" && mrc != "STRONG" {
		return ddb.Errorf(ddb.ValidationException, "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present.")
	}
	switch {
	case mrc != "" && a.kind != "Create":
		return ddb.Errorf(ddb.ValidationException, "Only Replica Create actions are supported when MultiRegionConsistency parameter is provided.")
	case mrc == "EVENTUAL" && m.Strong:
		return ddb.Errorf(ddb.ValidationException, "MultiRegionConsistency parameter is unsupported on existing global table")
	case mrc == "STRONG":
		return checkStrongCreate(m, a, wc)
	case m.Strong && a.kind == "Create":
		return ddb.Errorf(ddb.ValidationException, "Cannot add replicas to a global table with strong MultiRegionConsistency")
	case m.Strong && a.kind == "Delete":
		return checkStrongDelete(m, a, wd)
	}
	return nil
}

// checkStrongCreate checks a new STRONG global table: three Regions (m's,
// the new replicas', the witness's), distinct, each offering MRSC.
func checkStrongCreate(m *tableMeta, a *replicaAction, witness string) error {
	n := 1 + len(m.Replicas) + len(a.regions)
	if witness != "" {
		n++
	}
	if len(m.Replicas) > 0 || n != 3 {
		return ddb.Errorf(ddb.ValidationException, "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG.")
	}
	own := regionOf(m)
	if witness != "" && slices.Contains(a.regions, witness) {
		return ddb.Errorf(ddb.ValidationException, "Cannot target multiple regions with the same action")
	}
	if witness == own {
		return ddb.Errorf(ddb.ValidationException, "Cannot add a witness in the same region as an existing replica when creating a global table with MultiRegionConsistency set to STRONG.")
	}
	var bad []string
	for _, r := range append([]string{own, witness}, a.regions...) {
		if r != "" && !slices.Contains(strongRegions(), r) {
			bad = append(bad, r)
		}
	}
	if len(bad) > 0 {
		return ddb.Errorf(ddb.ValidationException, "Unsupported Region(s) specified for global tables with MultiRegionConsistency set to STRONG: [%s].", strings.Join(bad, ", "))
	}
	return nil
}

// checkStrongDelete checks the teardown of STRONG m: its witness and every
// replica in one call.
func checkStrongDelete(m *tableMeta, a *replicaAction, witness string) error {
	if m.Witness != "" && witness != m.Witness {
		if witness != "" {
			return ddb.Errorf(ddb.ValidationException, "Update global table operation failed because one or more witnesses were not part of the global table. Please retry the request without these witnesses: [%s].", witness)
		}
		return ddb.Errorf(ddb.ValidationException, "Update table delete operation does not include all witnesses.")
	}
	for _, r := range m.Replicas {
		if r.Status != replicaDeleting && !slices.Contains(a.regions, r.Region) {
			return errStrongDelete()
		}
	}
	return nil
}

// errStrongDelete refuses to take one replica out of a STRONG global table.
func errStrongDelete() error {
	return ddb.Errorf(ddb.ValidationException, "Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG.")
}

// applyStrong makes or dissolves a STRONG global table: after the replicas
// a created, every member is marked STRONG with in's witness; after the
// teardown a deleted, the table is regional again.
func (s *Service) applyStrong(ctx context.Context, m *tableMeta, in *ddb.UpdateTableInput, a *replicaAction, now int64) (*tableMeta, error) {
	var err error
	for i, region := range a.regions {
		if a.kind == "Create" {
			m, err = s.createReplica(ctx, m, region, a.create[i], now)
		} else {
			m, err = s.deleteReplica(ctx, m, region, now)
		}
		if err != nil {
			return nil, err
		}
	}
	witness, _ := witnessUpdate(in)
	return s.markStrong(ctx, m, a.kind == "Create", witness, now)
}

// markStrong sets the MRSC marks of every member of m's global table.
func (s *Service) markStrong(ctx context.Context, m *tableMeta, strong bool, witness string, now int64) (*tableMeta, error) {
	g, err := s.changeGroup(ctx, m, func(g *group) error {
		for _, mem := range g.members {
			mem.Strong, mem.Witness, mem.WitnessSince = strong, witness, now
		}
		return s.putAll(g)
	})
	if err != nil {
		return nil, err
	}
	return g.members[0], nil
}

// describeStrong fills in d the MRSC members of m.
func (s *Service) describeStrong(d *ddb.TableDescription, m *tableMeta, now int64) {
	if !m.Strong {
		return
	}
	d.MultiRegionConsistency = "STRONG"
	if m.Witness != "" {
		st := "ACTIVE"
		if now < m.WitnessSince+s.opts.TransientDelay.Nanoseconds() {
			st = "CREATING"
		}
		d.GlobalTableWitnesses = []ddb.GlobalTableWitnessDescription{{RegionName: m.Witness, WitnessStatus: st}}
	}
}

// inflight is an MRSC write committed in one Region and not yet in every
// other: writes to its item from another Region are refused meanwhile.
type inflight struct {
	region string
	n      int
}

// reserveStrong claims item key of STRONG table m for a write in m's
// Region, or refuses it while a write from another Region is replicating;
// release ends the claim.
func (s *Service) reserveStrong(m *tableMeta, key []byte) (release func(), err error) {
	account, region := access.SplitScope(m.Region)
	k := account + "\x00" + m.Name + "\x00" + string(key)
	s.replicas.mu.Lock()
	defer s.replicas.mu.Unlock()
	cur, ok := s.replicas.inflight[k]
	if ok && cur.region != region {
		return nil, ddb.Errorf(ddb.ReplicatedWriteConflictException, msgWriteConflict)
	}
	s.replicas.inflight[k] = inflight{region: region, n: cur.n + 1}
	return func() {
		s.replicas.mu.Lock()
		defer s.replicas.mu.Unlock()
		if c := s.replicas.inflight[k]; c.n > 1 {
			s.replicas.inflight[k] = inflight{region: c.region, n: c.n - 1}
		} else {
			delete(s.replicas.inflight, k)
		}
	}, nil
}

// awaitStrong waits until every other replica of STRONG table m has every
// write m has: a paused Region (cut off) is not waited for.
func (s *Service) awaitStrong(ctx context.Context, m *tableMeta) error {
	var seq uint64
	if err := s.db.View(func(tx *store.Tx) error {
		if sp := tx.Space(m.ID); sp != nil {
			seq = sp.LastLogSeq()
		}
		return nil
	}); err != nil {
		return err
	}
	s.notifyReplicas(m)
	for _, run := range s.links() {
		if run.source.ID != m.ID {
			continue
		}
		if err := run.r.WaitFor(ctx, seq); err != nil && !errors.Is(err, replication.ErrPaused) {
			return err
		}
	}
	return nil
}
