package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The resource-based policies of multi-account global tables, as the
// developer guide's multi-account tutorial writes them.

// quoted renders strings as a JSON list.
func quoted(ss ...string) string { return `["` + strings.Join(ss, `","`) + `"]` }

// replicationStatement lets the replication service replicate table (an
// ARN) with the replicas members (ARNs), themselves included: actions
// ("dynamodb:ReadDataForReplication"…), conditioned on aws:SourceAccount and
// aws:SourceArn.
func replicationStatement(table string, actions []string, members ...string) string {
	var accounts []string
	for _, m := range members {
		accounts = append(accounts, strings.Split(m, ":")[4])
	}
	return fmt.Sprintf(`{"Sid":"DynamoDBActionsNeededForSteadyStateReplication","Effect":"Allow","Action":%s,"Resource":"%s",`+
		`"Principal":{"Service":["replication.dynamodb.amazonaws.com"]},"Condition":{"StringEquals":{"aws:SourceAccount":%s,"aws:SourceArn":%s}}}`,
		quoted(actions...), table, quoted(accounts...), quoted(members...))
}

// associateStatement lets accounts add replicas to table's global table.
func associateStatement(table string, accounts ...string) string {
	return fmt.Sprintf(`{"Sid":"AllowTrustedAccountsToJoinThisGlobalTable","Effect":"Allow","Action":["dynamodb:AssociateTableReplica"],"Resource":"%s","Principal":{"AWS":%s}}`,
		table, quoted(accounts...))
}

func policyOf(statements ...string) string {
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(statements, ",") + `]}`
}

// allReplication is the three actions the replication service needs.
func allReplication() []string {
	return []string{"dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication", "dynamodb:ReplicateSettings"}
}

// createFromSource is CreateTable of glob in c's account and Region as a
// replica of the table source, with the resource-based policy doc.
func createFromSource(c *dynamodb.Client, source, doc string) error {
	in := &dynamodb.CreateTableInput{TableName: aws.String("glob"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalTableSourceArn: aws.String(source), GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled}
	if doc != "" {
		in.ResourcePolicy = aws.String(doc)
	}
	_, err := c.CreateTable(context.Background(), in)
	return err
}

// sourceTable makes glob in us-east-1 of the default account a regional
// table with settings replication ENABLED and item before, and returns
// its ARN and that of its replica-to-be in eu-west-1 of secondAccount.
func sourceTable(t *testing.T, us *dynamodb.Client) (src, dst string) {
	t.Helper()
	createTable(t, us, "glob", false)
	if _, err := us.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String("glob"),
		GlobalTableSettingsReplicationMode: types.GlobalTableSettingsReplicationModeEnabled}); err != nil {
		t.Fatal(err)
	}
	put(t, us, "glob", "before", "1")
	return aws.ToString(describe(t, us, "glob").TableArn), "arn:aws:dynamodb:eu-west-1:" + secondAccount + ":table/glob"
}

// TestMultiAccountGlobalTableJoinPolicies: a replica joins a multi-account
// global table only when the source's resource-based policy lets the
// joining account perform dynamodb:AssociateTableReplica and both tables'
// policies (the joining one's from CreateTable) let the replication
// service principal replicate between them, as the developer guide's
// tutorial writes them.
func TestMultiAccountGlobalTableJoinPolicies(t *testing.T) {
	srv := startAccountsServer(t)
	us, eu := srv.client("us-east-1"), secondClient(srv, "eu-west-1")
	ctx := context.Background()
	src, dst := sourceTable(t, us)
	dstPolicy := policyOf(replicationStatement(dst, allReplication(), src, dst))

	wantAPIError(t, createFromSource(eu, src, dstPolicy), "AccessDeniedException",
		"User: arn:aws:iam::"+secondAccount+":root is not authorized to perform: dynamodb:AssociateTableReplica on resource: "+src+
			" because no resource-based policy allows the dynamodb:AssociateTableReplica action")
	putPolicy(t, us, src, policyOf(associateStatement(src, secondAccount)))
	wantAPIError(t, createFromSource(eu, src, dstPolicy), "AccessDeniedException",
		"User: replication.dynamodb.amazonaws.com is not authorized to perform: dynamodb:ReadDataForReplication on resource: "+src+
			" because no resource-based policy allows the dynamodb:ReadDataForReplication action for aws:SourceArn "+src)
	putPolicy(t, us, src, policyOf(associateStatement(src, secondAccount), replicationStatement(src, allReplication(), src)))
	wantAPIError(t, createFromSource(eu, src, dstPolicy), "AccessDeniedException",
		"User: replication.dynamodb.amazonaws.com is not authorized to perform: dynamodb:ReadDataForReplication on resource: "+src+
			" because no resource-based policy allows the dynamodb:ReadDataForReplication action for aws:SourceArn "+dst)
	putPolicy(t, us, src, policyOf(associateStatement(src, secondAccount), replicationStatement(src, allReplication(), src, dst)))
	wantAPIError(t, createFromSource(eu, src, ""), "AccessDeniedException",
		"User: replication.dynamodb.amazonaws.com is not authorized to perform: dynamodb:ReadDataForReplication on resource: "+dst+
			" because no resource-based policy allows the dynamodb:ReadDataForReplication action for aws:SourceArn "+src)
	if _, err := eu.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("glob")}); err == nil {
		t.Fatal("a refused replica exists")
	}
	if err := createFromSource(eu, src, dstPolicy); err != nil {
		t.Fatalf("CreateTable with both policies: %v", err)
	}
	got, err := eu.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(dst)})
	if err != nil || aws.ToString(got.Policy) != dstPolicy {
		t.Fatalf("the replica's policy: %v %v, want CreateTable's", got, err)
	}
	srv.settle(t)
	put(t, us, "glob", "a", "1")
	put(t, eu, "glob", "b", "1")
	srv.settle(t)
	if value(t, eu, "glob", "before") != "1" || value(t, eu, "glob", "a") != "1" || value(t, us, "glob", "b") != "1" {
		t.Fatal("replication with both policies in place: items missing")
	}
}

