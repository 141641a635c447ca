package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// legacyReplicaTable creates glob in c's Region as a legacy global table's
// replica must be: a NEW_AND_OLD_IMAGES stream (or view, "" for none),
// provisioned write capacity write and a global index byV.
func legacyReplicaTable(t *testing.T, c *dynamodb.Client, view types.StreamViewType, write int64) {
	t.Helper()
	in := &dynamodb.CreateTableInput{TableName: aws.String("glob"), BillingMode: types.BillingModeProvisioned,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(write)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byV"),
			KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}}}}
	if view != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view}
	}
	if _, err := c.CreateTable(context.Background(), in); err != nil {
		t.Fatalf("CreateTable glob: %v", err)
	}
}

// legacyRegions are a global table description's Regions.
func legacyRegions(d *types.GlobalTableDescription) []string {
	var out []string
	for _, r := range d.ReplicationGroup {
		out = append(out, aws.ToString(r.RegionName))
	}
	return out
}

// TestLegacyGlobalTables: with --legacy-global-tables, the version
// 2017.11.29 operations work with the legacy rules (identical empty tables
// with NEW_AND_OLD_IMAGES streams in each Region): CreateGlobalTable,
// UpdateGlobalTable adding and removing a Region, DescribeGlobalTable,
// ListGlobalTables, DescribeGlobalTableSettings, UpdateGlobalTableSettings;
// writes replicate between the Regions, and a member's own settings are
// not synchronized by UpdateTable.
func TestLegacyGlobalTables(t *testing.T) {
	srv := startGlobalServer(t, table.Options{LegacyGlobalTables: true})
	ctx := context.Background()
	us, eu, ap, sa := srv.client("us-east-1"), srv.client("eu-west-1"), srv.client("ap-southeast-2"), srv.client("sa-east-1")
	legacyReplicaTable(t, us, types.StreamViewTypeNewAndOldImages, 5)
	legacyReplicaTable(t, eu, types.StreamViewTypeNewAndOldImages, 5)
	legacyReplicaTable(t, sa, types.StreamViewTypeKeysOnly, 5)
	group := func(regions ...string) []types.Replica {
		var out []types.Replica
		for _, r := range regions {
			out = append(out, types.Replica{RegionName: aws.String(r)})
		}
		return out
	}
	create := func(regions ...string) (*dynamodb.CreateGlobalTableOutput, error) {
		return us.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("glob"), ReplicationGroup: group(regions...)})
	}
	_, err := create("us-east-1", "ap-south-1")
	wantAPIError(t, err, "TableNotFoundException", "Table: glob not found in region ap-south-1")
	_, err = create("us-east-1", "sa-east-1")
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Table glob in region sa-east-1 must have DynamoDB Streams enabled with the stream view type NEW_AND_OLD_IMAGES")
	put(t, eu, "glob", "early", "1")
	_, err = create("us-east-1", "eu-west-1")
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Table glob in region eu-west-1 must be empty to join a global table")
	if _, err := eu.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("glob"), Key: map[string]types.AttributeValue{"pk": s("early")}}); err != nil {
		t.Fatal(err)
	}

	out, err := create("us-east-1", "eu-west-1")
	if err != nil {
		t.Fatalf("CreateGlobalTable: %v", err)
	}
	d := out.GlobalTableDescription
	if aws.ToString(d.GlobalTableArn) != "arn:aws:dynamodb::000000000000:global-table/glob" || d.GlobalTableStatus != types.GlobalTableStatusActive ||
		!slices.Equal(legacyRegions(d), []string{"eu-west-1", "us-east-1"}) || d.CreationDateTime == nil || d.CreationDateTime.Sub(srv.clk.Now()).Abs() > time.Second {
		t.Errorf("CreateGlobalTable's description: %+v", d)
	}
	_, err = create("us-east-1")
	wantAPIError(t, err, "GlobalTableAlreadyExistsException", "Global table with name: 'glob' already exists.")
	if d := describe(t, eu, "glob"); d.GlobalTableVersion != nil || len(d.Replicas) != 0 {
		t.Errorf("DescribeTable of a legacy replica: version %v replicas %+v, want none", d.GlobalTableVersion, d.Replicas)
	}
	put(t, us, "glob", "a", "from-us")
	put(t, eu, "glob", "b", "from-eu")
	srv.settle(t)
	if value(t, eu, "glob", "a") != "from-us" || value(t, us, "glob", "b") != "from-eu" {
		t.Fatal("writes did not replicate between the legacy global table's Regions")
	}
	_, err = us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("ap-southeast-2")}}}})
	wantAPIError(t, err, "ValidationException", "Table glob is a replica of a global table version 2017.11.29: its replicas are changed with UpdateGlobalTable.")

	// UpdateGlobalTable: a Region added must be empty, with the same write
	// capacity; it gets the global table's items.
	update := func(u types.ReplicaUpdate) (*dynamodb.UpdateGlobalTableOutput, error) {
		return eu.UpdateGlobalTable(ctx, &dynamodb.UpdateGlobalTableInput{GlobalTableName: aws.String("glob"), ReplicaUpdates: []types.ReplicaUpdate{u}})
	}
	add := func(region string) types.ReplicaUpdate {
		return types.ReplicaUpdate{Create: &types.CreateReplicaAction{RegionName: aws.String(region)}}
	}
	del := func(region string) types.ReplicaUpdate {
		return types.ReplicaUpdate{Delete: &types.DeleteReplicaAction{RegionName: aws.String(region)}}
	}
	legacyAddStep(t, srv, update, add, del)
	legacySettingsSteps(t, us, ap, eu, sa)
	legacyRemoveStep(t, srv, update, group)
}

