package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

func throughput(r, w int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

// capacityOf returns d's read and write capacity and those of its global
// index name ("" for the table).
func capacityOf(t testing.TB, d *types.TableDescription, name string) (r, w int64) {
	t.Helper()
	if name == "" {
		return aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(d.ProvisionedThroughput.WriteCapacityUnits)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == name {
			return aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits)
		}
	}
	t.Fatalf("%s has no global index %s", aws.ToString(d.TableName), name)
	return 0, 0
}

// TestGlobalTableSettingsSync: settings changed through one replica reach
// the others (write capacity, global indexes, Time to Live), except what a
// replica overrides (read capacity, table and index) and what stays
// regional (deletion protection).
func TestGlobalTableSettingsSync(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	ctx := context.Background()
	key := func(n string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(n), KeyType: types.KeyTypeHash}}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if _, err := us.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("glob"), KeySchema: key("pk"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS}},
		ProvisionedThroughput:  throughput(5, 5),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("byV"), KeySchema: key("v"), Projection: all, ProvisionedThroughput: throughput(5, 5)}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{
		RegionName: aws.String("eu-west-1"), ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(7)},
		GlobalSecondaryIndexes: []types.ReplicaGlobalSecondaryIndex{{IndexName: aws.String("byV"),
			ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(3)}}}}}}}); err != nil {
		t.Fatal(err)
	}
	d := describe(t, eu, "glob")
	if r, w := capacityOf(t, d, ""); r != 7 || w != 5 {
		t.Errorf("eu-west-1 table capacity %d/%d, want 7/5 (read overridden)", r, w)
	}
	if r, w := capacityOf(t, d, "byV"); r != 3 || w != 5 {
		t.Errorf("eu-west-1 byV capacity %d/%d, want 3/5 (read overridden)", r, w)
	}
	rep := describe(t, us, "glob").Replicas
	if len(rep) != 1 || aws.ToInt64(rep[0].ProvisionedThroughputOverride.ReadCapacityUnits) != 7 || len(rep[0].GlobalSecondaryIndexes) != 1 ||
		aws.ToInt64(rep[0].GlobalSecondaryIndexes[0].ProvisionedThroughputOverride.ReadCapacityUnits) != 3 {
		t.Fatalf("us-east-1 Replicas: %+v, want eu-west-1 with read overrides 7 (table) and 3 (byV)", rep)
	}

	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ProvisionedThroughput: throughput(10, 12)}); err != nil {
		t.Fatal(err)
	}
	if r, w := capacityOf(t, describe(t, eu, "glob"), ""); r != 7 || w != 12 {
		t.Errorf("eu-west-1 after us-east-1's capacity change: %d/%d, want 7/12", r, w)
	}
	if _, err := eu.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("w"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String("byW"),
			KeySchema: key("w"), Projection: all, ProvisionedThroughput: throughput(2, 2)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := us.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("glob"), Item: map[string]types.AttributeValue{"pk": s("a"), "w": s("W")}}); err != nil {
		t.Fatal(err)
	}
	srv.settle(t)
	out, err := us.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("glob"), IndexName: aws.String("byW"), KeyConditionExpression: aws.String("w = :w"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":w": s("W")}})
	if err != nil || out.Count != 1 {
		t.Fatalf("us-east-1 byW, made through eu-west-1: %v %v, want 1 item", out, err)
	}

	if _, err := us.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("glob"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	ttl, err := eu.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("glob")})
	if err != nil || ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "exp" {
		t.Errorf("eu-west-1 Time to Live after us-east-1 enabled it: %+v %v", ttl, err)
	}

	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if aws.ToBool(describe(t, eu, "glob").DeletionProtectionEnabled) {
		t.Error("deletion protection reached eu-west-1: it is regional")
	}

	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: &types.UpdateReplicationGroupMemberAction{
		RegionName: aws.String("eu-west-1"), ProvisionedThroughputOverride: &types.ProvisionedThroughputOverride{ReadCapacityUnits: aws.Int64(4)}}}}}); err != nil {
		t.Fatal(err)
	}
	if r, w := capacityOf(t, describe(t, eu, "glob"), ""); r != 4 || w != 12 {
		t.Errorf("eu-west-1 after its override changed to 4: %d/%d, want 4/12", r, w)
	}
}