// TestMultiAccountGlobalTableNotAuthorized: a replica whose policy stops
// granting replication is REPLICATION_NOT_AUTHORIZED and replication to
// and from it stops until the grant is back, or for 20 hours, after which
// it is a regional table; UpdateTable is refused while a replica does not
// grant dynamodb:ReplicateSettings.
func TestMultiAccountGlobalTableNotAuthorized(t *testing.T) {
	srv := startAccountsServer(t)
	us, eu := srv.client("us-east-1"), secondClient(srv, "eu-west-1")
	ctx := context.Background()
	src, dst := sourceTable(t, us)
	dstPolicy := policyOf(replicationStatement(dst, allReplication(), src, dst))
	putPolicy(t, us, src, policyOf(associateStatement(src, secondAccount), replicationStatement(src, allReplication(), src, dst)))
	if err := createFromSource(eu, src, dstPolicy); err != nil {
		t.Fatal(err)
	}
	put(t, us, "glob", "a", "1")
	put(t, eu, "glob", "b", "1")
	srv.settle(t)

	putPolicy(t, eu, dst, policyOf(replicationStatement(dst, []string{"dynamodb:ReplicateSettings"}, src, dst)))
	r := describe(t, us, "glob").Replicas
	if len(r) != 1 || r[0].ReplicaStatus != types.ReplicaStatusReplicationNotAuthorized || r[0].ReplicaInaccessibleDateTime == nil ||
		r[0].ReplicaInaccessibleDateTime.Sub(srv.clk.Now()).Abs() > time.Second {
		t.Fatalf("us-east-1's replicas after eu-west-1 stopped granting replication: %+v, want REPLICATION_NOT_AUTHORIZED since now", r)
	}
	put(t, us, "glob", "a", "2")
	put(t, eu, "glob", "b", "2")
	srv.settle(t)
	if value(t, eu, "glob", "a") != "1" || value(t, us, "glob", "b") != "1" {
		t.Fatal("writes replicated while the replica does not grant replication")
	}
	putPolicy(t, eu, dst, policyOf(replicationStatement(dst, []string{"dynamodb:ReadDataForReplication", "dynamodb:WriteDataForReplication"}, src, dst)))
	if got := replicaStatuses(describe(t, us, "glob")); got["eu-west-1"] != types.ReplicaStatusActive {
		t.Fatalf("after the grant is back: %v, want eu-west-1 ACTIVE", got)
	}
	srv.settle(t)
	if value(t, eu, "glob", "a") != "2" || value(t, us, "glob", "b") != "2" {
		t.Fatal("the held writes did not replicate once the grant was back")
	}
	// Without ReplicateSettings on one replica, every replica's UpdateTable
	// is refused.
	_, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), DeletionProtectionEnabled: aws.Bool(true)})
	wantAPIError(t, err, "AccessDeniedException",
		"User: replication.dynamodb.amazonaws.com is not authorized to perform: dynamodb:ReplicateSettings on resource: "+dst+
			" because no resource-based policy allows the dynamodb:ReplicateSettings action for aws:SourceArn "+src)
	putPolicy(t, eu, dst, dstPolicy)
	if _, err := us.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("glob"), DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatalf("UpdateTable with every grant back: %v", err)
	}

	// A replica left not authorized for 20 hours is converted to a regional
	// table, with its items.
	putPolicy(t, eu, dst, policyOf(replicationStatement(dst, []string{"dynamodb:ReplicateSettings"}, src, dst)))
	srv.clk.Advance(ctx, 19*time.Hour)
	if got := replicaStatuses(describe(t, us, "glob")); got["eu-west-1"] != types.ReplicaStatusReplicationNotAuthorized {
		t.Fatalf("after 19 hours not authorized: %v, want eu-west-1 still REPLICATION_NOT_AUTHORIZED", got)
	}
	srv.clk.Advance(ctx, time.Hour)
	for region, c := range map[string]*dynamodb.Client{"us-east-1": us, "eu-west-1": eu} {
		if d := describe(t, c, "glob"); len(d.Replicas) != 0 {
			t.Errorf("%s after 20 hours not authorized: replicas %+v, want a regional table", region, d.Replicas)
		}
	}
	put(t, us, "glob", "later", "1")
	srv.settle(t)
	if value(t, eu, "glob", "later") != "" || value(t, eu, "glob", "a") != "2" {
		t.Error("eu-west-1 after its conversion: want its items kept and no later write from us-east-1")
	}
}

