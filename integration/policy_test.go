package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/ddblocal/ddblocal/table"
)

const testPolicy = `{"Version":"2012-10-17","Statement":[{"Sid":"read","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::000000000000:root"},"Action":"dynamodb:GetItem","Resource":"arn:aws:dynamodb:us-east-1:000000000000:table/Pol"}]}`

// TestResourcePolicy stores, replaces and deletes a table's policy with
// revision checks, and checks that every refused request leaves the stored
// policy as it was.
func TestResourcePolicy(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createTable(t, c, "Pol", false)
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Pol"
	_, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+arn)

	put, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(testPolicy),
		ExpectedRevisionId: aws.String("NO_POLICY")})
	if err != nil {
		t.Fatalf("PutResourcePolicy: %v", err)
	}
	rev1 := aws.ToString(put.RevisionId)
	get, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil || aws.ToString(get.Policy) != testPolicy || aws.ToString(get.RevisionId) != rev1 || rev1 == "" {
		t.Fatalf("GetResourcePolicy: got %+v, %v; want the document with revision %q", get, err, rev1)
	}

	refusePolicyPuts(t, c, clock, arn, rev1)
	get, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil || aws.ToString(get.RevisionId) != rev1 {
		t.Fatalf("after refused puts: got %+v, %v; want revision %s unchanged", get, err, rev1)
	}

	put, err = c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(testPolicy), ExpectedRevisionId: aws.String(rev1)})
	if err != nil || aws.ToString(put.RevisionId) == rev1 {
		t.Fatalf("conditional replace: got %+v, %v; want a new revision", put, err)
	}
	rev2 := aws.ToString(put.RevisionId)
	_, err = c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn), ExpectedRevisionId: aws.String(rev1)})
	wantAPIError(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id "+rev1+", but the policy associated to target table Pol has revision id "+rev2+".")
	del, err := c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn), ExpectedRevisionId: aws.String(rev2)})
	if err != nil || aws.ToString(del.RevisionId) != rev2 {
		t.Fatalf("DeleteResourcePolicy: got %+v, %v; want revision %s", del, err, rev2)
	}
	_, err = c.DeleteResourcePolicy(ctx, &dynamodb.DeleteResourcePolicyInput{ResourceArn: aws.String(arn)})
	wantAPIError(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+arn)
	policyFromCreateTable(t, c)
}

// refusePolicyPuts sends PutResourcePolicy requests on table arn, whose
// policy has revision rev1, that are refused, each with its error.
func refusePolicyPuts(t *testing.T, c *dynamodb.Client, clock *fakeClock, arn, rev1 string) {
	t.Helper()
	ctx := context.Background()
	refused := []struct {
		in   dynamodb.PutResourcePolicyInput
		code string
		msg  string
	}{
		{dynamodb.PutResourcePolicyInput{ExpectedRevisionId: aws.String("NO_POLICY")}, "PolicyNotFoundException",
			"Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table Pol, but a policy exists with revision id " + rev1 + "."},
		{dynamodb.PutResourcePolicyInput{ExpectedRevisionId: aws.String("123")}, "PolicyNotFoundException",
			"Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id 123, but the policy associated to target table Pol has revision id " + rev1 + "."},
		{dynamodb.PutResourcePolicyInput{Policy: aws.String("{not json")}, "ValidationException",
			"One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json"},
		{dynamodb.PutResourcePolicyInput{Policy: aws.String(`{"Statement":[]}`)}, "ValidationException",
			"One or more parameter values were invalid: Invalid policy document: Could not parse the policy: Statement is empty!"},
		{dynamodb.PutResourcePolicyInput{Policy: aws.String(`{"Statement":[{"Effect":"Allow"}]}`)}, "ValidationException",
			"One or more parameter values were invalid: Invalid policy document: Missing required field Resource"},
		{dynamodb.PutResourcePolicyInput{Policy: aws.String(`{"Statement":"` + strings.Repeat("x", 20480) + `"}`)}, "ValidationException",
			"One or more parameter values were invalid: Maximum policy size of 20480 bytes exceeded"},
		{dynamodb.PutResourcePolicyInput{ResourceArn: aws.String("table/Pol")}, "ValidationException",
			"One or more parameter values were invalid: ARNs must start with 'arn:': table/Pol"},
		{dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn + "/index/byX")}, "ValidationException",
			"One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " + arn + "/index/byX"},
		{dynamodb.PutResourcePolicyInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Nope")}, "ResourceNotFoundException",
			"Requested resource not found: Table: Nope not found"},
	}
	for _, tc := range refused {
		in := tc.in
		if in.ResourceArn == nil {
			in.ResourceArn = aws.String(arn)
		}
		if in.Policy == nil {
			in.Policy = aws.String(testPolicy)
		}
		clock.Advance(time.Millisecond)
		_, err := c.PutResourcePolicy(ctx, &in)
		wantAPIError(t, err, tc.code, tc.msg)
	}
}

// policyFromCreateTable checks that CreateTable's ResourcePolicy is stored
// as PutResourcePolicy stores it.
func policyFromCreateTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Pol2"), ResourcePolicy: aws.String(testPolicy),
		BillingMode: "PAY_PER_REQUEST", AttributeDefinitions: bkAttr("pk"), KeySchema: ixKeys([]string{"pk"})})
	if err != nil {
		t.Fatal(err)
	}
	get, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Pol2")})
	if err != nil || aws.ToString(get.Policy) != testPolicy {
		t.Fatalf("policy from CreateTable: got %+v, %v", get, err)
	}
}

// TestDescribeKinesisStreamingDestination answers what DynamoDB answers for a
// table that streams nowhere.
func TestDescribeKinesisStreamingDestination(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Plain", false)
	out, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("Plain")})
	if err != nil || aws.ToString(out.TableName) != "Plain" || out.KinesisDataStreamDestinations == nil || len(out.KinesisDataStreamDestinations) != 0 {
		t.Fatalf("DescribeKinesisStreamingDestination: got %+v, %v; want Plain with an empty list", out, err)
	}
	_, err = c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Nope not found")
}

// TestStreamResourcePolicy keeps a stream's policy apart from its table's.
func TestStreamResourcePolicy(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createOrders(t, c, "Streamed")
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Streamed")})
	if err != nil || dt.Table.LatestStreamArn == nil {
		t.Fatalf("DescribeTable: %+v, %v; want a stream", dt, err)
	}
	stream := dt.Table.LatestStreamArn
	if _, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: stream, Policy: aws.String(testPolicy)}); err != nil {
		t.Fatalf("PutResourcePolicy on the stream: %v", err)
	}
	if got, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: stream}); err != nil || aws.ToString(got.Policy) != testPolicy {
		t.Fatalf("GetResourcePolicy on the stream: got %+v, %v", got, err)
	}
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: dt.Table.TableArn})
	wantAPIError(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+aws.ToString(dt.Table.TableArn))
	old := aws.ToString(dt.Table.TableArn) + "/stream/2020-01-01T00:00:00.000"
	_, err = c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(old)})
	wantAPIError(t, err, "PolicyNotFoundException", "Resource-based policy not found for the provided ResourceArn: "+old)
	_, err = c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(old), Policy: aws.String(testPolicy)})
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: "+old)
}
