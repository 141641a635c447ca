package integration

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

var backupARN = regexp.MustCompile(`^arn:aws:dynamodb:us-east-1:000000000000:table/Orders/backup/\d{14}-[0-9a-f]{8}$`)

// TestBackupRestore takes a backup, changes the table, and restores the
// backup: with every index, then with overrides.
func TestBackupRestore(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createOrders(t, c, "Orders")
	putOrder(t, c, "Orders", "a", "10", "open")
	putOrder(t, c, "Orders", "b", "20", "shipped")
	cb, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Orders"), BackupName: aws.String("nightly")})
	if err != nil {
		t.Fatalf("CreateBackup: %v", err)
	}
	bd := cb.BackupDetails
	arn := aws.ToString(bd.BackupArn)
	if !backupARN.MatchString(arn) || bd.BackupStatus != types.BackupStatusCreating || bd.BackupType != types.BackupTypeUser ||
		!aws.ToTime(bd.BackupCreationDateTime).Equal(clock.Now()) || aws.ToString(bd.BackupName) != "nightly" || bd.BackupExpiryDateTime != nil {
		t.Errorf("CreateBackup details: got %s %s %s %s %s %v", arn, bd.BackupStatus, bd.BackupType, aws.ToTime(bd.BackupCreationDateTime), aws.ToString(bd.BackupName), bd.BackupExpiryDateTime)
	}
	putOrder(t, c, "Orders", "a", "11", "closed")
	deleteOrder(t, c, "Orders", "b")

	db, err := c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	desc := db.BackupDescription
	src, f := desc.SourceTableDetails, desc.SourceTableFeatureDetails
	if desc.BackupDetails.BackupStatus != types.BackupStatusAvailable || aws.ToString(src.TableName) != "Orders" ||
		aws.ToInt64(src.ItemCount) != 2 || aws.ToInt64(src.ProvisionedThroughput.ReadCapacityUnits) != 5 || src.BillingMode != types.BillingModeProvisioned {
		t.Errorf("DescribeBackup: got status %s, source %+v", desc.BackupDetails.BackupStatus, src)
	}
	if len(f.GlobalSecondaryIndexes) != 1 || len(f.LocalSecondaryIndexes) != 1 || f.StreamDescription == nil || f.TimeToLiveDescription != nil {
		t.Errorf("SourceTableFeatureDetails: got %+v", f)
	}

	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Copy")}); err != nil {
		t.Fatalf("RestoreTableFromBackup: %v", err)
	}
	wantOrders(t, c, "Copy", "", "a:10:open", "b:20:shipped")
	wantOrders(t, c, "Copy", "byAmount", "a:10:open", "b:20:shipped")
	wantOrders(t, c, "Copy", "byStatus", "a:10:open")
	wantOrders(t, c, "Orders", "", "a:11:closed")
	checkRestoredSettings(t, c, "Copy")

	// Overrides: on demand, no global index, the local one renamed.
	out, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(arn), TargetTableName: aws.String("Lean"),
		BillingModeOverride: types.BillingModePayPerRequest, GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{},
		LocalSecondaryIndexOverride: []types.LocalSecondaryIndex{lsiDef("byAmt", "amt", types.ProjectionTypeAll)},
		SSESpecificationOverride:    &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms}})
	if err != nil {
		t.Fatalf("RestoreTableFromBackup with overrides: %v", err)
	}
	d := out.TableDescription
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest || len(d.GlobalSecondaryIndexes) != 0 ||
		len(d.LocalSecondaryIndexes) != 1 || aws.ToString(d.LocalSecondaryIndexes[0].IndexName) != "byAmt" || d.SSEDescription == nil {
		t.Errorf("restored with overrides: got %+v", d)
	}
	wantOrders(t, c, "Lean", "", "a:10:open", "b:20:shipped")
}