// legacySettingsSteps: UpdateGlobalTableSettings sets the write capacity on
// every replica and each replica's read capacity, DescribeGlobalTableSettings
// shows them, and UpdateTable of one member changes that member only.
func legacySettingsSteps(t *testing.T, us, ap, eu, sa *dynamodb.Client) {
	ctx := context.Background()
	// The settings: write capacity is the global table's, read capacity
	// each replica's own.
	set, err := us.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("glob"),
		GlobalTableProvisionedWriteCapacityUnits: aws.Int64(7),
		GlobalTableGlobalSecondaryIndexSettingsUpdate: []types.GlobalTableGlobalSecondaryIndexSettingsUpdate{{IndexName: aws.String("byV"),
			ProvisionedWriteCapacityUnits: aws.Int64(8)}},
		ReplicaSettingsUpdate: []types.ReplicaSettingsUpdate{{RegionName: aws.String("eu-west-1"), ReplicaProvisionedReadCapacityUnits: aws.Int64(9)}}})
	if err != nil {
		t.Fatalf("UpdateGlobalTableSettings: %v", err)
	}
	got, err := sa.DescribeGlobalTableSettings(ctx, &dynamodb.DescribeGlobalTableSettingsInput{GlobalTableName: aws.String("glob")})
	if err != nil {
		t.Fatal(err)
	}
	for _, settings := range [][]types.ReplicaSettingsDescription{set.ReplicaSettings, got.ReplicaSettings} {
		var regions []string
		for _, r := range settings {
			region := aws.ToString(r.RegionName)
			regions = append(regions, region)
			read := int64(5)
			if region == "eu-west-1" {
				read = 9
			}
			if aws.ToInt64(r.ReplicaProvisionedWriteCapacityUnits) != 7 || aws.ToInt64(r.ReplicaProvisionedReadCapacityUnits) != read ||
				len(r.ReplicaGlobalSecondaryIndexSettings) != 1 || aws.ToInt64(r.ReplicaGlobalSecondaryIndexSettings[0].ProvisionedWriteCapacityUnits) != 8 ||
				r.ReplicaStatus != types.ReplicaStatusActive {
				t.Errorf("%s's settings: %+v", region, r)
			}
		}
		if !slices.Equal(regions, []string{"ap-southeast-2", "eu-west-1", "us-east-1"}) {
			t.Errorf("settings of Regions %v", regions)
		}
	}
	if pt := describe(t, ap, "glob").ProvisionedThroughput; aws.ToInt64(pt.WriteCapacityUnits) != 7 || aws.ToInt64(pt.ReadCapacityUnits) != 5 {
		t.Errorf("ap-southeast-2's DescribeTable after the settings: %+v", pt)
	}
	_, err = us.UpdateGlobalTableSettings(ctx, &dynamodb.UpdateGlobalTableSettingsInput{GlobalTableName: aws.String("glob"),
		ReplicaSettingsUpdate: []types.ReplicaSettingsUpdate{{RegionName: aws.String("sa-east-1"), ReplicaProvisionedReadCapacityUnits: aws.Int64(9)}}})
	wantAPIError(t, err, "ReplicaNotFoundException", "Replica in region sa-east-1 is not part of global table glob.")
	// UpdateTable of one member changes that member only.
	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(10)}}); err != nil {
		t.Fatal(err)
	}
	if pt := describe(t, eu, "glob").ProvisionedThroughput; aws.ToInt64(pt.WriteCapacityUnits) != 7 {
		t.Errorf("eu-west-1's write capacity after UpdateTable in us-east-1: %d, want 7 (not synchronized)", aws.ToInt64(pt.WriteCapacityUnits))
	}

}

