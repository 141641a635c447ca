package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/table"
)

// disassociate sends UpdateTable ReplicaUpdates Disassociate of region's
// replica of glob through c.
func disassociate(c *dynamodb.Client, region string, mode types.DisassociationMode) error {
	_, err := c.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Disassociate: &types.DisassociateReplicationGroupMemberAction{
			RegionName: aws.String(region), DisassociationMode: mode}}}})
	return err
}

func setProtection(t testing.TB, c *dynamodb.Client, on bool) *types.TableDescription {
	t.Helper()
	out, err := c.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"), DisassociationProtectionEnabled: aws.Bool(on)})
	if err != nil {
		t.Fatalf("UpdateTable DisassociationProtectionEnabled %v: %v", on, err)
	}
	return out.TableDescription
}

// TestGlobalTableDisassociate: a replica's disassociation protection is on
// by default and guards Disassociate; Disassociate waits for pending
// replication both ways (through the lag), then the replica is a regional
// table with its items while the others stay a global table.
func TestGlobalTableDisassociate(t *testing.T) {
	srv := startGlobalServer(t, table.Options{ReplicationLag: consistency.Lag{Min: time.Minute, Max: time.Minute}})
	us, eu, ap := srv.client("us-east-1"), srv.client("eu-west-1"), srv.client("ap-southeast-1")
	ctx := context.Background()
	createTable(t, us, "glob", false)
	if d := describe(t, us, "glob"); d.DisassociationProtectionEnabled != nil {
		t.Errorf("a regional table: DisassociationProtectionEnabled %v, want none", *d.DisassociationProtectionEnabled)
	}
	wantAPIError(t, disassociate(us, "us-east-1", types.DisassociationModeWaitForReplication), "ValidationException",
		"Cannot disassociate table glob because it is not a replica of a global table.")
	_, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), DisassociationProtectionEnabled: aws.Bool(false)})
	wantAPIError(t, err, "ValidationException", "Disassociation protection is only supported for a replica of a global table with MultiRegionConsistency set to EVENTUAL.")
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	addReplica(t, us, "glob", "ap-southeast-1")
	srv.settle(t)
	if d := describe(t, eu, "glob"); d.DisassociationProtectionEnabled == nil || !*d.DisassociationProtectionEnabled {
		t.Fatalf("a new replica: DisassociationProtectionEnabled %v, want true", d.DisassociationProtectionEnabled)
	}
	wantAPIError(t, disassociate(eu, "eu-west-1", types.DisassociationModeWaitForReplication), "ValidationException",
		"Cannot disassociate table glob in region eu-west-1 because it has disassociation protection enabled. Disable disassociation protection first.")
	_, err = eu.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), DisassociationProtectionEnabled: aws.Bool(false), DeletionProtectionEnabled: aws.Bool(true)})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Disassociation protection modification must be the only operation in the request")
	if d := setProtection(t, eu, false); d.DisassociationProtectionEnabled == nil || *d.DisassociationProtectionEnabled {
		t.Fatalf("after turning it off: DisassociationProtectionEnabled %v, want false", d.DisassociationProtectionEnabled)
	}
	if d := describe(t, us, "glob"); !*d.DisassociationProtectionEnabled {
		t.Errorf("us-east-1's protection changed with eu-west-1's: it is regional")
	}
	wantAPIError(t, disassociate(us, "eu-west-1", types.DisassociationModeWaitForReplication), "ValidationException",
		"Cannot disassociate the replica in region eu-west-1 through a request to region us-east-1. Send the request to the Region of the replica to disassociate.")
	_, err = eu.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), ReplicaUpdates: []types.ReplicationGroupUpdate{
		{Disassociate: &types.DisassociateReplicationGroupMemberAction{RegionName: aws.String("eu-west-1"), DisassociationMode: types.DisassociationModeWaitForReplication}},
		{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String("ap-southeast-1")}}}})
	wantAPIError(t, err, "ValidationException", "Update table operation with more than one type of replica actions not allowed")

	// Writes still held back by the lag, both ways, arrive before it leaves.
	srv.clk.Advance(ctx, time.Millisecond)
	put(t, us, "glob", "from-us", "1")
	put(t, eu, "glob", "from-eu", "2")
	if err := disassociate(eu, "eu-west-1", types.DisassociationModeWaitForReplication); err != nil {
		t.Fatalf("Disassociate: %v", err)
	}
	if got := value(t, eu, "glob", "from-us"); got != "1" {
		t.Errorf("eu-west-1 after Disassociate: from-us %q, want 1 (WAIT_FOR_REPLICATION)", got)
	}
	srv.settle(t)
	for region, c := range map[string]*dynamodb.Client{"us-east-1": us, "ap-southeast-1": ap} {
		if got := value(t, c, "glob", "from-eu"); got != "2" {
			t.Errorf("%s after Disassociate: from-eu %q, want 2", region, got)
		}
	}
	d := describe(t, eu, "glob")
	if len(d.Replicas) != 0 || d.GlobalTableVersion != nil || d.DisassociationProtectionEnabled != nil {
		t.Errorf("eu-west-1 after Disassociate: replicas %v, version %v: want a regional table", d.Replicas, aws.ToString(d.GlobalTableVersion))
	}
	if got := replicaStatuses(describe(t, us, "glob")); len(got) != 1 || got["ap-southeast-1"] != types.ReplicaStatusActive {
		t.Errorf("us-east-1's replicas after eu-west-1 left: got %v, want ap-southeast-1 alone", got)
	}
	put(t, us, "glob", "later", "3")
	put(t, eu, "glob", "own", "4")
	srv.settle(t)
	if got := value(t, eu, "glob", "later"); got != "" {
		t.Errorf("eu-west-1 after Disassociate: got a later us-east-1 write %q", got)
	}
	if got, own := value(t, ap, "glob", "later"), value(t, us, "glob", "own"); got != "3" || own != "" {
		t.Errorf("after Disassociate: ap-southeast-1 later=%q (want 3), us-east-1 own=%q (want nothing)", got, own)
	}
}