// TestBinaryMultiAccountNotAuthorizedRestart: the time a multi-account
// replica was found REPLICATION_NOT_AUTHORIZED is kept with the table, so
// that its 20 hours go on counting across a crash (SIGKILL) and restart:
// the replica describes the same ReplicaInaccessibleDateTime afterwards,
// writes stay held, and it is converted 20 hours after that time.
func TestBinaryMultiAccountNotAuthorizedRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "gt.db"), "--credentials",
		testKey + ":" + testSecret + ":000000000000," + secondKey + ":" + testSecret + ":" + secondAccount}
	p := startBinary(t, dir, nil, args...)
	clients := func(url string) (*dynamodb.Client, *dynamodb.Client) {
		eu := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(url), Region: "eu-west-1",
			Credentials: credentials.NewStaticCredentialsProvider(secondKey, testSecret, ""), Retryer: closedConnRetryer()}, readOnlyBodies)
		return (&server{URL: url}).client("us-east-1"), eu
	}
	us, eu := clients(p.URL)
	src, dst := sourceTable(t, us)
	putPolicy(t, us, src, policyOf(associateStatement(src, secondAccount), replicationStatement(src, allReplication(), src, dst)))
	if err := createFromSource(eu, src, policyOf(replicationStatement(dst, allReplication(), src, dst))); err != nil {
		t.Fatal(err)
	}
	postSettle(t, p.URL)
	putPolicy(t, eu, dst, policyOf(replicationStatement(dst, []string{"dynamodb:ReplicateSettings"}, src, dst)))
	since := func(c *dynamodb.Client) time.Time {
		t.Helper()
		r := describe(t, c, "glob").Replicas
		if len(r) != 1 || r[0].ReplicaStatus != types.ReplicaStatusReplicationNotAuthorized || r[0].ReplicaInaccessibleDateTime == nil {
			t.Fatalf("us-east-1's replicas: %+v, want eu-west-1 REPLICATION_NOT_AUTHORIZED", r)
		}
		return *r[0].ReplicaInaccessibleDateTime
	}
	before := since(us)
	put(t, us, "glob", "held", "1")
	time.Sleep(1100 * time.Millisecond) // a restarted count would start at least this much later
	p.kill()

	p = startBinary(t, dir, nil, args...)
	us, eu = clients(p.URL)
	if after := since(us); !after.Equal(before) {
		t.Fatalf("after SIGKILL and restart: not authorized since %v, want %v as before", after, before)
	}
	postSettle(t, p.URL)
	if value(t, eu, "glob", "held") != "" {
		t.Fatal("a write replicated to the replica not authorized, after the restart")
	}
	advanceClock(t, p.URL, 19*time.Hour) // a few seconds past 19 hours after it
	if d := describe(t, us, "glob"); len(d.Replicas) != 1 {
		t.Fatalf("before 20 hours: replicas %+v, want eu-west-1 still listed", d.Replicas)
	}
	advanceClock(t, p.URL, time.Hour)
	if d := describe(t, us, "glob"); len(d.Replicas) != 0 {
		t.Fatalf("20 hours after %v: replicas %+v, want a regional table", before, d.Replicas)
	}
	if value(t, eu, "glob", "before") != "1" {
		t.Error("the converted replica lost its items")
	}
	p.stopOK()
}