// TestBackupErrors checks the refusals of the backup operations, and that
// they change nothing.
func TestBackupErrors(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createOrders(t, c, "Orders")
	putOrder(t, c, "Orders", "a", "10", "open")
	_, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Nope"), BackupName: aws.String("x11")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: Nope")
	_, err = c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Orders"), BackupName: aws.String("bad name")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value 'bad name' at 'backupName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	missing := "arn:aws:dynamodb:us-east-1:000000000000:table/Orders/backup/01767225600000-0badf00d"
	_, err = c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(missing)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+missing)
	_, err = c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: aws.String(missing)})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+missing)
	_, err = c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: aws.String(missing), TargetTableName: aws.String("Copy")})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+missing)
	_, err = c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Orders")})
	wantAPIError(t, err, "ValidationException", "Invalid Backup ARN")
	_, err = c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(strings.Replace(missing, ":dynamodb:", ":s3:", 1))})
	wantAPIError(t, err, "ValidationException", "Invalid Request: BackupArn is not valid")
	_, err = c.ListBackups(ctx, &dynamodb.ListBackupsInput{ExclusiveStartBackupArn: aws.String(strings.Replace(missing, "us-east-1", "eu-west-1", 1))})
	wantAPIError(t, err, "ValidationException", "Invalid Request: The supplied ExclusiveStartBackupArn does not match the region")

	cb, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Orders"), BackupName: aws.String("bk1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := cb.BackupDetails.BackupArn
	restore := func(in dynamodb.RestoreTableFromBackupInput) error {
		in.BackupArn = arn
		_, err := c.RestoreTableFromBackup(ctx, &in)
		return err
	}
	err = restore(dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("Orders")})
	wantAPIError(t, err, "TableAlreadyExistsException", "Table already exists: Orders")
	err = restore(dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("Copy"), BillingModeOverride: types.BillingModePayPerRequest,
		ProvisionedThroughputOverride: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Cannot override ProvisionedThroughput if BillingMode is overridden to PAY_PER_REQUEST")
	err = restore(dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("Copy"),
		OnDemandThroughputOverride: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(10)}})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Cannot override MaxReadRequestUnits for OnDemandThroughput unless BillingModeOverride is PAY_PER_REQUEST")
	gsi := types.GlobalSecondaryIndex{IndexName: aws.String("byStatus"), KeySchema: ixKeys([]string{"status"}), Projection: ixProjection(types.ProjectionTypeAll)}
	err = restore(dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("Copy"), GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{gsi}})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Must specify provisioned throughput for index byStatus")
	gsi.Projection = ixProjection(types.ProjectionTypeKeysOnly)
	err = restore(dynamodb.RestoreTableFromBackupInput{TargetTableName: aws.String("Copy"), GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{gsi}})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Index byStatus does not match a secondary index that existed in the source table and cannot be created during the restore operation")
	_, err = c.ListBackups(ctx, &dynamodb.ListBackupsInput{TimeRangeLowerBound: aws.Time(time.Unix(2, 0)), TimeRangeUpperBound: aws.Time(time.Unix(1, 0))})
	wantAPIError(t, err, "ValidationException", "One or more parameter values were invalid: Time range lower bound must be less than or equal to upper bound")

	lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || !slices.Equal(lt.TableNames, []string{"Orders"}) {
		t.Fatalf("tables after rejected restores: got %v, %v; want [Orders]", lt.TableNames, err)
	}
	lb, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{})
	if err != nil || len(lb.BackupSummaries) != 1 {
		t.Fatalf("backups after rejected calls: got %+v, %v; want b1 only", lb, err)
	}
	wantOrders(t, c, "Orders", "", "a:10:open")
}

// TestListBackups checks ListBackups' order, filters and pages, and the
// SYSTEM backup that deleting a table with point-in-time recovery leaves.
func TestListBackups(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createTable(t, c, "One", false)
	createTable(t, c, "Two", false)
	var arns []string
	for i, name := range []string{"One", "Two", "One", "Two", "One"} {
		clock.Advance(time.Second)
		cb, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String(name), BackupName: aws.String(fmt.Sprintf("bk%d", i))})
		if err != nil {
			t.Fatal(err)
		}
		arns = append(arns, aws.ToString(cb.BackupDetails.BackupArn))
	}
	list := func(in dynamodb.ListBackupsInput) []string { return listBackupNames(t, c, in) }
	start := newFakeClock().Now()
	for _, tc := range []struct {
		name string
		in   dynamodb.ListBackupsInput
		want []string
	}{
		{"all", dynamodb.ListBackupsInput{}, []string{"bk0", "bk1", "bk2", "bk3", "bk4"}},
		{"pages of 2", dynamodb.ListBackupsInput{Limit: aws.Int32(2)}, []string{"bk0", "bk1", "bk2", "bk3", "bk4"}},
		{"table", dynamodb.ListBackupsInput{TableName: aws.String("Two")}, []string{"bk1", "bk3"}},
		{"[2s, 4s)", dynamodb.ListBackupsInput{TimeRangeLowerBound: aws.Time(start.Add(2 * time.Second)),
			TimeRangeUpperBound: aws.Time(start.Add(4 * time.Second))}, []string{"bk1", "bk2"}},
		{"after bk2", dynamodb.ListBackupsInput{ExclusiveStartBackupArn: aws.String(arns[2])}, []string{"bk3", "bk4"}},
		{"system", dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem}, nil},
	} {
		if got := list(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	out, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{Limit: aws.Int32(5)})
	if err != nil || out.LastEvaluatedBackupArn != nil {
		t.Errorf("Limit equal to the matches: got LastEvaluatedBackupArn %v, %v; want none", aws.ToString(out.LastEvaluatedBackupArn), err)
	}

	checkSystemBackupAndDelete(t, c, clock, arns)
}

