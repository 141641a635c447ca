package table

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
)

// Global tables version 2017.11.29 (legacy). DynamoDB no longer creates
// them: by default CreateGlobalTable, and UpdateGlobalTable adding a
// Region, are refused in every Region, and as no such table can exist the
// other legacy operations find none (a 2019.11.21 global table is not one
// either). These are the answers DynamoDB gives today, as recorded against
// the service.
//
// With Options.LegacyGlobalTables (--legacy-global-tables) the server
// answers as for an account that still has legacy global tables, so that
// older infrastructure code can be tested: CreateGlobalTable links existing
// empty tables of one name, with identical keys and indexes and a
// NEW_AND_OLD_IMAGES stream, in each Region of the account it names;
// UpdateGlobalTable adds (an empty table, filled with the global table's
// items) and removes Regions; the describe, list and settings operations
// answer from the members. Replication is the 2019.11.21 one
// (replica_links.go). A legacy member's DescribeTable lists no replicas,
// UpdateTable does not synchronize its settings to the other Regions, and
// its replicas are changed only through the legacy operations
// (replica_legacy_rules.go).

// legacyRefused is DynamoDB's refusal of a version 2017.11.29 global table.
func legacyRefused() error {
	return invalid("DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")
}

func globalTableNotFound(name string) error {
	return ddb.Errorf(ddb.GlobalTableNotFoundException, "Global table not found: Global table with name: '%s' does not exist.", name)
}

// settingsNotFound is the settings operations' wording of globalTableNotFound.
func settingsNotFound(name string) error {
	return ddb.Errorf(ddb.GlobalTableNotFoundException, "Global table with name: '%s' does not exist.", name)
}

// CreateGlobalTable makes the tables named in the Regions of
// ReplicationGroup one legacy global table (Options.LegacyGlobalTables),
// in one store transaction; it refuses otherwise, as DynamoDB does.
func (s *Service) CreateGlobalTable(ctx context.Context, scope string, in *ddb.CreateGlobalTableInput) (*ddb.GlobalTableOutput, error) {
	if !s.opts.LegacyGlobalTables {
		return nil, legacyRefused()
	}
	account, _ := access.SplitScope(scope)
	if m, err := s.legacyTable(account, in.GlobalTableName); err != nil || m != nil {
		return nil, orErr(err, ddb.Errorf(ddb.GlobalTableAlreadyExistsException, "Global table with name: '%s' already exists.", in.GlobalTableName))
	}
	var regions []string
	for _, r := range in.ReplicationGroup {
		if r.RegionName == "" {
			return nil, invalid("ReplicationGroup must name a Region in every entry")
		}
		if !slices.Contains(regions, r.RegionName) {
			regions = append(regions, r.RegionName)
		}
	}
	if len(regions) == 0 {
		return nil, invalid("ReplicationGroup must name at least one Region")
	}
	members := make([]*tableMeta, len(regions))
	for i, r := range regions {
		m, err := s.legacyCandidate(access.Scope(account, r), in.GlobalTableName)
		if err != nil {
			return nil, err
		}
		members[i] = m
	}
	for _, m := range members {
		if err := s.checkLegacyCandidate(members[0], m, false); err != nil {
			return nil, err
		}
	}
	now := s.now().UnixNano()
	g, err := s.changeGroup(ctx, members[0], func(g *group) error {
		return s.linkLegacy(g, members[1:], replicaMeta{Status: replicaActive, Since: now}, now)
	})
	if err != nil {
		return nil, err
	}
	s.startLinks(g.members[0])
	return &ddb.GlobalTableOutput{GlobalTableDescription: s.describeLegacy(g.members[0])}, nil
}

// legacyCandidate returns the table name in scope, which is to join a
// legacy global table: TableNotFoundException when there is none.
func (s *Service) legacyCandidate(scope, name string) (*tableMeta, error) {
	m, err := s.catalog.get(s.db, scope, name)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, ddb.Errorf(ddb.TableNotFoundException, "Table: %s not found in region %s", name, access.RegionOf(scope))
	}
	return m, nil
}