// TestGlobalTableSettingsReplicationMode: a regional table takes ENABLED or
// DISABLED, alone in its request, and describes it; ENABLED_WITH_OVERRIDES
// is refused in the service's words, and a global table's replica refuses
// the change.
func TestGlobalTableSettingsReplicationMode(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us := srv.client("us-east-1")
	ctx := context.Background()
	createTable(t, us, "glob", false)
	mode := func(m types.GlobalTableSettingsReplicationMode) error {
		_, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), GlobalTableSettingsReplicationMode: m})
		return err
	}
	wantAPIError(t, mode(types.GlobalTableSettingsReplicationModeEnabledWithOverrides), "ValidationException",
		"Value 'ENABLED_WITH_OVERRIDES' at 'GlobalTableSettingsReplicationMode' failed to satisfy constraint: Only ENABLED and DISABLED settings replication are supported for a Regional Table.")
	for _, m := range []types.GlobalTableSettingsReplicationMode{types.GlobalTableSettingsReplicationModeEnabled, types.GlobalTableSettingsReplicationModeDisabled} {
		if err := mode(m); err != nil {
			t.Fatalf("GlobalTableSettingsReplicationMode %s: %v", m, err)
		}
		if got := describe(t, us, "glob").GlobalTableSettingsReplicationMode; got != m {
			t.Errorf("after %s: described %q", m, got)
		}
	}
	_, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled, TableClass: types.TableClassStandard})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Settings replication mode modification must be the only operation in the request")
	addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	if got := describe(t, us, "glob").GlobalTableSettingsReplicationMode; got != types.GlobalTableSettingsReplicationModeEnabledWithOverrides {
		t.Errorf("a same-account global table: described %q, want ENABLED_WITH_OVERRIDES", got)
	}
	wantAPIError(t, mode(types.GlobalTableSettingsReplicationModeEnabled), "ValidationException", "GlobalTableSettingsReplicationMode can only be set on a regional table.")
}

// TestStrongGlobalTableRefusesDisassociate: MRSC replicas have no
// disassociation protection and cannot be disassociated.
func TestStrongGlobalTableRefusesDisassociate(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	strongTable(t, srv)
	us := srv.client("us-east-1")
	if d := describe(t, us, "glob"); d.DisassociationProtectionEnabled != nil {
		t.Errorf("an MRSC replica: DisassociationProtectionEnabled %v, want none", *d.DisassociationProtectionEnabled)
	}
	wantAPIError(t, disassociate(us, "us-east-1", types.DisassociationModeWaitForReplication), "ValidationException",
		"Disassociation is not supported for global tables with MultiRegionConsistency set to STRONG.")
}

// startAccountsServer is startGlobalServer verifying signatures of two
// accounts, testKey's (auth.DefaultAccount) and secondKey's
// (secondAccount), and enforcing resource-based policies, as the command
// does with --credentials.
func startAccountsServer(t testing.TB) *gtServer {
	t.Helper()
	return startVerifiedServer(t, table.Options{Policies: auth.TablePolicy},
		auth.NewVerifier([]auth.Credential{{AccessKey: testKey, Secret: testSecret, Account: auth.DefaultAccount},
			{AccessKey: secondKey, Secret: testSecret, Account: secondAccount}}, nil))
}

const (
	secondKey     = "AKIDSECONDACCOUNT"
	secondAccount = "222222222222"
)

