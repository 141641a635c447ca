package table

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// The rules of legacy global tables (replica_legacy.go), as the API
// reference gives them: every replica has the table's name, key schema and
// global and local indexes (names and keys), a NEW_AND_OLD_IMAGES stream,
// and is empty when it joins; a Region added later also has the same
// billing mode and write capacity as the others, its global indexes too.
// The reference gives no texts for these refusals: the messages are
// ddblocal's.

// legacy reports whether m is a member of a version 2017.11.29 global
// table (a global table of one Region has no Replicas).
func (m *tableMeta) legacy() bool { return m.global().LegacyCreated != 0 }

// errLegacyMember refuses a version 2019.11.21 change of replicas, or of a
// replica's global-table settings, on a legacy global table's member.
func errLegacyMember(m *tableMeta) error {
	return ddb.Errorf(ddb.ValidationException, "Table %s is a replica of a global table version 2017.11.29: its replicas are changed with UpdateGlobalTable.", m.Name)
}

// checkLegacyCandidate is checkLegacyMember, and m holds no item.
func (s *Service) checkLegacyCandidate(first, m *tableMeta, sameWrites bool) error {
	if err := checkLegacyMember(first, m, sameWrites); err != nil {
		return err
	}
	if err := s.checkNoBulkLoad(m); err != nil { // transfer_bulk_global.go
		return err
	}
	return s.db.View(func(tx *store.Tx) error { return legacyEmpty(tx, m) })
}

// checkLegacyMember checks that m may be a replica of first's legacy
// global table (first itself when it is new): no other global table's,
// with a NEW_AND_OLD_IMAGES stream and first's keys and indexes, and with
// sameWrites first's billing mode and write capacity, its global indexes'
// too.
func checkLegacyMember(first, m *tableMeta, sameWrites bool) error {
	where := m.Name + " in region " + regionOf(m)
	switch {
	case first != m && (len(m.Replicas) > 0 || m.legacy()):
		return invalid("Table %s is already a replica of a global table", where)
	case m.Stream == nil || m.Stream.StreamEnabled == nil || !*m.Stream.StreamEnabled || m.Stream.StreamViewType != "NEW_AND_OLD_IMAGES":
		return invalid("Table %s must have DynamoDB Streams enabled with the stream view type NEW_AND_OLD_IMAGES", where)
	case !slices.Equal(m.KeySchema, first.KeySchema):
		return invalid("Table %s must have the same key schema as the other replicas", where)
	case !sameIndexKeys(m.GlobalSecondaryIndexes, first.GlobalSecondaryIndexes):
		return invalid("Table %s must have the same global secondary indexes (names and keys) as the other replicas", where)
	case !sameIndexKeys(m.LocalSecondaryIndexes, first.LocalSecondaryIndexes):
		return invalid("Table %s must have the same local secondary indexes (names and keys) as the other replicas", where)
	case sameWrites && !sameWriteCapacity(first, m):
		return invalid("Table %s must have the same provisioned and maximum write capacity units as the other replicas, its global secondary indexes too", where)
	}
	return nil
}

// sameIndexKeys reports whether a and b are indexes of the same names and
// keys, in any order.
func sameIndexKeys(a, b []indexMeta) bool {
	return sameSet(a, b, func(ix indexMeta) string { return definitionKey(ix.Name, ix.KeySchema, nil) })
}

// sameWriteCapacity reports whether a and b have the same billing mode,
// write capacity and maximum write throughput, their global indexes too.
func sameWriteCapacity(a, b *tableMeta) bool {
	maxWrite := func(o *ddb.OnDemandThroughput) int64 {
		if o == nil || o.MaxWriteRequestUnits == nil {
			return 0
		}
		return *o.MaxWriteRequestUnits
	}
	if orDefault(a.BillingMode, "PROVISIONED") != orDefault(b.BillingMode, "PROVISIONED") || a.WriteCapacity != b.WriteCapacity ||
		maxWrite(a.OnDemandThroughput) != maxWrite(b.OnDemandThroughput) {
		return false
	}
	key := func(ix indexMeta) string {
		return ix.Name + "\x00" + strconv.FormatInt(ix.WriteCapacity, 10) + "\x00" + strconv.FormatInt(maxWrite(ix.OnDemand), 10)
	}
	return sameSet(a.GlobalSecondaryIndexes, b.GlobalSecondaryIndexes, key)
}

// legacyEmpty refuses m, read in tx, when it holds an item.
func legacyEmpty(tx *store.Tx, m *tableMeta) error {
	sp := tx.Space(m.ID)
	if sp == nil {
		return ddb.Errorf(ddb.TableNotFoundException, "Table: %s not found in region %s", m.Name, regionOf(m))
	}
	empty := true
	if err := sp.Ascend(nil, nil, func(_, _ []byte) bool {
		empty = false
		return false
	}); err != nil {
		return err
	}
	if !empty {
		return invalid("Table %s in region %s must be empty to join a global table", m.Name, regionOf(m))
	}
	return nil
}

