package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

func TestCreateDescribeWaitDelete(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)},
		Tags:                  []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TableDescription
	if got, want := aws.ToString(d.TableArn), "arn:aws:dynamodb:us-east-1:000000000000:table/Orders"; got != want {
		t.Errorf("TableArn: got %q, want %q", got, want)
	}
	if d.TableId == nil || len(*d.TableId) != 36 {
		t.Errorf("TableId: got %v, want a UUID", d.TableId)
	}
	if got := *d.ProvisionedThroughput.WriteCapacityUnits; got != 7 {
		t.Errorf("WriteCapacityUnits: got %d, want 7", got)
	}
	w := dynamodb.NewTableExistsWaiter(c)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")}, 5*time.Second); err != nil {
		t.Fatalf("TableExistsWaiter: %v", err)
	}
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	if err != nil {
		t.Fatal(err)
	}
	if desc.Table.TableStatus != types.TableStatusActive || desc.Table.CreationDateTime == nil || time.Since(*desc.Table.CreationDateTime) > time.Minute {
		t.Errorf("got status %s created %v", desc.Table.TableStatus, desc.Table.CreationDateTime)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.TableArn})
	if err != nil || len(tags.Tags) != 1 || *tags.Tags[0].Key != "team" {
		t.Fatalf("ListTagsOfResource: %+v, %v", tags, err)
	}

	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Orders"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	var inUse *types.ResourceInUseException
	if !errors.As(err, &inUse) {
		t.Fatalf("duplicate CreateTable: got %v, want ResourceInUseException", err)
	}
	wantAPIError(t, err, "ResourceInUseException", "Table already exists: Orders")

	del, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Orders")})
	if err != nil || del.TableDescription.TableStatus != types.TableStatusDeleting {
		t.Fatalf("DeleteTable: %+v, %v", del, err)
	}
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")})
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("DescribeTable after delete: got %v, want ResourceNotFoundException", err)
	}
	wantAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: Orders not found")
	if err := dynamodb.NewTableNotExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Orders")}, 5*time.Second); err != nil {
		t.Fatalf("TableNotExistsWaiter: %v", err)
	}
}

func TestTransientStatuses(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	srv := startServer(t, table.Options{TransientDelay: 2 * time.Second, Now: clock})
	c := srv.client("us-east-1")
	createTable(t, c, "Slow", false)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")})
	if err != nil || d.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("right after create: got %v, %v; want CREATING", d.Table.TableStatus, err)
	}
	now = now.Add(2 * time.Second)
	d, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")})
	if err != nil || d.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("after the delay: got %v, %v; want ACTIVE", d.Table.TableStatus, err)
	}
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Slow")}); err != nil {
		t.Fatal(err)
	}
	d, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")})
	if err != nil || d.Table.TableStatus != types.TableStatusDeleting {
		t.Fatalf("right after delete: got %+v, %v; want DELETING", d, err)
	}
	now = now.Add(2 * time.Second)
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Slow")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
}

func TestListTablesPaginationAndRegions(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, table.Options{})
	east, west := srv.client("us-east-1"), srv.client("eu-west-1")
	var want []string
	for i := 0; i < 25; i++ {
		name := fmt.Sprintf("t%03d", i)
		want = append(want, name)
		createTable(t, east, name, false)
	}
	createTable(t, west, "west-only", false)
	var got []string
	p := dynamodb.NewListTablesPaginator(east, &dynamodb.ListTablesInput{Limit: aws.Int32(10)})
	pages := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, out.TableNames...)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || pages != 3 {
		t.Fatalf("ListTables: got %d pages %v, want 3 pages %v", pages, got, want)
	}
	out, err := west.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 1 || out.TableNames[0] != "west-only" {
		t.Fatalf("other region: got %+v, %v", out, err)
	}
	_, err = east.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")
}