// TestUpdateTableReplicaAutoScaling: write settings are kept on every
// replica, read settings on the replica named; both are described.
func TestUpdateTableReplicaAutoScaling(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	ctx := context.Background()
	createTable(t, us, "glob", false)
	_, err := us.UpdateTableReplicaAutoScaling(ctx, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("glob"),
		ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ResourceNotFoundException", "Global table with name: 'glob' does not exist.")
	addReplica(t, us, "glob", "eu-west-1")
	policy := &types.AutoScalingPolicyUpdate{PolicyName: aws.String("p"),
		TargetTrackingScalingPolicyConfiguration: &types.AutoScalingTargetTrackingScalingPolicyConfigurationUpdate{TargetValue: aws.Float64(70)}}
	out, err := us.UpdateTableReplicaAutoScaling(ctx, &dynamodb.UpdateTableReplicaAutoScalingInput{TableName: aws.String("glob"),
		ProvisionedWriteCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(5), MaximumUnits: aws.Int64(50), ScalingPolicyUpdate: policy},
		ReplicaUpdates: []types.ReplicaAutoScalingUpdate{{RegionName: aws.String("eu-west-1"),
			ReplicaProvisionedReadCapacityAutoScalingUpdate: &types.AutoScalingSettingsUpdate{MinimumUnits: aws.Int64(2), MaximumUnits: aws.Int64(20)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.TableAutoScalingDescription.Replicas); n != 2 {
		t.Fatalf("UpdateTableReplicaAutoScaling answer: %d replicas, want 2", n)
	}
	d, err := eu.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("glob")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.TableAutoScalingDescription.Replicas {
		w := r.ReplicaProvisionedWriteCapacityAutoScalingSettings
		if w == nil || aws.ToInt64(w.MinimumUnits) != 5 || aws.ToInt64(w.MaximumUnits) != 50 || len(w.ScalingPolicies) != 1 ||
			aws.ToFloat64(w.ScalingPolicies[0].TargetTrackingScalingPolicyConfiguration.TargetValue) != 70 {
			t.Errorf("%s write auto scaling: %+v, want 5..50 at 70%%", aws.ToString(r.RegionName), w)
		}
		rd := r.ReplicaProvisionedReadCapacityAutoScalingSettings
		switch aws.ToString(r.RegionName) {
		case "eu-west-1":
			if rd == nil || aws.ToInt64(rd.MinimumUnits) != 2 || aws.ToInt64(rd.MaximumUnits) != 20 {
				t.Errorf("eu-west-1 read auto scaling: %+v, want 2..20", rd)
			}
		default:
			if rd != nil {
				t.Errorf("%s read auto scaling: %+v, want none (set for eu-west-1 only)", aws.ToString(r.RegionName), rd)
			}
		}
	}
}

// TestGlobalTableReplicaOwnSettings: a replica's own KMS key and table
// class, given when it is created and changed by an Update action, are
// kept: the table lists them for the replica, and the replica has the
// class and describes its own key (SSEDescription) in its own Region,
// while the source keeps describing its key.
func TestGlobalTableReplicaOwnSettings(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	ctx := context.Background()
	if _, err := us.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("glob"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		SSESpecification:     &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms, KMSMasterKeyId: aws.String("alias/us-key")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{
		RegionName: aws.String("eu-west-1"), KMSMasterKeyId: aws.String("alias/eu-key"), TableClassOverride: types.TableClassStandardInfrequentAccess}}}}); err != nil {
		t.Fatal(err)
	}
	key := func(c *dynamodb.Client, want string) {
		t.Helper()
		if d := describe(t, c, "glob").SSEDescription; d == nil || aws.ToString(d.KMSMasterKeyArn) != want {
			t.Errorf("SSEDescription %+v, want KMSMasterKeyArn %s", d, want)
		}
	}
	listed := func(want string) {
		t.Helper()
		rep := describe(t, us, "glob").Replicas
		if len(rep) != 1 || aws.ToString(rep[0].KMSMasterKeyId) != want || rep[0].ReplicaTableClassSummary == nil ||
			rep[0].ReplicaTableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
			t.Errorf("us-east-1 Replicas: %+v, want eu-west-1 with KMS key %s and STANDARD_INFREQUENT_ACCESS", rep, want)
		}
	}
	listed("alias/eu-key")
	key(us, "arn:aws:kms:us-east-1:000000000000:alias/us-key")
	key(eu, "arn:aws:kms:eu-west-1:000000000000:alias/eu-key")
	d := describe(t, eu, "glob")
	if d.TableClassSummary == nil || d.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess ||
		d.SSEDescription == nil || d.SSEDescription.SSEType != types.SSETypeKms {
		t.Errorf("eu-west-1: class %+v encryption %+v, want STANDARD_INFREQUENT_ACCESS and KMS", d.TableClassSummary, d.SSEDescription)
	}
	if d := describe(t, us, "glob"); d.TableClassSummary != nil && d.TableClassSummary.TableClass != types.TableClassStandard {
		t.Errorf("us-east-1 class %+v, want STANDARD (the override is eu-west-1's)", d.TableClassSummary)
	}
	srv.settle(t)
	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: []types.ReplicationGroupUpdate{{Update: &types.UpdateReplicationGroupMemberAction{
		RegionName: aws.String("eu-west-1"), KMSMasterKeyId: aws.String("alias/eu-key-2")}}}}); err != nil {
		t.Fatal(err)
	}
	listed("alias/eu-key-2")
	key(eu, "arn:aws:kms:eu-west-1:000000000000:alias/eu-key-2")
	key(us, "arn:aws:kms:us-east-1:000000000000:alias/us-key")
}
