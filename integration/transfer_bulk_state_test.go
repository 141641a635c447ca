package integration

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestBulkPutItemsTableState: as the developer guide's bulk put items
// considerations say, a load starts on an ACTIVE table or on one UPDATING
// for a change that does not conflict with it (here its billing mode),
// but not while the table is being created or restored, nor while it
// creates a global secondary index; ResourceInUseException, the type
// DynamoDB answers for a table in use (the guide names none).
func TestBulkPutItemsTableState(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	st := bucket.Dir{Root: t.TempDir()}
	putObject(t, st, "src", "in/1.json", `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"v":{"S":"x"}}}`+"\n")
	srv := startServer(t, table.Options{Now: clock.Now, TransientDelay: 2 * time.Second, S3: st})
	c := srv.client("us-east-1")
	start := func(name, token string) error {
		out, err := c.StartBulkPutItems(ctx, bulkInput(name, "in/", token))
		if err == nil {
			if d := waitBulk(t, c, out.BulkOperationDescription.BulkOperationArn); d.BulkOperationStatus != types.BulkOperationStatusCompleted {
				t.Fatalf("load %s ended %s", token, d.BulkOperationStatus)
			}
		}
		return err
	}
	const inUse = "Attempt to change a resource which is still in use: "
	createTable(t, c, "Busy", true)
	wantAPIError(t, start("Busy", "creating"), "ResourceInUseException", inUse+"Table is being created: Busy")

	clock.Advance(2 * time.Second)
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Busy"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	wantTableStatus(t, c, "Busy", types.TableStatusUpdating)
	if err := start("Busy", "billing"); err != nil {
		t.Fatalf("a load into a table UPDATING its billing mode: %v", err)
	}

	clock.Advance(2 * time.Second)
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Busy"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byV"), KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, start("Busy", "index"), "ResourceInUseException", inUse+"Index is being created: byV (table Busy)")
	clock.Advance(2 * time.Second)
	waitFor(t, "the index ACTIVE", func() bool {
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Busy")})
		return err == nil && d.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive
	})
	if err := start("Busy", "index-built"); err != nil {
		t.Fatalf("a load once the index is built: %v", err)
	}

	clock.Advance(2 * time.Second)
	b, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Busy"), BackupName: aws.String("busy-backup")})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: b.BackupDetails.BackupArn,
		TargetTableName: aws.String("Restored")}); err != nil {
		t.Fatal(err)
	}
	wantAPIError(t, start("Restored", "restoring"), "ResourceInUseException", inUse+"Table is being created: Restored")
	clock.Advance(2 * time.Second)
	if err := start("Restored", "restored"); err != nil {
		t.Fatalf("a load once the restore is done: %v", err)
	}
}

// wantTableStatus fails unless DescribeTable reports name in status.
func wantTableStatus(t *testing.T, c *dynamodb.Client, name string, status types.TableStatus) {
	t.Helper()
	d, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Table.TableStatus != status {
		t.Fatalf("%s is %s, want %s", name, d.Table.TableStatus, status)
	}
}
