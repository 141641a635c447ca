package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/ddblocal/ddblocal/auth"
)

// bobAccount is a second account for the cross-account tests.
var bob = auth.Credential{AccessKey: "AKIDBOB", Secret: "bob-secret", Account: "222222222222"}

// noPolicyAllows is DynamoDB's AccessDeniedException text for another
// account's resource that no resource-based policy opens to the caller.
func noPolicyAllows(account, action, resource string) string {
	return "User: arn:aws:iam::" + account + ":root is not authorized to perform: dynamodb:" + action +
		" on resource: " + resource + " because no resource-based policy allows the dynamodb:" + action + " action"
}

// explicitDeny is the text for a request a policy's Deny refuses.
func explicitDeny(account, action, resource string) string {
	return "User: arn:aws:iam::" + account + ":root is not authorized to perform: dynamodb:" + action +
		" on resource: " + resource + " with an explicit deny in a resource-based policy"
}

// streamsAs returns a DynamoDB Streams client signing with c's key.
func streamsAs(url string, c auth.Credential) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(url), Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider(c.AccessKey, c.Secret, ""), Retryer: aws.NopRetryer{}}, readOnlyStreamBodies)
}

// aliceTableForBob starts a verifying server knowing alice and bob,
// creates table name (pk S) as alice, and returns clients for both and the
// table's ARN.
func aliceTableForBob(t *testing.T, name string) (a, b *dynamodb.Client, arn string) {
	t.Helper()
	srv := startAuthServer(t, alice, bob)
	a = clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	b = clientAs(srv.URL, bob.AccessKey, bob.Secret, "")
	createTable(t, a, name, false)
	return a, b, "arn:aws:dynamodb:us-east-1:" + alice.Account + ":table/" + name
}

// putPolicy attaches doc to arn as c.
func putPolicy(t *testing.T, c *dynamodb.Client, arn, doc string) {
	t.Helper()
	if _, err := c.PutResourcePolicy(context.Background(), &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(doc)}); err != nil {
		t.Fatalf("PutResourcePolicy %s: %v", arn, err)
	}
}

// TestResourcePolicyIndexes: a Query or Scan of an index is judged on the
// index's ARN, which the table's policy must name: a grant on the table
// alone does not open its indexes, as in IAM.
func TestResourcePolicyIndexes(t *testing.T) {
	srv := startAuthServer(t, alice, bob)
	ctx := context.Background()
	a := clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	b := clientAs(srv.URL, bob.AccessKey, bob.Secret, "")
	createIndexed(t, a, "Orders", false, map[string]types.ScalarAttributeType{"status": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("ByStatus", []string{"status"}, nil, types.ProjectionTypeAll)}, nil)
	arn := "arn:aws:dynamodb:us-east-1:" + alice.Account + ":table/Orders"
	index := arn + "/index/ByStatus"
	if _, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: rvals("pk", s("o1"), "status", s("open"))}); err != nil {
		t.Fatal(err)
	}
	queryIndex := func(c *dynamodb.Client) (*dynamodb.QueryOutput, error) {
		return c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(arn), IndexName: aws.String("ByStatus"),
			KeyConditionExpression: aws.String("#s = :s"), ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: rvals(":s", s("open"))})
	}
	queryTable := func(c *dynamodb.Client) error {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(arn), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("o1"))})
		return err
	}

	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},
		"Action":["dynamodb:Query","dynamodb:Scan"],"Resource":"`+arn+`"}]}`)
	if err := queryTable(b); err != nil {
		t.Fatalf("Query of the table the policy names: %v", err)
	}
	_, err := queryIndex(b)
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "Query", index))

	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},
		"Action":["dynamodb:Query","dynamodb:Scan"],"Resource":["`+arn+`","`+arn+`/index/*"]},
		{"Effect":"Deny","Principal":"*","Action":"dynamodb:Scan","Resource":"`+index+`"}]}`)
	out, err := queryIndex(b)
	if err != nil {
		t.Fatalf("Query of an index the policy names: %v", err)
	}
	if out.Count != 1 {
		t.Errorf("Query of the index: got %d items, want 1", out.Count)
	}
	_, err = b.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(arn), IndexName: aws.String("ByStatus")})
	wantAPIError(t, err, "AccessDeniedException", explicitDeny(bob.Account, "Scan", index))
	// The Deny names the index only: the owner still scans the table, not the index.
	if _, err := a.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Orders")}); err != nil {
		t.Fatalf("the owner's Scan of the table: %v", err)
	}
	_, err = a.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Orders"), IndexName: aws.String("ByStatus")})
	wantAPIError(t, err, "AccessDeniedException", explicitDeny(alice.Account, "Scan", index))
}

