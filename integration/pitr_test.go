package integration

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestPITRRestoreToPastSecond writes, captures a second, overwrites and
// deletes, and restores to the captured second: the new table holds the old
// items, in its table and both of its indexes, while the source keeps the
// new ones. The server's clock is fake, so nothing waits.
func TestPITRRestoreToPastSecond(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock() // 2026-01-01T00:00:00Z
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createOrders(t, c, "Orders")
	putOrder(t, c, "Orders", "before", "1", "open") // before PITR: in the table, never logged

	clock.Advance(500 * time.Millisecond)
	d := enablePITR(t, c, "Orders", 0)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := aws.ToTime(d.EarliestRestorableDateTime); !got.Equal(start) {
		t.Errorf("EarliestRestorableDateTime: got %s, want %s (the enabling second)", got, start)
	}
	if got, want := aws.ToInt32(d.RecoveryPeriodInDays), int32(35); got != want {
		t.Errorf("RecoveryPeriodInDays: got %d, want %d", got, want)
	}

	clock.Advance(700 * time.Millisecond) // 00:00:01.2
	putOrder(t, c, "Orders", "a", "10", "open")
	putOrder(t, c, "Orders", "b", "20", "open")
	putOrder(t, c, "Orders", "c", "30", "shipped")
	restoreTo := clock.Now() // second 1: everything above, nothing below

	clock.Advance(time.Second) // 00:00:02.2
	putOrder(t, c, "Orders", "a", "5", "closed")
	deleteOrder(t, c, "Orders", "b")
	deleteOrder(t, c, "Orders", "before")
	putOrder(t, c, "Orders", "d", "40", "open")

	clock.Advance(3 * time.Second)
	out, err := c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableName: aws.String("Orders"), TargetTableName: aws.String("Then"), RestoreDateTime: aws.Time(restoreTo)})
	if err != nil {
		t.Fatalf("RestoreTableToPointInTime: %v", err)
	}
	if got := out.TableDescription.TableStatus; got != types.TableStatusActive {
		t.Errorf("restored TableStatus: got %s, want ACTIVE (no transient delay)", got)
	}
	wantOrders(t, c, "Then", "", "a:10:open", "b:20:open", "before:1:open", "c:30:shipped")
	wantOrders(t, c, "Then", "byAmount", "before:1:open", "a:10:open", "b:20:open", "c:30:shipped")
	wantOrders(t, c, "Then", "byStatus", "a:10:open", "b:20:open", "before:1:open")
	wantOrders(t, c, "Orders", "", "a:5:closed", "c:30:shipped", "d:40:open")

	// The latest restorable time is now.
	if _, err := c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableArn: out.TableDescription.TableArn, TargetTableName: aws.String("Failed"), UseLatestRestorableTime: aws.Bool(true)}); err == nil {
		t.Fatal("restore from a table without PITR succeeded")
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Orders"
	if _, err := c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableArn: aws.String(arn), TargetTableName: aws.String("Now"), UseLatestRestorableTime: aws.Bool(true)}); err != nil {
		t.Fatalf("RestoreTableToPointInTime latest: %v", err)
	}
	wantOrders(t, c, "Now", "", "a:5:closed", "c:30:shipped", "d:40:open")
	wantOrders(t, c, "Now", "byStatus", "d:40:open")
	checkRestoredSettings(t, c, "Then")
}

// checkRestoredSettings asserts what a restore of an Orders table keeps and
// what it leaves off, as DynamoDB does.
func checkRestoredSettings(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	ctx := context.Background()
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	d := dt.Table
	if d.StreamSpecification != nil || d.LatestStreamArn != nil {
		t.Errorf("restored stream: got %+v, want none", d.StreamSpecification)
	}
	if got := aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits); got != 5 {
		t.Errorf("restored ReadCapacityUnits: got %d, want 5", got)
	}
	if len(d.GlobalSecondaryIndexes) != 1 || len(d.LocalSecondaryIndexes) != 1 || d.RestoreSummary != nil {
		t.Errorf("restored indexes: got %d global, %d local, RestoreSummary %+v; want 1, 1, none once ACTIVE",
			len(d.GlobalSecondaryIndexes), len(d.LocalSecondaryIndexes), d.RestoreSummary)
	}
	tags, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.TableArn})
	if err != nil || len(tags.Tags) != 0 {
		t.Errorf("restored tags: got %v, %v; want none", tags, err)
	}
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("restored PITR: got %+v, %v; want DISABLED", cb, err)
	}
}