// linkLegacy makes the tables others join g's legacy global table in g's
// transaction, each listed by every member as entry (its Region set
// here), and marks every member as one of a legacy global table: created
// now, unless it already was.
func (s *Service) linkLegacy(g *group, others []*tableMeta, entry replicaMeta, now int64) error {
	if entry.CopyFrom == "" { // a new global table: its first table must be empty too
		if err := legacyEmpty(g.tx, g.members[0]); err != nil {
			return err
		}
	}
	for _, o := range others {
		t, err := loadMeta(g.tx, o.Region, o.Name)
		if err != nil || t == nil || t.ID != o.ID {
			return orErr(err, ddb.Errorf(ddb.TableNotFoundException, "Table: %s not found in region %s", o.Name, regionOf(o)))
		}
		// As checked before, unless a change committed since.
		if err := checkLegacyMember(g.members[0], t, entry.CopyFrom != ""); err != nil {
			return err
		}
		if err := legacyEmpty(g.tx, t); err != nil {
			return err
		}
		e := entry
		e.Region = regionOf(t)
		if err := s.joinMeta(g, t, e, now); err != nil {
			return err
		}
		g.members = append(g.members, t)
	}
	created := g.members[0].global().LegacyCreated
	if created == 0 {
		created = now
	}
	for _, mem := range g.members {
		gs := mem.global()
		gs.LegacyCreated = created
		mem.Global = &gs
		if err := s.put(g, mem); err != nil {
			return err
		}
	}
	return nil
}

// UpdateGlobalTable adds and removes Regions of a legacy global table
// (Options.LegacyGlobalTables): the Regions added join it in one store
// transaction, then each Region removed leaves it (its table stays, a
// regional table). Without legacy global tables it refuses to add a
// Region, and finds no global table otherwise, as DynamoDB does.
func (s *Service) UpdateGlobalTable(ctx context.Context, scope string, in *ddb.UpdateGlobalTableInput) (*ddb.GlobalTableOutput, error) {
	if len(in.ReplicaUpdates) == 0 {
		return nil, ddb.Errorf(ddb.ValidationException, "One or more parameter values were invalid")
	}
	if !s.opts.LegacyGlobalTables {
		if slices.ContainsFunc(in.ReplicaUpdates, func(u ddb.LegacyReplicaUpdate) bool { return u.Create != nil }) {
			return nil, legacyRefused()
		}
		return nil, globalTableNotFound(in.GlobalTableName)
	}
	account, _ := access.SplitScope(scope)
	m, err := s.legacyTable(account, in.GlobalTableName)
	if err != nil || m == nil {
		return nil, orErr(err, globalTableNotFound(in.GlobalTableName))
	}
	adds, removes, err := s.legacyUpdates(m, account, in)
	if err != nil {
		return nil, err
	}
	now := s.now().UnixNano()
	if len(adds) > 0 {
		entry := replicaMeta{Status: replicaCreating, Since: now, CopyFrom: regionOf(m)}
		g, err := s.changeGroup(ctx, m, func(g *group) error { return s.linkLegacy(g, adds, entry, now) })
		if err != nil {
			return nil, err
		}
		s.startLinks(g.members[0])
	}
	for _, t := range removes {
		if err := s.leaveGroup(ctx, t, now); err != nil {
			return nil, err
		}
	}
	last := m
	if m, err = s.legacyTable(account, in.GlobalTableName); err != nil {
		return nil, err
	}
	if m == nil { // every Region removed: the global table is gone
		d := s.describeLegacy(last)
		d.GlobalTableStatus, d.ReplicationGroup = "DELETING", []ddb.LegacyReplica{}
		return &ddb.GlobalTableOutput{GlobalTableDescription: d}, nil
	}
	return &ddb.GlobalTableOutput{GlobalTableDescription: s.describeLegacy(m)}, nil
}

// DescribeGlobalTable describes a legacy global table of the caller's
// account.
func (s *Service) DescribeGlobalTable(_ context.Context, scope string, in *ddb.GlobalTableNameInput) (*ddb.GlobalTableOutput, error) {
	account, _ := access.SplitScope(scope)
	m, err := s.legacyTable(account, in.GlobalTableName)
	if err != nil || m == nil {
		return nil, orErr(err, globalTableNotFound(in.GlobalTableName))
	}
	return &ddb.GlobalTableOutput{GlobalTableDescription: s.describeLegacy(m)}, nil
}