// listBackupNames lists the names of the backups in, following every page.
func listBackupNames(t *testing.T, c *dynamodb.Client, in dynamodb.ListBackupsInput) []string {
	t.Helper()
	var names []string
	for {
		out, err := c.ListBackups(context.Background(), &in)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range out.BackupSummaries {
			names = append(names, aws.ToString(b.BackupName))
		}
		if out.LastEvaluatedBackupArn == nil {
			return names
		}
		in.ExclusiveStartBackupArn = out.LastEvaluatedBackupArn
	}
}

// checkSystemBackupAndDelete is TestListBackups' second half: table One's
// SYSTEM backup on deletion, and DeleteBackup of the user backup arns[1].
func checkSystemBackupAndDelete(t *testing.T, c *dynamodb.Client, clock *fakeClock, arns []string) {
	t.Helper()
	ctx := context.Background()
	list := func(in dynamodb.ListBackupsInput) []string { return listBackupNames(t, c, in) }
	// Deleting a table with PITR leaves name$DeletedTableBackup, which
	// cannot be deleted and restores the table as it was.
	putOrder(t, c, "One", "x", "1", "open")
	enablePITR(t, c, "One", 0)
	clock.Advance(time.Second)
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("One")}); err != nil {
		t.Fatal(err)
	}
	sys, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem})
	if err != nil || len(sys.BackupSummaries) != 1 {
		t.Fatalf("SYSTEM backups: got %+v, %v; want one", sys, err)
	}
	b := sys.BackupSummaries[0]
	if aws.ToString(b.BackupName) != "One$DeletedTableBackup" || b.BackupType != types.BackupTypeSystem ||
		!aws.ToTime(b.BackupExpiryDateTime).Equal(clock.Now().Add(35*24*time.Hour)) {
		t.Errorf("SYSTEM backup: got %s %s expiry %s", aws.ToString(b.BackupName), b.BackupType, aws.ToTime(b.BackupExpiryDateTime))
	}
	if got := list(dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterAll, TableName: aws.String("One")}); !slices.Equal(got, []string{"bk0", "bk2", "bk4", "One$DeletedTableBackup"}) {
		t.Errorf("ALL of One: got %v", got)
	}
	_, err = c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: b.BackupArn})
	wantAPIError(t, err, "ValidationException", "Invalid Request: User is not allowed to delete the system backup with arn "+aws.ToString(b.BackupArn)+". It will automatically expire on 2026-02-05T00:00:06Z")
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: b.BackupArn, TargetTableName: aws.String("One")}); err != nil {
		t.Fatalf("restore the deleted table: %v", err)
	}
	if got := getPK(t, c, "One", "o"); got == nil {
		t.Errorf("restored deleted table: item o/x missing")
	}

	del, err := c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: aws.String(arns[1])})
	if err != nil || del.BackupDescription.BackupDetails.BackupStatus != types.BackupStatusDeleted {
		t.Fatalf("DeleteBackup: got %+v, %v; want DELETED", del, err)
	}
	_, err = c.DescribeBackup(ctx, &dynamodb.DescribeBackupInput{BackupArn: aws.String(arns[1])})
	wantAPIError(t, err, "BackupNotFoundException", "Backup not found: "+arns[1])
	if got := list(dynamodb.ListBackupsInput{TableName: aws.String("Two")}); !slices.Equal(got, []string{"bk3"}) {
		t.Errorf("after DeleteBackup: got %v, want [bk3]", got)
	}
	clock.Advance(35 * 24 * time.Hour)
	if got := list(dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem}); got != nil {
		t.Errorf("SYSTEM backups after 35 days: got %v, want none", got)
	}
}