// TestPITRWindow checks the restorable window: it starts at the enabling
// second, ends now, slides with the recovery period, and a restore to its
// first second stays exact after the log older than the window is trimmed.
func TestPITRWindow(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createOrders(t, c, "Win")
	clock.Advance(1500 * time.Millisecond)
	enablePITR(t, c, "Win", 1)
	putOrder(t, c, "Win", "a", "1", "open")
	clock.Advance(20 * time.Hour)
	putOrder(t, c, "Win", "a", "2", "open")
	clock.Advance(8 * time.Hour) // the first write is now older than a day, the second is not
	putOrder(t, c, "Win", "a", "3", "open")
	deleteOrder(t, c, "Win", "a")
	if err := srv.svc.Settle(ctx); err != nil { // the applier has trimmed what it may
		t.Fatal(err)
	}

	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Win")})
	if err != nil {
		t.Fatal(err)
	}
	p := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription
	earliest := clock.Now().Add(-24 * time.Hour).Truncate(time.Second)
	if got := aws.ToTime(p.EarliestRestorableDateTime); !got.Equal(earliest) {
		t.Errorf("EarliestRestorableDateTime: got %s, want %s (now - 1 day)", got, earliest)
	}
	if got := aws.ToTime(p.LatestRestorableDateTime); !got.Equal(clock.Now()) {
		t.Errorf("LatestRestorableDateTime: got %s, want %s (now)", got, clock.Now())
	}
	if _, err := c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableName: aws.String("Win"), TargetTableName: aws.String("Win2"), RestoreDateTime: aws.Time(earliest)}); err != nil {
		t.Fatalf("restore to the earliest second: %v", err)
	}
	// The first write's log record is trimmed; its item survives as the old
	// image of the second write, the first change after that second.
	wantOrders(t, c, "Win2", "", "a:1:open")

	tooOld := earliest.Add(-time.Second)
	_, err = c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableName: aws.String("Win"), TargetTableName: aws.String("Win3"), RestoreDateTime: aws.Time(tooOld)})
	wantAPIError(t, err, "InvalidRestoreTimeException", "RestoreDateTime '2026-01-01T04:00:00Z' must be within EarliestRestorableDateTime '2026-01-01T04:00:01Z' and LatestRestorableDateTime '2026-01-02T04:00:01Z'")
	_, err = c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableName: aws.String("Win"), TargetTableName: aws.String("Win3"), RestoreDateTime: aws.Time(clock.Now().Add(time.Second))})
	wantAPIError(t, err, "InvalidRestoreTimeException", "RestoreDateTime '2026-01-02T04:00:02Z' must be within EarliestRestorableDateTime '2026-01-01T04:00:01Z' and LatestRestorableDateTime '2026-01-02T04:00:01Z'")

	// Disabling forgets the window; enabling again starts a new one.
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Win"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{
		SourceTableName: aws.String("Win"), TargetTableName: aws.String("Win3"), UseLatestRestorableTime: aws.Bool(true)})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table 'Win'")
	clock.Advance(time.Second)
	if got := aws.ToTime(enablePITR(t, c, "Win", 0).EarliestRestorableDateTime); !got.Equal(clock.Now().Truncate(time.Second)) {
		t.Errorf("EarliestRestorableDateTime after re-enabling: got %s, want %s", got, clock.Now().Truncate(time.Second))
	}
}

// TestPITRErrors checks each refusal's type and message, in DynamoDB's
// order, and that none of them creates a table.
func TestPITRErrors(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createTable(t, c, "Src", false)
	createTable(t, c, "Taken", false)
	restore := func(in dynamodb.RestoreTableToPointInTimeInput) error {
		_, err := c.RestoreTableToPointInTime(ctx, &in)
		return err
	}
	latest := aws.Bool(true)
	err := restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Src"), TargetTableName: aws.String("Tgt"), UseLatestRestorableTime: latest})
	wantAPIError(t, err, "PointInTimeRecoveryUnavailableException", "Point in time recovery is not enabled for table 'Src'")
	err = restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Nope"), TargetTableName: aws.String("Tgt"), UseLatestRestorableTime: latest})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: Nope")
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Nope"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
	wantAPIError(t, err, "TableNotFoundException", "Table not found: Nope")
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Src"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false), RecoveryPeriodInDays: aws.Int32(3)}})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("Src"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(36)}})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")

	enablePITR(t, c, "Src", 0)
	err = restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Src"), TargetTableName: aws.String("Tgt")})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Either one of RestoreDateTime or UseLatestRestorableTime must be specified, but not both")
	err = restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Src"), TargetTableName: aws.String("Tgt"),
		UseLatestRestorableTime: latest, RestoreDateTime: aws.Time(clock.Now())})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Both RestoreDateTime and UseLatestRestorableTime cannot be set for point-in-time restore request. Please specify either RestoreDateTime time or UseLatestRestorableTime")
	err = restore(dynamodb.RestoreTableToPointInTimeInput{TargetTableName: aws.String("Tgt"), UseLatestRestorableTime: latest})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Must provide exactly one of: sourceTableArn, sourceTableName")
	err = restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Src"), TargetTableName: aws.String("Taken"), UseLatestRestorableTime: latest})
	wantAPIError(t, err, "TableAlreadyExistsException", "Table already exists: Taken")
	err = restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Src"), TargetTableName: aws.String("Src"), UseLatestRestorableTime: latest})
	wantAPIError(t, err, "TableAlreadyExistsException", "Table already exists: Src")
	err = restore(dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Src"), TargetTableName: aws.String("Tgt"),
		UseLatestRestorableTime: latest, GlobalSecondaryIndexOverride: []types.GlobalSecondaryIndex{gsiDef("gx1", []string{"pk"}, nil, types.ProjectionTypeAll)}})
	wantAPIError(t, err, "ValidationException", "Invalid Request: Index gx1 does not match a secondary index that existed in the source table and cannot be created during the restore operation")
	lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil || len(lt.TableNames) != 2 {
		t.Fatalf("tables after rejected restores: got %v, %v; want Src and Taken only", lt.TableNames, err)
	}
}
