package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// indexWarm renders the WarmThroughput DescribeTable gives each global
// index of table name, by index name.
func indexWarm(t *testing.T, c *dynamodb.Client, name string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, g := range describeIndexes(t, c, name).GlobalSecondaryIndexes {
		w := g.WarmThroughput
		if w == nil {
			got[aws.ToString(g.IndexName)] = "none"
			continue
		}
		got[aws.ToString(g.IndexName)] = fmt.Sprintf("%d/%d %s", aws.ToInt64(w.ReadUnitsPerSecond), aws.ToInt64(w.WriteUnitsPerSecond), w.Status)
	}
	return got
}

func wantIndexWarm(t *testing.T, c *dynamodb.Client, name string, want map[string]string) {
	t.Helper()
	got := indexWarm(t, c, name)
	for ix, w := range want {
		if got[ix] != w {
			t.Errorf("%s index %s WarmThroughput: got %s, want %s", name, ix, got[ix], w)
		}
	}
}

func warmOf(r, w *int64) *types.WarmThroughput {
	return &types.WarmThroughput{ReadUnitsPerSecond: r, WriteUnitsPerSecond: w}
}

// TestIndexWarmThroughput: a global index's WarmThroughput, given to
// CreateTable, to an UpdateTable Create or Update or to a restore's index
// override, is kept and described (an on-demand index serves at least
// 12,000 reads and 4,000 writes a second, a provisioned one its capacity:
// ack-api-quirks DDB-TABLE-155 and the Developer Guide's warm throughput
// examples); an Update below the current value is refused in the
// service's words (DDB-TABLE-155, -457), as is the table's own
// (DDB-TABLE-059); an empty WarmThroughput on an index at CreateTable is
// accepted (DDB-TABLE-457).
func TestIndexWarmThroughput(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	hot, cold, empty := gsiDef("hot", []string{"g"}, nil, types.ProjectionTypeAll), gsiDef("cold", []string{"g"}, nil, types.ProjectionTypeAll),
		gsiDef("empty", []string{"g"}, nil, types.ProjectionTypeKeysOnly)
	hot.WarmThroughput = warmOf(aws.Int64(20000), aws.Int64(5000))
	empty.WarmThroughput = &types.WarmThroughput{}
	createIndexed(t, c, "WarmIx", false, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS}, []types.GlobalSecondaryIndex{hot, cold, empty}, nil)
	wantIndexWarm(t, c, "WarmIx", map[string]string{"hot": "20000/5000 ACTIVE", "cold": "12000/4000 ACTIVE", "empty": "12000/4000 ACTIVE"})

	update := func(table, ix string, w *types.WarmThroughput) error {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
			{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String(ix), WarmThroughput: w}}}})
		return err
	}
	const lower = "for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported"
	wantAPIError(t, update("WarmIx", "hot", warmOf(aws.Int64(100), aws.Int64(100))), "ValidationException",
		invalidPrefix+"Requested ReadUnitsPerSecond "+fmt.Sprintf(lower, "index hot"))
	wantAPIError(t, update("WarmIx", "cold", warmOf(nil, aws.Int64(3999))), "ValidationException",
		invalidPrefix+"Requested WriteUnitsPerSecond "+fmt.Sprintf(lower, "index cold"))
	for _, w := range []*types.WarmThroughput{warmOf(aws.Int64(20000), aws.Int64(5000)), warmOf(aws.Int64(20001), nil)} {
		if err := update("WarmIx", "hot", w); err != nil {
			t.Fatalf("index Update WarmThroughput %+v: %v", w, err)
		}
	}
	wantIndexWarm(t, c, "WarmIx", map[string]string{"hot": "20001/5000 ACTIVE", "cold": "12000/4000 ACTIVE"})

	// The table's own WarmThroughput is never lowered either, 0 included.
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("WarmIx"), WarmThroughput: warmOf(aws.Int64(0), aws.Int64(0))})
	wantAPIError(t, err, "ValidationException", invalidPrefix+"Requested ReadUnitsPerSecond "+fmt.Sprintf(lower, "table"))

	// An index created by UpdateTable keeps what it asks for.
	added := gsiDef("added", []string{"g"}, nil, types.ProjectionTypeKeysOnly)
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("WarmIx"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: added.IndexName, KeySchema: added.KeySchema, Projection: added.Projection, WarmThroughput: warmOf(nil, aws.Int64(7000))}}}}); err != nil {
		t.Fatal(err)
	}
	wantIndexWarm(t, c, "WarmIx", map[string]string{"added": "12000/7000 ACTIVE"})
	provisionedIndexWarm(t, c)
	restoredIndexWarm(t, c)
}

// provisionedIndexWarm: a provisioned index serves its capacity, or the
// warm throughput asked for when more.
func provisionedIndexWarm(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	pt := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	asked, plain := gsiDef("asked", []string{"g"}, nil, types.ProjectionTypeAll), gsiDef("plain", []string{"g"}, nil, types.ProjectionTypeAll)
	asked.ProvisionedThroughput, asked.WarmThroughput = pt(50, 25), warmOf(aws.Int64(1987), aws.Int64(543))
	plain.ProvisionedThroughput = pt(5, 7)
	if _, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{TableName: aws.String("WarmProvIx"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: ixKeys([]string{"pk"}), ProvisionedThroughput: pt(20, 10), GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{asked, plain}}); err != nil {
		t.Fatal(err)
	}
	wantIndexWarm(t, c, "WarmProvIx", map[string]string{"asked": "1987/543 ACTIVE", "plain": "5/7 ACTIVE"})
}

// restoredIndexWarm: a restore keeps the source's index warm throughput,
// or takes an override's.
func restoredIndexWarm(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	b, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("WarmIx"), BackupName: aws.String("warm")})
	if err != nil {
		t.Fatal(err)
	}
	arn := b.BackupDetails.BackupArn
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String("WarmKept")}); err != nil {
		t.Fatal(err)
	}
	wantIndexWarm(t, c, "WarmKept", map[string]string{"hot": "20001/5000 ACTIVE", "cold": "12000/4000 ACTIVE"})
	o := gsiDef("cold", []string{"g"}, nil, types.ProjectionTypeAll)
	o.WarmThroughput = warmOf(aws.Int64(30000), nil)
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String("WarmOver"),
		GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{o}}); err != nil {
		t.Fatal(err)
	}
	wantIndexWarm(t, c, "WarmOver", map[string]string{"cold": "30000/4000 ACTIVE"})
}

// TestImportIndexWarmThroughput: ImportTable refuses a global index's
// WarmThroughput though its request syntax lists it (ScyllaDB's
// Alternator suite, run against DynamoDB, records the refusal), and
// creates nothing.
func TestImportIndexWarmThroughput(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	g := gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeAll)
	g.WarmThroughput = warmOf(aws.Int64(12000), aws.Int64(4000))
	_, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("bucket")},
		InputFormat:    types.InputFormatDynamodbJson,
		TableCreationParameters: &types.TableCreationParameters{TableName: aws.String("WarmImport"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema: ixKeys([]string{"pk"}), GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{g}},
	})
	wantAPIError(t, err, "ValidationException", "WarmThroughput is not supported on Global Secondary Indexes via ImportTable")
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("WarmImport")}); err == nil {
		t.Error("the refused import created its table")
	}
}