// legacyUpdates returns the tables UpdateGlobalTable in adds to m's legacy
// global table and the members it removes, checked.
func (s *Service) legacyUpdates(m *tableMeta, account string, in *ddb.UpdateGlobalTableInput) (adds, removes []*tableMeta, err error) {
	regions := s.legacyRegions(m)
	var seen []string
	for _, u := range in.ReplicaUpdates {
		if (u.Create == nil) == (u.Delete == nil) {
			return nil, nil, invalid("Exactly one of Create and Delete must be given in each entry of ReplicaUpdates")
		}
		if u.Create != nil {
			r := u.Create.RegionName
			if slices.Contains(regions, r) || slices.Contains(seen, r) {
				return nil, nil, ddb.Errorf(ddb.ReplicaAlreadyExistsException, "Replica in region %s already exists in global table %s.", r, m.Name)
			}
			t, err := s.legacyCandidate(access.Scope(account, r), m.Name)
			if err == nil {
				err = s.checkLegacyCandidate(m, t, true)
			}
			if err != nil {
				return nil, nil, err
			}
			adds, seen = append(adds, t), append(seen, r)
			continue
		}
		r := u.Delete.RegionName
		if !slices.Contains(regions, r) || slices.Contains(seen, r) {
			return nil, nil, ddb.Errorf(ddb.ReplicaNotFoundException, "Replica in region %s is not part of global table %s.", r, m.Name)
		}
		t, err := s.catalog.get(s.db, memberScope(m, r), m.Name)
		if err != nil || t == nil {
			return nil, nil, orErr(err, ddb.Errorf(ddb.ReplicaNotFoundException, "Replica in region %s is not part of global table %s.", r, m.Name))
		}
		removes, seen = append(removes, t), append(seen, r)
	}
	return adds, removes, nil
}