// TestResourcePolicyStreams: a stream is judged by its own policy, never
// by its table's: another account reads it only once the stream's policy
// allows DescribeStream, GetShardIterator and GetRecords.
func TestResourcePolicyStreams(t *testing.T) {
	srv := startAuthServer(t, alice, bob)
	ctx := context.Background()
	a := clientAs(srv.URL, alice.AccessKey, alice.Secret, "")
	streamArn := createStreamTable(t, a, "Feed", types.StreamViewTypeNewImage)
	tableArn := "arn:aws:dynamodb:us-east-1:" + alice.Account + ":table/Feed"
	if _, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Feed"), Item: rvals("pk", s("a"), "sk", s("1"))}); err != nil {
		t.Fatal(err)
	}
	sb := streamsAs(srv.URL, bob)
	describe := func(c *dynamodbstreams.Client) (*dynamodbstreams.DescribeStreamOutput, error) {
		return c.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamArn)})
	}
	_, err := describe(sb)
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "DescribeStream", streamArn))

	// The table's policy, however wide, does not cover its stream.
	putPolicy(t, a, tableArn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},
		"Action":"dynamodb:*","Resource":["`+tableArn+`","`+tableArn+`/stream/*"]}]}`)
	_, err = describe(sb)
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "DescribeStream", streamArn))

	putPolicy(t, a, streamArn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+bob.Account+`:root"},
		"Action":["dynamodb:DescribeStream","dynamodb:GetShardIterator"],"Resource":"`+streamArn+`"}]}`)
	d, err := describe(sb)
	if err != nil {
		t.Fatalf("DescribeStream the stream's policy allows: %v", err)
	}
	it, err := sb.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(streamArn),
		ShardId: d.StreamDescription.Shards[0].ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatalf("GetShardIterator the stream's policy allows: %v", err)
	}
	_, err = sb.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "GetRecords", streamArn))

	putPolicy(t, a, streamArn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},
		"Action":"dynamodb:*","Resource":"`+streamArn+`"},
		{"Effect":"Deny","Principal":{"AWS":"`+alice.Account+`"},"Action":"dynamodb:GetRecords","Resource":"`+streamArn+`"}]}`)
	recs, err := sb.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		t.Fatalf("GetRecords the stream's policy allows: %v", err)
	}
	if len(recs.Records) != 1 {
		t.Errorf("GetRecords: got %d records, want 1", len(recs.Records))
	}
	_, err = streamsAs(srv.URL, alice).GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	wantAPIError(t, err, "AccessDeniedException", explicitDeny(alice.Account, "GetRecords", streamArn))
}

// TestCrossAccountTagsAndBackups: tags follow the table's policy (DynamoDB
// supports them across accounts); backups, point-in-time recovery and Time
// to Live do not cross accounts whatever the policy says.
func TestCrossAccountTagsAndBackups(t *testing.T) {
	ctx := context.Background()
	a, b, arn := aliceTableForBob(t, "Ledger")
	tag := []types.Tag{{Key: aws.String("team"), Value: aws.String("bob")}}

	_, err := b.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tag})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "TagResource", arn))
	_, err = b.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "ListTagsOfResource", arn))

	putPolicy(t, a, arn, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+bob.Account+`"},
		"Action":"dynamodb:*","Resource":"`+arn+`"},
		{"Effect":"Deny","Principal":"*","Action":"dynamodb:UntagResource","Resource":"`+arn+`"}]}`)
	if _, err := b.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tag}); err != nil {
		t.Fatalf("TagResource the policy allows: %v", err)
	}
	lt, err := a.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	if err != nil || len(lt.Tags) != 1 || aws.ToString(lt.Tags[0].Value) != "bob" {
		t.Fatalf("the owner's ListTagsOfResource: got %v, %v, want team=bob", lt, err)
	}
	_, err = a.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"team"}})
	wantAPIError(t, err, "AccessDeniedException", explicitDeny(alice.Account, "UntagResource", arn))

	// Operations without cross-account support, though the policy allows dynamodb:*.
	_, err = b.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(arn), BackupName: aws.String("theirs")})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "CreateBackup", arn))
	_, err = b.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(arn),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "UpdateTimeToLive", arn))
	_, err = b.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(arn)})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "DescribeContinuousBackups", arn))

	// Another account's table that does not exist is refused like one
	// without a policy: its absence is not revealed.
	missing := "arn:aws:dynamodb:us-east-1:" + alice.Account + ":table/Missing"
	_, err = b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(missing), Key: rvals("pk", s("k"))})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "GetItem", missing))
	_, err = b.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(missing)})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "ListTagsOfResource", missing))
	_, err = a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(missing), Key: rvals("pk", s("k"))})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found")

	// A backup has no policy: another account never reaches it, and never
	// reaches its own backup of the same id through the other's ARN.
	cb, err := a.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Ledger"), BackupName: aws.String("mine")})
	if err != nil {
		t.Fatal(err)
	}
	backupArn := aws.ToString(cb.BackupDetails.BackupArn)
	_, err = b.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(backupArn)})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "DescribeBackup", backupArn))
	_, err = b.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: aws.String(backupArn)})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "DeleteBackup", backupArn))
	_, err = b.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(backupArn), TargetTableName: aws.String("Stolen")})
	wantAPIError(t, err, "AccessDeniedException", noPolicyAllows(bob.Account, "RestoreTableFromBackup", backupArn))
	if _, err := a.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(backupArn)}); err != nil {
		t.Fatalf("the owner's DescribeBackup: %v", err)
	}
}