// legacyRemoveStep: a Region removed keeps its table, a regional one, and no
// longer replicates; the account's global table keeps its name.
func legacyRemoveStep(t *testing.T, srv *gtServer, update func(types.ReplicaUpdate) (*dynamodb.UpdateGlobalTableOutput, error), group func(...string) []types.Replica) {
	ctx := context.Background()
	us, eu, ap := srv.client("us-east-1"), srv.client("eu-west-1"), srv.client("ap-southeast-2")
	del := func(region string) types.ReplicaUpdate {
		return types.ReplicaUpdate{Delete: &types.DeleteReplicaAction{RegionName: aws.String(region)}}
	}
	// A Region removed keeps its table, a regional one, and no longer
	// replicates.
	up, err := update(del("eu-west-1"))
	if err != nil {
		t.Fatalf("UpdateGlobalTable removing eu-west-1: %v", err)
	}
	if got := legacyRegions(up.GlobalTableDescription); !slices.Equal(got, []string{"ap-southeast-2", "us-east-1"}) {
		t.Errorf("after removing eu-west-1: %v", got)
	}
	put(t, us, "glob", "d", "after")
	srv.settle(t)
	if value(t, eu, "glob", "d") != "" || value(t, eu, "glob", "a") != "from-us" || value(t, ap, "glob", "d") != "after" {
		t.Error("after removing eu-west-1: want its items kept, no new write there, and replication to ap-southeast-2 going on")
	}
	if _, err := eu.CreateGlobalTable(ctx, &dynamodb.CreateGlobalTableInput{GlobalTableName: aws.String("glob"), ReplicationGroup: group("eu-west-1")}); err == nil {
		t.Error("CreateGlobalTable of a name the account's legacy global table has: accepted")
	}
}

// legacyAddStep: a Region added must be empty, with the same write capacity,
// and gets the global table's items; DescribeGlobalTable and
// ListGlobalTables show it.
func legacyAddStep(t *testing.T, srv *gtServer, update func(types.ReplicaUpdate) (*dynamodb.UpdateGlobalTableOutput, error), add, del func(string) types.ReplicaUpdate) {
	ctx := context.Background()
	us, ap, sa := srv.client("us-east-1"), srv.client("ap-southeast-2"), srv.client("sa-east-1")
	legacyReplicaTable(t, ap, types.StreamViewTypeNewAndOldImages, 6)
	_, err := update(add("ap-southeast-2"))
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Table glob in region ap-southeast-2 must have the same provisioned and maximum write capacity units as the other replicas, its global secondary indexes too")
	if _, err := ap.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}}); err != nil {
		t.Fatal(err)
	}
	_, err = update(add("eu-west-1"))
	wantAPIError(t, err, "ReplicaAlreadyExistsException", "Replica in region eu-west-1 already exists in global table glob.")
	_, err = update(del("ap-southeast-2"))
	wantAPIError(t, err, "ReplicaNotFoundException", "Replica in region ap-southeast-2 is not part of global table glob.")
	up, err := update(add("ap-southeast-2"))
	if err != nil {
		t.Fatalf("UpdateGlobalTable adding ap-southeast-2: %v", err)
	}
	if got := legacyRegions(up.GlobalTableDescription); !slices.Equal(got, []string{"ap-southeast-2", "eu-west-1", "us-east-1"}) {
		t.Errorf("after adding ap-southeast-2: %v", got)
	}
	srv.settle(t)
	if value(t, ap, "glob", "a") != "from-us" || value(t, ap, "glob", "b") != "from-eu" {
		t.Error("the Region added did not get the global table's items")
	}
	put(t, ap, "glob", "c", "from-ap")
	srv.settle(t)
	if value(t, us, "glob", "c") != "from-ap" {
		t.Error("a write in the Region added did not replicate")
	}

	// DescribeGlobalTable and ListGlobalTables, from any Region.
	desc, err := sa.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("glob")})
	if err != nil || len(desc.GlobalTableDescription.ReplicationGroup) != 3 {
		t.Errorf("DescribeGlobalTable: %+v %v", desc, err)
	}
	_, err = us.DescribeGlobalTable(ctx, &dynamodb.DescribeGlobalTableInput{GlobalTableName: aws.String("other")})
	wantAPIError(t, err, "GlobalTableNotFoundException", "Global table not found: Global table with name: 'other' does not exist.")
	for region, want := range map[string]int{"": 1, "eu-west-1": 1, "sa-east-1": 0} {
		in := &dynamodb.ListGlobalTablesInput{}
		if region != "" {
			in.RegionName = aws.String(region)
		}
		list, err := us.ListGlobalTables(ctx, in)
		if err != nil || len(list.GlobalTables) != want || want == 1 && len(list.GlobalTables[0].ReplicationGroup) != 3 {
			t.Errorf("ListGlobalTables in %q: %+v %v, want %d", region, list, err, want)
		}
	}

}
