package table

import "github.com/ddblocal/ddblocal/ddb"

// legacyScaling is the auto scaling that a legacy UpdateGlobalTableSettings
// in sets, in UpdateTableReplicaAutoScaling's form (nil when it sets none),
// so that a legacy global table keeps it where a 2019.11.21 one does and
// DescribeGlobalTableSettings shows it.
func legacyScaling(in *ddb.UpdateGlobalTableSettingsInput) *ddb.UpdateTableReplicaAutoScalingInput {
	out := &ddb.UpdateTableReplicaAutoScalingInput{ProvisionedWriteCapacityAutoScalingUpdate: in.GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate}
	found := out.ProvisionedWriteCapacityAutoScalingUpdate != nil
	for _, g := range in.GlobalTableGlobalSecondaryIndexSettingsUpdate {
		if g.ProvisionedWriteCapacityAutoScalingSettingsUpdate != nil {
			out.GlobalSecondaryIndexUpdates = append(out.GlobalSecondaryIndexUpdates, ddb.GlobalSecondaryIndexAutoScalingUpdate{
				IndexName: g.IndexName, ProvisionedWriteCapacityAutoScalingUpdate: g.ProvisionedWriteCapacityAutoScalingSettingsUpdate})
			found = true
		}
	}
	for _, r := range in.ReplicaSettingsUpdate {
		ru := ddb.ReplicaAutoScalingUpdate{RegionName: r.RegionName, ReplicaProvisionedReadCapacityAutoScalingUpdate: r.ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate}
		found = found || ru.ReplicaProvisionedReadCapacityAutoScalingUpdate != nil
		for _, g := range r.ReplicaGlobalSecondaryIndexSettingsUpdate {
			if g.ProvisionedReadCapacityAutoScalingSettingsUpdate != nil {
				ru.ReplicaGlobalSecondaryIndexUpdates = append(ru.ReplicaGlobalSecondaryIndexUpdates, ddb.ReplicaGlobalSecondaryIndexAutoScalingUpdate{
					IndexName: g.IndexName, ProvisionedReadCapacityAutoScalingUpdate: g.ProvisionedReadCapacityAutoScalingSettingsUpdate})
				found = true
			}
		}
		out.ReplicaUpdates = append(out.ReplicaUpdates, ru)
	}
	if !found {
		return nil
	}
	return out
}

// describeLegacyScaling adds t's auto scaling to its settings d.
func describeLegacyScaling(t *tableMeta, d *ddb.ReplicaSettingsDescription) {
	sc := t.AutoScaling
	if sc == nil {
		return
	}
	d.ReplicaProvisionedReadCapacityAutoScalingSettings = describeScaling(sc.Read)
	d.ReplicaProvisionedWriteCapacityAutoScalingSettings = describeScaling(sc.Write)
	for i := range d.ReplicaGlobalSecondaryIndexSettings {
		ix := &d.ReplicaGlobalSecondaryIndexSettings[i]
		if s := sc.Indexes[ix.IndexName]; s != nil {
			ix.ProvisionedReadCapacityAutoScalingSettings = describeScaling(s.Read)
			ix.ProvisionedWriteCapacityAutoScalingSettings = describeScaling(s.Write)
		}
	}
}