func TestCreateTableValidation(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	attrS := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	hash := types.KeySchemaElement{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}
	rangeKey := types.KeySchemaElement{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}
	ondemand := types.BillingModePayPerRequest
	tests := []struct {
		name string
		in   dynamodb.CreateTableInput
		msg  string
	}{
		{"short name", dynamodb.CreateTableInput{TableName: aws.String("ab"), BillingMode: ondemand,
			AttributeDefinitions: []types.AttributeDefinition{attrS("pk")}, KeySchema: []types.KeySchemaElement{hash}},
			"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"undefined key", dynamodb.CreateTableInput{TableName: aws.String("abc"), BillingMode: ondemand,
			AttributeDefinitions: []types.AttributeDefinition{attrS("pk")}, KeySchema: []types.KeySchemaElement{hash, rangeKey}},
			"Invalid KeySchema: Some index key attribute have no definition"}, // aws-cloudformation/cfn-lint#1037 quotes the CLI
		{"extra definition", dynamodb.CreateTableInput{TableName: aws.String("abc"), BillingMode: ondemand,
			AttributeDefinitions: []types.AttributeDefinition{attrS("pk"), attrS("x")}, KeySchema: []types.KeySchemaElement{hash}},
			"One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"range first", dynamodb.CreateTableInput{TableName: aws.String("abc"), BillingMode: ondemand,
			AttributeDefinitions: []types.AttributeDefinition{attrS("pk"), attrS("sk")}, KeySchema: []types.KeySchemaElement{rangeKey, hash}},
			"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"provisioned without throughput", dynamodb.CreateTableInput{TableName: aws.String("abc"),
			AttributeDefinitions: []types.AttributeDefinition{attrS("pk")}, KeySchema: []types.KeySchemaElement{hash}},
			"One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"},
		{"on-demand with throughput", dynamodb.CreateTableInput{TableName: aws.String("abc"), BillingMode: ondemand,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
			AttributeDefinitions:  []types.AttributeDefinition{attrS("pk")}, KeySchema: []types.KeySchemaElement{hash}},
			"One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"LSI without table range key", dynamodb.CreateTableInput{TableName: aws.String("abc"), BillingMode: ondemand,
			AttributeDefinitions:  []types.AttributeDefinition{attrS("pk"), attrS("x")},
			KeySchema:             []types.KeySchemaElement{hash},
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: []types.KeySchemaElement{hash, {AttributeName: aws.String("x"), KeyType: types.KeyTypeRange}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}},
			"One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.CreateTable(ctx, &tt.in)
			wantAPIError(t, err, "ValidationException", tt.msg)
		})
	}
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(out.TableNames) != 0 {
		t.Fatalf("failed creates left tables behind: %v, %v", out.TableNames, err)
	}
}

func TestUpdateTableAndDeletionProtection(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Guarded", false)
	out, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Guarded"), DeletionProtectionEnabled: aws.Bool(true)})
	if err != nil || !aws.ToBool(out.TableDescription.DeletionProtectionEnabled) {
		t.Fatalf("UpdateTable: %+v, %v", out, err)
	}
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Guarded")})
	wantAPIError(t, err, "ValidationException", "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	out, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Guarded"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)}})
	// The summary now says PROVISIONED, still with the time it was last on demand.
	if err != nil || out.TableDescription.BillingModeSummary.BillingMode != types.BillingModeProvisioned || *out.TableDescription.ProvisionedThroughput.ReadCapacityUnits != 3 {
		t.Fatalf("switch to provisioned: %+v, %v", out, err)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Guarded"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)}})
	wantAPIError(t, err, "ValidationException", "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 3. Requested ReadCapacityUnits: 3. Current WriteCapacityUnits provisioned for the table: 4. Requested WriteCapacityUnits: 4. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Guarded"), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Guarded")}); err != nil {
		t.Fatal(err)
	}
}

func TestTagsLimitsBackups(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Tagged", false)
	arn := aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Tagged")
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{
		{Key: aws.String("b"), Value: aws.String("2")}, {Key: aws.String("a"), Value: aws.String("1")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"b", "missing"}}); err != nil {
		t.Fatal(err)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: arn})
	if err != nil || len(tags.Tags) != 1 || *tags.Tags[0].Key != "a" || *tags.Tags[0].Value != "1" {
		t.Fatalf("tags: %+v, %v", tags, err)
	}
	_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Nope")})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	lim, err := c.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	if err != nil || aws.ToInt64(lim.TableMaxReadCapacityUnits) != 40000 {
		t.Fatalf("DescribeLimits: %+v, %v", lim, err)
	}
	b, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Tagged")})
	if err != nil || b.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Fatalf("DescribeContinuousBackups: %+v, %v", b, err)
	}
	_, err = c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Nope")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: Nope")
	ep, err := c.DescribeEndpoints(ctx, &dynamodb.DescribeEndpointsInput{})
	if err != nil || len(ep.Endpoints) != 1 || aws.ToString(ep.Endpoints[0].Address) != "localhost:8000" {
		t.Fatalf("DescribeEndpoints: %+v, %v", ep, err)
	}
}
