package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestTableInUse: with transient statuses on, UpdateTable and DeleteTable on
// a CREATING or UPDATING table, and UpdateTimeToLive on a CREATING one, are
// refused with DynamoDB's ResourceInUseException, and the refused update
// changes nothing.
func TestTableInUse(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, TransientDelay: 2 * time.Second})
	c := srv.client("us-east-1")
	createTable(t, c, "Busy", false)
	const (
		creating = "Attempt to change a resource which is still in use: Table is being created: Busy"
		updating = "Attempt to change a resource which is still in use: Table is being updated: Busy"
	)
	provisioned := func(rcu int64) error {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Busy"), BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(rcu), WriteCapacityUnits: aws.Int64(1)}})
		return err
	}
	deleteTable := func() error {
		_, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Busy")})
		return err
	}
	// A request that changes nothing is refused first, in DynamoDB's words.
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Busy")})
	wantAPIError(t, err, "ValidationException", "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	wantAPIError(t, provisioned(5), "ResourceInUseException", creating)
	wantAPIError(t, deleteTable(), "ResourceInUseException", creating)
	describeTTL := func() error {
		_, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("Busy")})
		return err
	}
	wantAPIError(t, describeTTL(), "ValidationException", "Cannot describe time to live while table is in CREATING state: Current table state is CREATING")
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Busy"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	wantAPIError(t, err, "ResourceInUseException", creating)
	clock.Advance(2 * time.Second)
	if err := provisioned(5); err != nil {
		t.Fatalf("UpdateTable on ACTIVE: %v", err)
	}
	wantAPIError(t, provisioned(7), "ResourceInUseException", updating)
	wantAPIError(t, deleteTable(), "ResourceInUseException", updating)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Busy")})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToInt64(d.Table.ProvisionedThroughput.ReadCapacityUnits); got != 5 || d.Table.TableStatus != types.TableStatusUpdating {
		t.Errorf("after the refused update: got %d RCU, %s; want 5, UPDATING", got, d.Table.TableStatus)
	}
	clock.Advance(2 * time.Second)
	if err := provisioned(7); err != nil {
		t.Errorf("UpdateTable once ACTIVE again: %v", err)
	}
	clock.Advance(2 * time.Second)
	if err := deleteTable(); err != nil {
		t.Errorf("DeleteTable once ACTIVE: %v", err)
	}
	wantAPIError(t, describeTTL(), "ValidationException", "Cannot describe time to live while table is in DELETING state: Current table state is DELETING")
	// Deleting a DELETING table is no error, as the API reference says.
	again, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Busy")})
	if err != nil || again.TableDescription.TableStatus != types.TableStatusDeleting || again.TableDescription.KeySchema != nil {
		t.Errorf("DeleteTable while DELETING: got %+v, %v; want DeleteTable's DELETING description", again, err)
	}
	clock.Advance(2 * time.Second)
	wantAPIError(t, deleteTable(), "ResourceNotFoundException", "Requested resource not found: Table: Busy not found")
}

// TestOneIndexChangePerUpdate: creating or deleting two global indexes in
// one UpdateTable is DynamoDB's LimitExceededException, and neither change
// is made.
func TestOneIndexChangePerUpdate(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "TwoIx", false, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeAll)}, nil)
	create := func(name string) types.GlobalSecondaryIndexUpdate {
		return types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{IndexName: aws.String(name),
			KeySchema: ixKeys([]string{"g"}), Projection: ixProjection(types.ProjectionTypeKeysOnly)}}
	}
	drop := types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byG")}}
	const msg = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
	for _, updates := range [][]types.GlobalSecondaryIndexUpdate{{create("one"), create("two")}, {create("one"), drop}} {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("TwoIx"),
			AttributeDefinitions:        []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
			GlobalSecondaryIndexUpdates: updates})
		var le *types.LimitExceededException
		if !errors.As(err, &le) {
			t.Errorf("%d index changes: got %v, want LimitExceededException", len(updates), err)
		}
		wantAPIError(t, err, "LimitExceededException", msg)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("TwoIx")})
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Table.GlobalSecondaryIndexes; len(g) != 1 || aws.ToString(g[0].IndexName) != "byG" {
		t.Errorf("indexes after the refused updates: got %d, want only byG", len(g))
	}
}
