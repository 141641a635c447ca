package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdateTableOneChangePerCall: the members of UpdateTable DynamoDB
// changes only alone or in fewer company, refused in its words and order
// of precedence as the ack-api-quirks catalogue recorded them from the
// service (DDB-TABLE-433 and DDB-TABLE-442), with nothing applied; and the
// two pairs it takes: PAY_PER_REQUEST with a stream, or with on-demand
// throughput.
func TestUpdateTableOneChangePerCall(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createProvisioned(t, c, "Combo", 1)
	stream := &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
	pt := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(2)}
	odt := &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100)}
	warm := &types.WarmThroughput{ReadUnitsPerSecond: aws.Int64(13000)}
	sse := &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}
	create := []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
		IndexName: aws.String("ByPk"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}}}
	const pre = "One or more parameter values were invalid: "
	for _, tc := range []struct {
		name string
		in   dynamodb.UpdateTableInput
		want string
	}{
		{"SSE and deletion protection", dynamodb.UpdateTableInput{SSESpecification: sse, DeletionProtectionEnabled: aws.Bool(true)},
			pre + "Server-Side Encryption modification must be the only operation in the request"},
		{"class and deletion protection", dynamodb.UpdateTableInput{TableClass: types.TableClassStandardInfrequentAccess, DeletionProtectionEnabled: aws.Bool(true)},
			pre + "TableClass modification must be the only operation in the request"},
		{"deletion protection and stream", dynamodb.UpdateTableInput{DeletionProtectionEnabled: aws.Bool(true), StreamSpecification: stream},
			pre + "DeletionProtection modification must be the only operation in the request"},
		{"deletion protection and billing", dynamodb.UpdateTableInput{DeletionProtectionEnabled: aws.Bool(true), BillingMode: types.BillingModePayPerRequest},
			pre + "DeletionProtection modification must be the only operation in the request"},
		{"warm and deletion protection", dynamodb.UpdateTableInput{WarmThroughput: warm, DeletionProtectionEnabled: aws.Bool(true)},
			pre + "DeletionProtection modification must be the only operation in the request"},
		{"warm and stream", dynamodb.UpdateTableInput{WarmThroughput: warm, StreamSpecification: stream},
			pre + "WarmThroughput must be the only operation in the request"},
		{"stream and on-demand", dynamodb.UpdateTableInput{StreamSpecification: stream, OnDemandThroughput: odt},
			pre + "OnDemandThroughput can only be combined with BillingMode in an UpdateTable request"},
		{"warm and on-demand", dynamodb.UpdateTableInput{WarmThroughput: warm, OnDemandThroughput: odt},
			pre + "OnDemandThroughput can only be combined with BillingMode in an UpdateTable request"},
		{"stream and throughput", dynamodb.UpdateTableInput{StreamSpecification: stream, ProvisionedThroughput: pt},
			pre + "You cannot modify stream status while updating table IOPS"},
		{"stream and PROVISIONED", dynamodb.UpdateTableInput{StreamSpecification: stream, BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: pt},
			pre + "You cannot modify stream status while updating table IOPS"},
		{"index and stream", dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: create, StreamSpecification: stream},
			pre + "You cannot create or delete index while changing stream status"},
		{"index and throughput", dynamodb.UpdateTableInput{GlobalSecondaryIndexUpdates: create, ProvisionedThroughput: pt},
			pre + "You cannot create or delete index while updating table IOPS"},
	} {
		in := tc.in
		in.TableName = aws.String("Combo")
		_, err := c.UpdateTable(ctx, &in)
		if err == nil {
			t.Fatalf("%s: accepted", tc.name)
		}
		wantAPIError(t, err, "ValidationException", tc.want)
	}
	// A request with only MultiRegionConsistency: the list leaves it out.
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Combo"), MultiRegionConsistency: types.MultiRegionConsistencyStrong})
	wantAPIError(t, err, "ValidationException", "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Combo")})
	if err != nil {
		t.Fatal(err)
	}
	if tb := d.Table; aws.ToBool(tb.DeletionProtectionEnabled) || tb.StreamSpecification != nil || len(tb.GlobalSecondaryIndexes) > 0 ||
		aws.ToInt64(tb.ProvisionedThroughput.ReadCapacityUnits) != 1 {
		t.Fatalf("after the refusals: got %+v, want the table unchanged", tb)
	}

	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Combo"),
		BillingMode: types.BillingModePayPerRequest, StreamSpecification: stream}); err != nil {
		t.Fatalf("PAY_PER_REQUEST with a stream: %v", err)
	}
	createProvisioned(t, c, "Combo2", 1)
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Combo2"),
		BillingMode: types.BillingModePayPerRequest, OnDemandThroughput: odt}); err != nil {
		t.Fatalf("PAY_PER_REQUEST with on-demand throughput: %v", err)
	}
	d, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Combo")})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.BillingModeSummary == nil || d.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || d.Table.StreamSpecification == nil {
		t.Errorf("PAY_PER_REQUEST with a stream: got %+v, want both applied", d.Table)
	}
}

