package table

import (
	"context"
	"slices"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// Replica auto scaling: UpdateTableReplicaAutoScaling stores the settings
// of Application Auto Scaling with a global table's replicas and
// DescribeTableReplicaAutoScaling describes them. ddblocal has no
// Application Auto Scaling: the settings are kept and described, and
// capacity never moves by itself. Write settings (the table's and each
// global index's) are the global table's, kept on every replica; read
// settings are each replica's own.

// replicaScaling is a replica's auto scaling, stored in the catalog as is
// (catalog_record.go), hence its tags.
type replicaScaling struct {
	Read    *scalingSetting          `json:"Read,omitempty"`
	Write   *scalingSetting          `json:"Write,omitempty"`
	Indexes map[string]*indexScaling `json:"Indexes,omitempty"`
}

// indexScaling is a replica's auto scaling of one global index.
type indexScaling struct {
	Read  *scalingSetting `json:"Read,omitempty"`
	Write *scalingSetting `json:"Write,omitempty"`
}

// scalingSetting is the auto scaling of one capacity.
type scalingSetting struct {
	Disabled bool           `json:"Disabled,omitempty"`
	RoleArn  string         `json:"RoleArn,omitempty"`
	Min      int64          `json:"Min,omitempty"`
	Max      int64          `json:"Max,omitempty"`
	Policy   *scalingPolicy `json:"Policy,omitempty"`
}

// scalingPolicy is a target tracking policy.
type scalingPolicy struct {
	Name             string  `json:"Name,omitempty"`
	TargetValue      float64 `json:"TargetValue"`
	DisableScaleIn   bool    `json:"DisableScaleIn,omitempty"`
	ScaleInCooldown  int32   `json:"ScaleInCooldown,omitempty"`
	ScaleOutCooldown int32   `json:"ScaleOutCooldown,omitempty"`
}

// UpdateTableReplicaAutoScaling stores auto scaling settings of a global
// table: its write settings on every replica, each ReplicaUpdates entry's
// read settings on that replica. It answers as
// DescribeTableReplicaAutoScaling then does.
func (s *Service) UpdateTableReplicaAutoScaling(ctx context.Context, region string, in *ddb.UpdateTableReplicaAutoScalingInput) (*ddb.UpdateTableReplicaAutoScalingOutput, error) {
	notGlobal := ddb.Errorf(ddb.ResourceNotFoundException, "Global table with name: '%s' does not exist.", in.TableName)
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	if len(m.Replicas) == 0 {
		return nil, notGlobal
	}
	if err := checkScalingUpdate(m, in); err != nil {
		return nil, err
	}
	_, err = s.changeGroup(ctx, m, func(g *group) error {
		for _, mem := range g.members {
			mem.AutoScaling = applyScaling(mem.AutoScaling, in, regionOf(mem))
		}
		return s.putAll(g)
	})
	if err != nil {
		return nil, err
	}
	d, err := s.DescribeTableReplicaAutoScaling(ctx, region, &ddb.TableNameInput{TableName: in.TableName})
	if err != nil {
		return nil, err
	}
	return &ddb.UpdateTableReplicaAutoScalingOutput{TableAutoScalingDescription: d.TableAutoScalingDescription}, nil
}

// checkScalingUpdate refuses an update naming a global index m does not
// have or a Region that holds no replica of m's global table.
func checkScalingUpdate(m *tableMeta, in *ddb.UpdateTableReplicaAutoScalingInput) error {
	var missing []string
	for _, u := range in.ReplicaUpdates {
		if e := m.replica(u.RegionName); u.RegionName != regionOf(m) && (e == nil || e.Status == replicaDeleting) {
			missing = append(missing, u.RegionName)
		}
		for _, g := range u.ReplicaGlobalSecondaryIndexUpdates {
			if m.gsiPosition(g.IndexName) < 0 {
				return ddb.Errorf(ddb.ResourceNotFoundException, "Requested resource not found: Index: %s not found for table: %s", g.IndexName, m.Name)
			}
		}
	}
	for _, g := range in.GlobalSecondaryIndexUpdates {
		if m.gsiPosition(g.IndexName) < 0 {
			return ddb.Errorf(ddb.ResourceNotFoundException, "Requested resource not found: Index: %s not found for table: %s", g.IndexName, m.Name)
		}
	}
	if len(missing) > 0 {
		return ddb.Errorf(ddb.ValidationException, "Update global table operation failed because one or more replicas were not part of the global table. Please retry the request without these replicas: [%s].", strings.Join(missing, ", "))
	}
	return nil
}

// applyScaling returns cur (not changed) with in's settings for the
// replica in region.
func applyScaling(cur *replicaScaling, in *ddb.UpdateTableReplicaAutoScalingInput, region string) *replicaScaling {
	next := &replicaScaling{Indexes: map[string]*indexScaling{}}
	if cur != nil {
		next.Read, next.Write = cur.Read, cur.Write
		for k, v := range cur.Indexes {
			c := *v
			next.Indexes[k] = &c
		}
	}
	index := func(name string) *indexScaling {
		if next.Indexes[name] == nil {
			next.Indexes[name] = &indexScaling{}
		}
		return next.Indexes[name]
	}
	next.Write = mergeScaling(next.Write, in.ProvisionedWriteCapacityAutoScalingUpdate)
	for _, g := range in.GlobalSecondaryIndexUpdates {
		ix := index(g.IndexName)
		ix.Write = mergeScaling(ix.Write, g.ProvisionedWriteCapacityAutoScalingUpdate)
	}
	for _, u := range in.ReplicaUpdates {
		if u.RegionName != region {
			continue
		}
		next.Read = mergeScaling(next.Read, u.ReplicaProvisionedReadCapacityAutoScalingUpdate)
		for _, g := range u.ReplicaGlobalSecondaryIndexUpdates {
			ix := index(g.IndexName)
			ix.Read = mergeScaling(ix.Read, g.ProvisionedReadCapacityAutoScalingUpdate)
		}
	}
	return next
}

// mergeScaling returns cur with u's members applied (cur when u is nil).
func mergeScaling(cur *scalingSetting, u *ddb.AutoScalingSettingsUpdate) *scalingSetting {
	if u == nil {
		return cur
	}
	next := &scalingSetting{}
	if cur != nil {
		*next = *cur
	}
	if u.AutoScalingDisabled != nil {
		next.Disabled = *u.AutoScalingDisabled
	}
	if u.AutoScalingRoleArn != nil {
		next.RoleArn = *u.AutoScalingRoleArn
	}
	if u.MinimumUnits != nil {
		next.Min = *u.MinimumUnits
	}
	if u.MaximumUnits != nil {
		next.Max = *u.MaximumUnits
	}
	if p := u.ScalingPolicyUpdate; p != nil && p.TargetTrackingScalingPolicyConfiguration != nil {
		c := p.TargetTrackingScalingPolicyConfiguration
		pol := &scalingPolicy{TargetValue: *c.TargetValue}
		if p.PolicyName != nil {
			pol.Name = *p.PolicyName
		}
		if c.DisableScaleIn != nil {
			pol.DisableScaleIn = *c.DisableScaleIn
		}
		if c.ScaleInCooldown != nil {
			pol.ScaleInCooldown = *c.ScaleInCooldown
		}
		if c.ScaleOutCooldown != nil {
			pol.ScaleOutCooldown = *c.ScaleOutCooldown
		}
		next.Policy = pol
	}
	return next
}

// describeScaling renders st (nil when there is none).
func describeScaling(st *scalingSetting) *ddb.AutoScalingSettingsDescription {
	if st == nil {
		return nil
	}
	d := &ddb.AutoScalingSettingsDescription{AutoScalingDisabled: pointer(st.Disabled)}
	if st.RoleArn != "" {
		d.AutoScalingRoleArn = pointer(st.RoleArn)
	}
	if st.Min > 0 {
		d.MinimumUnits = pointer(st.Min)
	}
	if st.Max > 0 {
		d.MaximumUnits = pointer(st.Max)
	}
	if p := st.Policy; p != nil {
		pd := ddb.AutoScalingPolicyDescription{TargetTrackingScalingPolicyConfiguration: &ddb.AutoScalingTargetTrackingScalingPolicyConfiguration{
			TargetValue: pointer(p.TargetValue), DisableScaleIn: pointer(p.DisableScaleIn),
			ScaleInCooldown: pointer(p.ScaleInCooldown), ScaleOutCooldown: pointer(p.ScaleOutCooldown)}}
		if p.Name != "" {
			pd.PolicyName = pointer(p.Name)
		}
		d.ScalingPolicies = []ddb.AutoScalingPolicyDescription{pd}
	}
	return d
}

// describeReplicaScaling is the auto scaling description of member t (a
// replica's table, nil when it cannot be read) with status st.
func describeReplicaScaling(t *tableMeta, region, st string) ddb.ReplicaAutoScalingDescription {
	d := ddb.ReplicaAutoScalingDescription{RegionName: region, ReplicaStatus: st}
	if t == nil || t.AutoScaling == nil {
		return d
	}
	d.ReplicaProvisionedReadCapacityAutoScalingSettings = describeScaling(t.AutoScaling.Read)
	d.ReplicaProvisionedWriteCapacityAutoScalingSettings = describeScaling(t.AutoScaling.Write)
	for _, ix := range t.GlobalSecondaryIndexes {
		sc := t.AutoScaling.Indexes[ix.Name]
		if sc == nil {
			continue
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, ddb.ReplicaGlobalSecondaryIndexAutoScalingDescription{
			IndexName: ix.Name, IndexStatus: "ACTIVE",
			ProvisionedReadCapacityAutoScalingSettings:  describeScaling(sc.Read),
			ProvisionedWriteCapacityAutoScalingSettings: describeScaling(sc.Write)})
	}
	return d
}

// sortReplicaScaling orders a description's replicas by Region name.
func sortReplicaScaling(rs []ddb.ReplicaAutoScalingDescription) {
	slices.SortFunc(rs, func(a, b ddb.ReplicaAutoScalingDescription) int { return strings.Compare(a.RegionName, b.RegionName) })
}

// DescribeTableReplicaAutoScaling describes a version 2019.11.21 global
// table's replicas, its own included, by Region name, with the auto scaling
// settings UpdateTableReplicaAutoScaling stored. A regional table is no
// global table, as DynamoDB answers.
func (s *Service) DescribeTableReplicaAutoScaling(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DescribeTableReplicaAutoScalingOutput, error) {
	name := tableName(in.TableName)
	notGlobal := ddb.Errorf(ddb.ResourceNotFoundException, "Global table with name: '%s' does not exist.", name)
	m, err := s.lookup(ctx, region, in.TableName, "", notGlobal)
	if err != nil {
		return nil, err
	}
	now := s.now().UnixNano()
	d := s.describe(m, nil)
	if len(d.Replicas) == 0 {
		return nil, notGlobal
	}
	out := &ddb.TableAutoScalingDescription{TableName: m.Name, TableStatus: s.tableStatus(m, now),
		Replicas: []ddb.ReplicaAutoScalingDescription{describeReplicaScaling(m, regionOf(m), replicaActive)}}
	for _, r := range d.Replicas { // replica_autoscaling.go
		t, _ := s.catalog.get(s.db, memberScope(m, r.RegionName), m.Name)
		out.Replicas = append(out.Replicas, describeReplicaScaling(t, r.RegionName, r.ReplicaStatus))
	}
	sortReplicaScaling(out.Replicas)
	return &ddb.DescribeTableReplicaAutoScalingOutput{TableAutoScalingDescription: out}, nil
}