// ListGlobalTables lists the caller's account's legacy global tables by
// name, those with a replica in RegionName when it is given, a page of
// Limit (100 at most) after ExclusiveStartGlobalTableName.
func (s *Service) ListGlobalTables(_ context.Context, scope string, in *ddb.ListGlobalTablesInput) (*ddb.ListGlobalTablesOutput, error) {
	out := &ddb.ListGlobalTablesOutput{GlobalTables: []ddb.LegacyGlobalTable{}}
	if !s.opts.LegacyGlobalTables {
		return out, nil
	}
	account, _ := access.SplitScope(scope)
	tables, err := s.legacyTables(account)
	if err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil && int(*in.Limit) < limit {
		limit = int(*in.Limit)
	}
	for _, m := range tables {
		regions := s.legacyRegions(m)
		if m.Name <= in.ExclusiveStartGlobalTableName || in.RegionName != "" && !slices.Contains(regions, in.RegionName) {
			continue
		}
		if len(out.GlobalTables) == limit {
			out.LastEvaluatedGlobalTableName = out.GlobalTables[limit-1].GlobalTableName
			break
		}
		g := ddb.LegacyGlobalTable{GlobalTableName: m.Name}
		for _, r := range regions {
			g.ReplicationGroup = append(g.ReplicationGroup, ddb.LegacyReplica{RegionName: r})
		}
		out.GlobalTables = append(out.GlobalTables, g)
	}
	return out, nil
}

// DescribeGlobalTableSettings describes every replica's settings of a
// legacy global table of the caller's account.
func (s *Service) DescribeGlobalTableSettings(_ context.Context, scope string, in *ddb.GlobalTableNameInput) (*ddb.GlobalTableSettingsOutput, error) {
	account, _ := access.SplitScope(scope)
	m, err := s.legacyTable(account, in.GlobalTableName)
	if err != nil || m == nil {
		return nil, orErr(err, settingsNotFound(in.GlobalTableName))
	}
	return s.legacySettings(m), nil
}

// legacyTable returns a member of the caller's account's legacy global
// table name, nil when there is none (always without
// Options.LegacyGlobalTables).
func (s *Service) legacyTable(account, name string) (*tableMeta, error) {
	if !s.opts.LegacyGlobalTables {
		return nil, nil
	}
	metas, err := s.regionTables("", name)
	if e := (*ddb.Error)(nil); errors.As(err, &e) && e.Code == ddb.ResourceNotFoundException {
		return nil, nil // no table of that name in any Region
	}
	if err != nil {
		return nil, err
	}
	for _, m := range metas {
		if a, _ := access.SplitScope(m.Region); a == account && m.legacy() {
			return m, nil
		}
	}
	return nil, nil
}

// legacyTables returns one member of each of account's legacy global
// tables, by name.
func (s *Service) legacyTables(account string) ([]*tableMeta, error) {
	metas, err := s.regionTables("", "")
	if err != nil {
		return nil, err
	}
	var out []*tableMeta
	for _, m := range metas {
		a, _ := access.SplitScope(m.Region)
		if a == account && m.legacy() && !slices.ContainsFunc(out, func(o *tableMeta) bool { return o.Name == m.Name }) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *tableMeta) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// legacyRegions are the Regions of m's legacy global table, m's own
// included, sorted.
func (s *Service) legacyRegions(m *tableMeta) []string {
	now := s.now().UnixNano()
	out := []string{regionOf(m)}
	for _, r := range m.Replicas {
		if s.replicaStatus(m, r, now) != "" && r.Status != replicaDeleting {
			out = append(out, r.Region)
		}
	}
	slices.Sort(out)
	return out
}

// describeLegacy describes m's legacy global table: CREATING for the
// transient delay after it was created, UPDATING while a Region added is
// being filled, else ACTIVE.
func (s *Service) describeLegacy(m *tableMeta) *ddb.GlobalTableDescription {
	now := s.now().UnixNano()
	created := m.global().LegacyCreated
	account, _ := access.SplitScope(m.Region)
	d := &ddb.GlobalTableDescription{GlobalTableName: m.Name, GlobalTableArn: "arn:aws:dynamodb::" + account + ":global-table/" + m.Name,
		GlobalTableStatus: "ACTIVE", CreationDateTime: epochSeconds(created)}
	for _, r := range m.Replicas {
		if st := s.replicaStatus(m, r, now); st == replicaCreating || st == replicaUpdating {
			d.GlobalTableStatus = "UPDATING"
		}
	}
	if now < created+s.opts.TransientDelay.Nanoseconds() {
		d.GlobalTableStatus = "CREATING"
	}
	for _, r := range s.legacyRegions(m) {
		d.ReplicationGroup = append(d.ReplicationGroup, ddb.LegacyReplica{RegionName: r})
	}
	return d
}