// secondClient is a client of srv in region signing as secondAccount.
func secondClient(srv *gtServer, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.URL), Region: region,
		Credentials: credentials.NewStaticCredentialsProvider(secondKey, testSecret, ""), Retryer: closedConnRetryer()}, readOnlyBodies)
}

// TestMultiAccountGlobalTable: a regional table with settings replication
// ENABLED is the source of a replica CreateTable makes in another account
// and Region with GlobalTableSourceArn (both with the resource-based
// policies the service asks for: TestMultiAccountGlobalTablePolicies);
// items copy and writes replicate both ways, both describe the
// multi-account global table, and the service's rules are enforced.
func TestMultiAccountGlobalTable(t *testing.T) {
	srv := startAccountsServer(t)
	us, eu := srv.client("us-east-1"), secondClient(srv, "eu-west-1")
	ctx := context.Background()
	createTable(t, us, "glob", false)
	put(t, us, "glob", "before", "1")
	arn := aws.ToString(describe(t, us, "glob").TableArn)
	dst := "arn:aws:dynamodb:eu-west-1:" + secondAccount + ":table/glob"
	putPolicy(t, us, arn, policyOf(associateStatement(arn, secondAccount), replicationStatement(arn, allReplication(), arn, dst)))
	create := func(mode types.GlobalTableSettingsReplicationMode, source string) (*dynamodb.CreateTableOutput, error) {
		return eu.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("glob"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			GlobalTableSourceArn: aws.String(source), GlobalTableSettingsReplicationMode: mode,
			ResourcePolicy: aws.String(policyOf(replicationStatement(dst, allReplication(), arn, dst)))})
	}
	_, err := create("", arn)
	wantAPIError(t, err, "ValidationException", "GlobalTableSettingsReplicationMode must be ENABLED when GlobalTableSourceArn is specified.")
	_, err = create(types.GlobalTableSettingsReplicationModeEnabled, arn)
	wantAPIError(t, err, "ValidationException", "Settings replication is not enabled on the source table glob. Set its GlobalTableSettingsReplicationMode to ENABLED first.")
	_, err = srv.client("eu-west-1").CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("glob"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}, BillingMode: types.BillingModePayPerRequest,
		GlobalTableSourceArn: aws.String(arn), GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled})
	wantAPIError(t, err, "ValidationException", "The source table of a multi-account global table must be in another account.")
	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled}); err != nil {
		t.Fatal(err)
	}
	out, err := create(types.GlobalTableSettingsReplicationModeEnabled, arn)
	if err != nil {
		t.Fatalf("CreateTable with GlobalTableSourceArn: %v", err)
	}
	if d := out.TableDescription; d.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabled || len(d.Replicas) != 1 ||
		aws.ToString(d.Replicas[0].ReplicaArn) != arn || aws.ToString(d.Replicas[0].RegionName) != "us-east-1" {
		t.Fatalf("the new replica: mode %q replicas %+v, want ENABLED and us-east-1's table %s", d.GlobalTableSettingsReplicationMode, d.Replicas, arn)
	}
	srv.settle(t)
	d := describe(t, us, "glob")
	if d.GlobalTableSettingsReplicationMode != types.GlobalTableSettingsReplicationModeEnabled || len(d.Replicas) != 1 ||
		!strings.Contains(aws.ToString(d.Replicas[0].ReplicaArn), ":eu-west-1:"+secondAccount+":table/glob") {
		t.Fatalf("the source: mode %q replicas %+v, want ENABLED and eu-west-1's table in %s", d.GlobalTableSettingsReplicationMode, d.Replicas, secondAccount)
	}
	put(t, us, "glob", "a", "from-us")
	put(t, eu, "glob", "b", "from-eu")
	srv.settle(t)
	for pk, want := range map[string]string{"before": "1", "a": "from-us", "b": "from-eu"} {
		if got, gotUS := value(t, eu, "glob", pk), value(t, us, "glob", pk); got != want || gotUS != want {
			t.Errorf("%s: eu-west-1 (%s) %q, us-east-1 %q, want %q in both", pk, secondAccount, got, gotUS, want)
		}
	}
	_, err = srv.client("eu-west-1").GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("glob"), Key: map[string]types.AttributeValue{"pk": s("a")}})
	wantAPIError(t, err, "ResourceNotFoundException", "") // the replica is in the other account only
	_, err = us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String("ap-south-1")}}}})
	wantAPIError(t, err, "ValidationException", "Create replica actions are not supported for multi-account global tables.")
	setProtection(t, eu, false)
	if err := disassociate(eu, "eu-west-1", types.DisassociationModeWaitForReplication); err != nil {
		t.Fatalf("Disassociate the multi-account replica: %v", err)
	}
	if d := describe(t, us, "glob"); len(d.Replicas) != 0 {
		t.Errorf("the source after its one replica left: replicas %+v, want a regional table", d.Replicas)
	}
}
