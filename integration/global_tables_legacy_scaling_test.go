package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// scalingString renders auto scaling settings for comparison: "-" when
// there are none, else minimum/maximum and its policies' target values.
func scalingString(d *types.AutoScalingSettingsDescription) string {
	if d == nil {
		return "-"
	}
	out := fmt.Sprintf("%d/%d", aws.ToInt64(d.MinimumUnits), aws.ToInt64(d.MaximumUnits))
	for _, p := range d.ScalingPolicies {
		if c := p.TargetTrackingScalingPolicyConfiguration; c != nil {
			out += fmt.Sprintf(" target %g", aws.ToFloat64(c.TargetValue))
		}
	}
	return out
}

// legacyScalingByRegion renders each replica's auto scaling as
// "table read, table write, index read, index write".
func legacyScalingByRegion(out []types.ReplicaSettingsDescription) map[string]string {
	got := map[string]string{}
	for _, r := range out {
		s := scalingString(r.ReplicaProvisionedReadCapacityAutoScalingSettings) + ", " + scalingString(r.ReplicaProvisionedWriteCapacityAutoScalingSettings)
		for _, ix := range r.ReplicaGlobalSecondaryIndexSettings {
			s += ", " + aws.ToString(ix.IndexName) + " " + scalingString(ix.ProvisionedReadCapacityAutoScalingSettings) + ", " + scalingString(ix.ProvisionedWriteCapacityAutoScalingSettings)
		}
		got[aws.ToString(r.RegionName)] = s
	}
	return got
}

// TestLegacyGlobalTableAutoScaling: UpdateGlobalTableSettings keeps the
// auto scaling it is given (the global table's write settings on every
// replica, a replica's read settings on that replica only, for the table
// and its global indexes), later updates change only the members they
// name, and DescribeGlobalTableSettings shows them in every Region.
func TestLegacyGlobalTableAutoScaling(t *testing.T) {
	srv := startGlobalServer(t, table.Options{LegacyGlobalTables: true})
	ctx := context.Background()
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	legacyReplicaTable(t, us, types.StreamViewTypeNewAndOldImages, 5)
	legacyReplicaTable(t, eu, types.StreamViewTypeNewAndOldImages, 5)
	if _, err := us.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("glob"),
		ReplicationGroup: []types.Replica{{RegionName: aws.String("us-east-1")}, {RegionName: aws.String("eu-west-1")}}}); err != nil {
		t.Fatalf("CreateGlobalTable: %v", err)
	}
	scale := func(min, max int64) *types.AutoScalingSettingsUpdate {
		return &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(min), MaximumUnits: aws.Int64(max)}
	}
	first := scale(5, 50)
	first.ScalingPolicyUpdate = &types.AutoScalingPolicyUpdate{TargetTrackingScalingPolicyConfiguration: &types.AutoScalingTargetTrackingScalingPolicyConfigurationUpdate{TargetValue: aws.Float64(70)}}
	out, err := us.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("glob"),
		GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate: first,
		GlobalTableGlobalSecondaryIndexSettingsUpdate: []types.GlobalTableGlobalSecondaryIndexSettingsUpdate{{IndexName: aws.String("byV"),
			ProvisionedWriteCapacityAutoScalingSettingsUpdate: scale(4, 40)}},
		ReplicaSettingsUpdate: []types.ReplicaSettingsUpdate{{RegionName: aws.String("eu-west-1"),
			ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate: scale(2, 20),
			ReplicaGlobalSecondaryIndexSettingsUpdate: []types.ReplicaGlobalSecondaryIndexSettingsUpdate{{IndexName: aws.String("byV"),
				ProvisionedReadCapacityAutoScalingSettingsUpdate: scale(3, 30)}}}}})
	if err != nil {
		t.Fatalf("UpdateGlobalTableSettings: %v", err)
	}
	want := map[string]string{
		"us-east-1": "-, 5/50 target 70, byV -, 4/40",
		"eu-west-1": "2/20, 5/50 target 70, byV 3/30, 4/40",
	}
	checkLegacyScaling(t, "UpdateGlobalTableSettings", out.ReplicaSettings, want)

	if _, err := eu.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("glob"),
		GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate: &types.AutoScalingSettingsUpdate{MaximumUnits: aws.Int64(60)}}); err != nil {
		t.Fatalf("UpdateGlobalTableSettings (maximum only): %v", err)
	}
	want["us-east-1"] = "-, 5/60 target 70, byV -, 4/40"
	want["eu-west-1"] = "2/20, 5/60 target 70, byV 3/30, 4/40"
	for _, c := range []*dynamodb.Client{us, eu} {
		d, err := c.DescribeGlobalTableSettings(ctx, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String("glob")})
		if err != nil {
			t.Fatalf("DescribeGlobalTableSettings: %v", err)
		}
		checkLegacyScaling(t, "DescribeGlobalTableSettings", d.ReplicaSettings, want)
	}
}

func checkLegacyScaling(t *testing.T, op string, got []types.ReplicaSettingsDescription, want map[string]string) {
	t.Helper()
	g := legacyScalingByRegion(got)
	for region, w := range want {
		if g[region] != w {
			t.Errorf("%s: %s auto scaling %q, want %q", op, region, g[region], w)
		}
	}
}
