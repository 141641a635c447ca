package integration

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// gatedStore is a bucket store whose objects cannot be read until open is
// closed: an import from it stays IN_PROGRESS, whatever the machine's speed.
type gatedStore struct {
	bucket.Store
	open chan struct{}
}

func (g gatedStore) Open(ctx context.Context, bkt, key string) (io.ReadCloser, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Store.Open(ctx, bkt, key)
}

// TestImportTableCreating: while an import creates its table (with a
// global index, loaded item by item, and without, built whole), the table
// is CREATING and answers as DynamoDB answers for a table being created:
// the item operations ResourceNotFoundException, UpdateTable, DeleteTable
// and UpdateTimeToLive ResourceInUseException, the backup operations
// TableNotFoundException, DescribeTimeToLive a ValidationException. Once
// the import ends the table is ACTIVE, holds every item, and takes all of
// them.
func TestImportTableCreating(t *testing.T) {
	dir := bucket.Dir{Root: t.TempDir()}
	writeSource(t, dir, "g", 30, 10)
	st := gatedStore{Store: dir, open: make(chan struct{})}
	var release sync.Once
	defer release.Do(func() { close(st.open) })
	c := startServer(t, table.Options{S3: st}).client("us-east-1")
	ctx := context.Background()
	arns := map[string]*string{}
	for _, name := range []string{"Indexed", "Whole"} {
		params := importParams(name)
		if name == "Whole" {
			params.GlobalSecondaryIndexes = nil
		}
		out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
			InputCompressionType: types.InputCompressionTypeGzip, TableCreationParameters: params,
			S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("in/")}})
		if err != nil {
			t.Fatal(err)
		}
		arns[name] = out.ImportTableDescription.ImportArn
		checkImportCreating(t, c, name)
	}
	release.Do(func() { close(st.open) })
	for name, arn := range arns {
		d := waitImport(t, c, arn)
		if !itemsSkipped(d) || d.ImportedItemCount != 30 || d.ErrorCount != 1 {
			t.Fatalf("%s: import %s, %d items, %d errors; want FAILED (ItemValidationError), 30, 1", name, d.ImportStatus, d.ImportedItemCount, d.ErrorCount)
		}
		desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if err != nil || desc.Table.TableStatus != types.TableStatusActive {
			t.Fatalf("%s after the import: %v, %v; want ACTIVE", name, desc, err)
		}
		if got := countItems(t, c, name); got != 30 {
			t.Errorf("%s holds %d items, want 30", name, got)
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{"pk": s("new"), "sk": s("x")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// checkImportCreating checks what table name answers while an import
// creates it.
func checkImportCreating(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	ctx := context.Background()
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil || desc.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("%s while imported: %v, %v; want CREATING", name, desc, err)
	}
	tn := aws.String(name)
	key := map[string]types.AttributeValue{"pk": s("g-1"), "sk": s("x")}
	const notFound = "Requested resource not found"
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: key, ConsistentRead: aws.Bool(true)})
	wantAPIError(t, err, "ResourceNotFoundException", notFound)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: key})
	wantAPIError(t, err, "ResourceNotFoundException", notFound)
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: tn})
	wantAPIError(t, err, "ResourceNotFoundException", notFound)
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("g-1")}})
	wantAPIError(t, err, "ResourceNotFoundException", notFound)
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		name: {{PutRequest: &types.PutRequest{Item: key}}}}})
	wantAPIError(t, err, "ResourceNotFoundException", notFound)
	_, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + name + `"`)})
	wantAPIError(t, err, "ResourceNotFoundException", "")
	inUse := "Attempt to change a resource which is still in use: Table is being created: " + name
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: tn, DeletionProtectionEnabled: aws.Bool(true)})
	wantAPIError(t, err, "ResourceInUseException", inUse)
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: tn})
	wantAPIError(t, err, "ResourceInUseException", inUse)
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: tn,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	wantAPIError(t, err, "ResourceInUseException", inUse)
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: tn,
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: "+name)
	_, err = c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: tn, BackupName: aws.String("bkp")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: "+name)
	_, err = c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: tn})
	wantAPIError(t, err, "ValidationException", "Cannot describe time to live while table is in CREATING state: Current table state is CREATING")
}