// getPK returns the item pk=o, sk=x of a table with a sort key, or nil.
func getPK(t *testing.T, c *dynamodb.Client, tableName, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tableName), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": s(pk)}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// TestBackupInUse checks the transient states: a backup feeds one restore
// at a time, and a table being restored refuses another restore.
func TestBackupInUse(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, TransientDelay: 2 * time.Second})
	c := srv.client("us-east-1")
	createTable(t, c, "Src", false)
	_, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Src"), BackupName: aws.String("early")})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: Src")
	clock.Advance(2 * time.Second)
	// Just ACTIVE: DynamoDB is still enabling the table's backups.
	const enabling = "Backups are being enabled for the table: Src. Please retry later"
	_, err = c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Src"), BackupName: aws.String("early")})
	var unavailable *types.ContinuousBackupsUnavailableException
	if !errors.As(err, &unavailable) {
		t.Errorf("CreateBackup just after ACTIVE: got %v, want ContinuousBackupsUnavailableException", err)
	}
	wantAPIError(t, err, "ContinuousBackupsUnavailableException", enabling)
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Src"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	wantAPIError(t, err, "ContinuousBackupsUnavailableException", enabling)
	dcb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Src")})
	if err != nil || dcb.ContinuousBackupsDescription.ContinuousBackupsStatus != types.ContinuousBackupsStatusDisabled ||
		dcb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("DescribeContinuousBackups while enabling: got %+v, %v; want backups and PITR DISABLED", dcb, err)
	}
	lb, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{TableName: aws.String("Src")})
	if err != nil || len(lb.BackupSummaries) != 0 {
		t.Errorf("backups after the refused CreateBackup: got %v, %v; want none", lb, err)
	}
	clock.Advance(2 * time.Second)
	cb, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Src"), BackupName: aws.String("bk1")})
	if err != nil {
		t.Fatal(err)
	}
	arn := cb.BackupDetails.BackupArn
	out, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String("Dst")})
	if err != nil {
		t.Fatal(err)
	}
	rs := out.TableDescription.RestoreSummary
	if out.TableDescription.TableStatus != types.TableStatusCreating || rs == nil || !aws.ToBool(rs.RestoreInProgress) || aws.ToString(rs.SourceBackupArn) != aws.ToString(arn) {
		t.Errorf("restore response: got %s, %+v; want CREATING with a RestoreSummary", out.TableDescription.TableStatus, rs)
	}
	_, err = c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: arn, TargetTableName: aws.String("Dst2")})
	wantAPIError(t, err, "BackupInUseException", "Backup is being used to restore another table: "+aws.ToString(arn))
	_, err = c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: arn})
	wantAPIError(t, err, "BackupInUseException", "Backup is being used to restore table: "+aws.ToString(arn))
	clock.Advance(2 * time.Second)
	if _, err := c.DeleteBackup(ctx, &dynamodb.DeleteBackupInput{BackupArn: arn}); err != nil {
		t.Fatalf("DeleteBackup once the restore is ACTIVE: %v", err)
	}
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Dst")})
	if err != nil || dt.Table.TableStatus != types.TableStatusActive || dt.Table.RestoreSummary != nil {
		t.Errorf("restored table after the delay: got %+v, %v; want ACTIVE without RestoreSummary", dt, err)
	}
}

// TestSystemBackupsSameMillisecond: two tables with point-in-time recovery
// deleted in the same millisecond each leave their own SYSTEM backup (a
// system backup's id has no random part to tell them apart).
func TestSystemBackupsSameMillisecond(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	for _, name := range []string{"Aaa", "Bbb"} {
		createTable(t, c, name, false)
		putOrder(t, c, name, "x", "1", "open")
		enablePITR(t, c, name, 0)
	}
	for _, name := range []string{"Aaa", "Bbb"} {
		if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Fatalf("DeleteTable %s: %v", name, err)
		}
	}
	sys, err := c.ListBackups(ctx, &dynamodb.ListBackupsInput{BackupType: types.BackupTypeFilterSystem})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range sys.BackupSummaries {
		got = append(got, aws.ToString(b.BackupName))
	}
	if want := []string{"Aaa$DeletedTableBackup", "Bbb$DeletedTableBackup"}; !slices.Equal(got, want) {
		t.Fatalf("SYSTEM backups: got %v, want %v", got, want)
	}
	for _, b := range sys.BackupSummaries {
		if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: b.BackupArn, TargetTableName: b.TableName}); err != nil {
			t.Fatalf("restore %s: %v", aws.ToString(b.TableName), err)
		}
		if getPK(t, c, aws.ToString(b.TableName), "o") == nil {
			t.Errorf("restored %s: item o/x missing", aws.ToString(b.TableName))
		}
	}
}