// UpdateGlobalTableSettings changes a legacy global table's billing mode
// and write capacity (the table's and its global indexes') on every
// replica, and each replica's own read capacity and table class, in one
// store transaction, as UpdateTable would on each. Auto scaling settings
// are accepted and not kept (ddblocal has no Application Auto Scaling).
func (s *Service) UpdateGlobalTableSettings(ctx context.Context, scope string, in *ddb.UpdateGlobalTableSettingsInput) (*ddb.GlobalTableSettingsOutput, error) {
	account, _ := access.SplitScope(scope)
	m, err := s.legacyTable(account, in.GlobalTableName)
	if err != nil || m == nil {
		return nil, orErr(err, settingsNotFound(in.GlobalTableName))
	}
	if err := checkLegacySettings(m, s.legacyRegions(m), in); err != nil {
		return nil, err
	}
	now := s.now().UnixNano()
	for _, t := range s.groupMembers(m) {
		if rin := legacyUpdate(in, t); rin != nil {
			if err := s.inUse(t, now); err != nil {
				return nil, err
			}
			if err := checkTableUpdate(t, rin, now); err != nil {
				return nil, err
			}
		}
	}
	created := map[string][]string{}
	scaling := legacyScaling(in)
	g, err := s.changeGroup(ctx, m, func(g *group) error {
		for _, next := range g.members {
			rin := legacyUpdate(in, next)
			if rin == nil && scaling == nil {
				continue
			}
			if rin != nil {
				cur, err := copyMeta(next)
				if err != nil {
					return err
				}
				if err := s.updateIn(g.tx, cur, next, rin, now, created); err != nil {
					return err
				}
			}
			if scaling != nil {
				next.AutoScaling = applyScaling(next.AutoScaling, scaling, regionOf(next))
			}
			if err := s.put(g, next); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.legacySettings(g.members[0]), nil
}

// checkLegacySettings refuses settings of a Region that is not one of
// regions, or of a global index m does not have.
func checkLegacySettings(m *tableMeta, regions []string, in *ddb.UpdateGlobalTableSettingsInput) error {
	var names []string
	for _, u := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		names = append(names, u.IndexName)
	}
	for _, u := range in.ReplicaSettingsUpdate {
		if !slices.Contains(regions, u.RegionName) {
			return ddb.Errorf(ddb.ReplicaNotFoundException, "Replica in region %s is not part of global table %s.", u.RegionName, m.Name)
		}
		for _, iu := range u.ReplicaGlobalSecondaryIndexSettingsUpdate {
			names = append(names, iu.IndexName)
		}
	}
	for _, n := range names {
		if m.gsiPosition(n) < 0 {
			return ddb.Errorf(ddb.ResourceNotFoundException, "Requested resource not found: Global secondary index %s does not exist in table %s", n, m.Name)
		}
	}
	return nil
}

// legacyUpdate is the UpdateTable of replica t that UpdateGlobalTableSettings
// in makes, nil when it changes nothing there.
func legacyUpdate(in *ddb.UpdateGlobalTableSettingsInput, t *tableMeta) *ddb.UpdateTableInput {
	var ru *ddb.ReplicaSettingsUpdate
	for i := range in.ReplicaSettingsUpdate {
		if in.ReplicaSettingsUpdate[i].RegionName == regionOf(t) {
			ru = &in.ReplicaSettingsUpdate[i]
		}
	}
	out := &ddb.UpdateTableInput{TableName: t.Name}
	if in.GlobalTableBillingMode != "" && in.GlobalTableBillingMode != orDefault(t.BillingMode, "PROVISIONED") {
		out.BillingMode = in.GlobalTableBillingMode
	}
	read, write := t.ReadCapacity, t.WriteCapacity
	if in.GlobalTableProvisionedWriteCapacityUnits != nil {
		write = *in.GlobalTableProvisionedWriteCapacityUnits
	}
	if ru != nil && ru.ReplicaProvisionedReadCapacityUnits != nil {
		read = *ru.ReplicaProvisionedReadCapacityUnits
	}
	if out.BillingMode == "PROVISIONED" || read != t.ReadCapacity || write != t.WriteCapacity {
		out.ProvisionedThroughput = &ddb.ProvisionedThroughput{ReadCapacityUnits: pointer(read), WriteCapacityUnits: pointer(write)}
	}
	for _, ix := range t.GlobalSecondaryIndexes {
		if u := legacyIndexUpdate(in, ru, ix); u != nil {
			out.GlobalSecondaryIndexUpdates = append(out.GlobalSecondaryIndexUpdates, *u)
		}
	}
	if ru != nil && ru.ReplicaTableClass != "" && ru.ReplicaTableClass != orDefault(t.TableClass, "STANDARD") {
		out.TableClass = ru.ReplicaTableClass
	}
	if out.BillingMode == "" && out.ProvisionedThroughput == nil && len(out.GlobalSecondaryIndexUpdates) == 0 && out.TableClass == "" {
		return nil
	}
	return out
}

// legacyIndexUpdate is the update of global index ix's capacity on one
// replica (whose own settings are ru, nil when none), nil when it changes
// nothing.
func legacyIndexUpdate(in *ddb.UpdateGlobalTableSettingsInput, ru *ddb.ReplicaSettingsUpdate, ix indexMeta) *ddb.GlobalSecondaryIndexUpdate {
	read, write := ix.ReadCapacity, ix.WriteCapacity
	for _, u := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		if u.IndexName == ix.Name && u.ProvisionedWriteCapacityUnits != nil {
			write = *u.ProvisionedWriteCapacityUnits
		}
	}
	if ru != nil {
		for _, u := range ru.ReplicaGlobalSecondaryIndexSettingsUpdate {
			if u.IndexName == ix.Name && u.ProvisionedReadCapacityUnits != nil {
				read = *u.ProvisionedReadCapacityUnits
			}
		}
	}
	if read == ix.ReadCapacity && write == ix.WriteCapacity {
		return nil
	}
	var u ddb.GlobalSecondaryIndexUpdate
	u.Update = newOf(u.Update)
	u.Update.IndexName = ix.Name
	u.Update.ProvisionedThroughput = &ddb.ProvisionedThroughput{ReadCapacityUnits: pointer(read), WriteCapacityUnits: pointer(write)}
	return &u
}

// newOf returns a new T for a *T (of an anonymous struct type, too).
func newOf[T any](*T) *T { return new(T) }

// legacySettings describes the settings of every replica of m's legacy
// global table, by Region.
func (s *Service) legacySettings(m *tableMeta) *ddb.GlobalTableSettingsOutput {
	now := s.now().UnixNano()
	out := &ddb.GlobalTableSettingsOutput{GlobalTableName: m.Name}
	for _, t := range s.groupMembers(m) {
		st := replicaActive
		if r := m.replica(regionOf(t)); t != m && r != nil {
			st = s.replicaStatus(m, *r, now)
		}
		d := ddb.ReplicaSettingsDescription{RegionName: regionOf(t), ReplicaStatus: st,
			ReplicaBillingModeSummary:            &ddb.BillingModeSummary{BillingMode: orDefault(t.BillingMode, "PROVISIONED")},
			ReplicaProvisionedReadCapacityUnits:  pointer(t.ReadCapacity),
			ReplicaProvisionedWriteCapacityUnits: pointer(t.WriteCapacity),
			ReplicaTableClassSummary:             &ddb.TableClassSummary{TableClass: orDefault(t.TableClass, "STANDARD")}}
		for _, ix := range t.GlobalSecondaryIndexes {
			d.ReplicaGlobalSecondaryIndexSettings = append(d.ReplicaGlobalSecondaryIndexSettings, ddb.ReplicaGlobalSecondaryIndexSettingsDescription{
				IndexName: ix.Name, IndexStatus: "ACTIVE", ProvisionedReadCapacityUnits: pointer(ix.ReadCapacity), ProvisionedWriteCapacityUnits: pointer(ix.WriteCapacity)})
		}
		describeLegacyScaling(t, &d)
		out.ReplicaSettings = append(out.ReplicaSettings, d)
	}
	slices.SortFunc(out.ReplicaSettings, func(a, b ddb.ReplicaSettingsDescription) int { return strings.Compare(a.RegionName, b.RegionName) })
	return out
}