// TestGSIUpdateRefusals: GlobalSecondaryIndexUpdates DynamoDB refuses, in
// its words (ack-api-quirks DDB-TABLE-442, DDB-TABLE-446 and, for
// throughput on an on-demand table, DDB-TABLE-152, recorded from the
// service).
func TestGSIUpdateRefusals(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	def := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	hash := func(name string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(name), KeyType: types.KeyTypeHash}}
	}
	keys := []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Idx"), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{def("pk"), def("sk"), def("l"), def("g")},
		KeySchema:            keys,
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("ByL"), Projection: all,
			KeySchema: []types.KeySchemaElement{keys[0], {AttributeName: aws.String("l"), KeyType: types.KeyTypeRange}}}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("ByG"), Projection: all, KeySchema: hash("g")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	create := func(name string) *types.CreateGlobalSecondaryIndexAction {
		return &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String(name), KeySchema: hash("g"), Projection: all}
	}
	del := func(name string) *types.DeleteGlobalSecondaryIndexAction {
		return &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(name)}
	}
	update := func(name string) *types.UpdateGlobalSecondaryIndexAction {
		return &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}
	}
	const pre = "One or more parameter values were invalid: "
	for _, tc := range []struct {
		name    string
		updates []types.GlobalSecondaryIndexUpdate
		code    string
		want    string
	}{
		{"two actions in one", []types.GlobalSecondaryIndexUpdate{{Create: create("New"), Delete: del("ByG")}}, "ValidationException",
			pre + "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object"},
		{"no action", []types.GlobalSecondaryIndexUpdate{{}}, "ValidationException",
			pre + "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"},
		{"one index twice", []types.GlobalSecondaryIndexUpdate{{Delete: del("ByG")}, {Update: update("ByG")}}, "ValidationException",
			pre + "Only one global secondary index update per index is allowed simultaneously. Index: ByG"},
		{"existing index", []types.GlobalSecondaryIndexUpdate{{Create: create("ByG")}}, "ValidationException",
			"Attempting to create an index which already exists"},
		{"unknown index deleted", []types.GlobalSecondaryIndexUpdate{{Delete: del("ghost")}}, "ResourceNotFoundException",
			"Requested resource not found: Index ghost for table Idx"},
		{"unknown index updated", []types.GlobalSecondaryIndexUpdate{{Update: update("ghost")}}, "ResourceNotFoundException",
			"Requested resource not found: Index ghost for table Idx"},
		{"local index deleted", []types.GlobalSecondaryIndexUpdate{{Delete: del("ByL")}}, "ValidationException",
			"Cannot delete an index that is not a GlobalSecondaryIndex: ByL"},
		{"throughput on demand", []types.GlobalSecondaryIndexUpdate{{Update: update("ByG")}}, "ValidationException",
			pre + "The only Updates for index: ByG when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput"},
	} {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Idx"), GlobalSecondaryIndexUpdates: tc.updates})
		if err == nil {
			t.Fatalf("%s: accepted", tc.name)
		}
		wantAPIError(t, err, tc.code, tc.want)
	}
}
