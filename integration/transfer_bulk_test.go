package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// waitBulk polls DescribeBulkOperation until the load leaves IN_PROGRESS
// and CANCELLING.
func waitBulk(t *testing.T, c *dynamodb.Client, arn *string) *types.BulkOperationDescription {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		out, err := c.DescribeBulkOperation(context.Background(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		if st := out.BulkOperationDescription.BulkOperationStatus; st != types.BulkOperationStatusInProgress && st != types.BulkOperationStatusCancelling {
			return out.BulkOperationDescription
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("bulk load %s did not finish", aws.ToString(arn))
	return nil
}

func bulkInput(table, prefix, token string) *dynamodb.StartBulkPutItemsInput {
	return &dynamodb.StartBulkPutItemsInput{TableName: aws.String(table), ClientToken: aws.String(token),
		InputS3Configuration: &types.InputS3Configuration{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String(prefix),
			InputFormat: types.BulkOperationInputFormatDynamodbJson},
		OutputS3Configuration: &types.OutputS3Configuration{S3Bucket: aws.String("out"), S3KeyPrefix: aws.String("report"),
			OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError}}}
}

// TestBulkPutItems loads S3 objects into an existing table with
// StartBulkPutItems: items land (overwriting one already there), bad records
// are counted and reported to the output location, the ClientToken makes
// the start idempotent, MaxWriteRequestUnits paces the load, a cancelled
// load ends CANCELLED, and the operations answer unknown loads and bad
// requests with errors.
func TestBulkPutItems(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	put := func(key, body string) { putObject(t, st, "src", key, body) }
	createTable(t, c, "Bulk", true)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Bulk"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "1"}, "old": &types.AttributeValueMemberBOOL{Value: true}}}); err != nil {
		t.Fatal(err)
	}
	in1, in2 := `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"n":{"N":"1"}}}`+"\nnot json\n"+`{"Item":{"pk":{"N":"5"},"sk":{"S":"1"}}}`+"\n",
		`{"Item":{"pk":{"S":"b"},"sk":{"S":"2"}}}`+"\n"
	put("in/1.json", in1)
	put("in/2.json", in2)
	start, err := c.StartBulkPutItems(ctx, bulkInput("Bulk", "in/", "tok-1"))
	if err != nil {
		t.Fatal(err)
	}
	arn := start.BulkOperationDescription.BulkOperationArn
	d := waitBulk(t, c, arn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 4 || d.FailedItemCount != 2 ||
		d.EndTime == nil || d.PerformanceTier != types.BulkOperationPerformanceTierStandard || len(d.TableDetails) != 1 {
		t.Errorf("load: %+v", d)
	}
	if size := int64(len(in1) + len(in2)); aws.ToInt64(d.TotalInputBytes) != size || aws.ToInt64(d.ProcessedInputBytes) != size {
		t.Errorf("TotalInputBytes %d, ProcessedInputBytes %d; want both %d", aws.ToInt64(d.TotalInputBytes), aws.ToInt64(d.ProcessedInputBytes), size)
	}
	if got := scanLines(t, c, "Bulk"); len(got) != 2 || !strings.Contains(got[0], `"n":{"N":"1"}`) || strings.Contains(got[0], "old") {
		t.Errorf("table after the load: %q", got)
	}
	if report := reportLines(t, st, "report/", "/errors/"); len(report) != 2 || report[0]["S3Key"] != "in/1.json" || report[0]["Line"] != 2.0 {
		t.Errorf("error report: %v", report)
	}
	again, err := c.StartBulkPutItems(ctx, bulkInput("Bulk", "in/", "tok-1"))
	if err != nil || aws.ToString(again.BulkOperationDescription.BulkOperationArn) != aws.ToString(arn) {
		t.Errorf("same token and request: %v, %v", again, err)
	}
	_, err = c.StartBulkPutItems(ctx, bulkInput("Bulk", "other/", "tok-1"))
	var mismatch *types.IdempotentParameterMismatchException
	if !errors.As(err, &mismatch) {
		t.Errorf("same token, other request: %v", err)
	}
	checkBulkRefusals(t, c, arn)
	checkBulkPaceAndCancel(t, c, put)
	list, err := c.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{MaxResults: aws.Int32(1)})
	if err != nil || len(list.BulkOperationsSummaryList) != 1 || list.NextToken == nil {
		t.Fatalf("ListBulkOperations: %+v, %v", list, err)
	}
	rest, err := c.ListBulkOperations(ctx, &dynamodb.ListBulkOperationsInput{NextToken: list.NextToken})
	if err != nil || len(rest.BulkOperationsSummaryList) != 2 || aws.ToString(rest.BulkOperationsSummaryList[1].BulkOperationArn) != aws.ToString(arn) {
		t.Errorf("second page (oldest last): %+v, %v", rest, err)
	}
}

func checkBulkRefusals(t *testing.T, c *dynamodb.Client, arn *string) {
	ctx := context.Background()
	in := bulkInput("Bulk", "in/", "tok-2")
	in.MaxWriteRequestUnits = aws.Int64(10)
	_, err := c.StartBulkPutItems(ctx, in)
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '10' at 'maxWriteRequestUnits' failed to satisfy constraint: Member must have value greater than or equal to 1024")
	_, err = c.StartBulkPutItems(ctx, bulkInput("Missing", "in/", "tok-3"))
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("load into a missing table: %v", err)
	}
	unknown := aws.String(strings.Replace(aws.ToString(arn), "bulk-operation/", "bulk-operation/0", 1))
	_, err = c.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: unknown})
	if !errors.As(err, &rnf) {
		t.Errorf("describe an unknown load: %v", err)
	}
	_, err = c.CancelBulkOperation(ctx, &dynamodb.CancelBulkOperationInput{BulkOperationArn: arn})
	wantAPIError(t, err, "ValidationException", fmt.Sprintf("Bulk operation %s cannot be cancelled in status COMPLETED_WITH_ERRORS", aws.ToString(arn)))
}

// checkBulkPaceAndCancel: 3,000 one-unit items at 1,024 units a second take
// at least two seconds; a load cancelled at once ends CANCELLED, with the
// FailureCode and FailureMessage the API returns for a cancelled load.
func checkBulkPaceAndCancel(t *testing.T, c *dynamodb.Client, put func(key, body string)) {
	ctx := context.Background()
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, `{"Item":{"pk":{"S":"p%d"},"sk":{"S":"1"}}}`+"\n", i)
	}
	put("many/1.json", b.String())
	in := bulkInput("Bulk", "many/", "paced")
	in.MaxWriteRequestUnits = aws.Int64(1024)
	began := time.Now()
	start, err := c.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn)
	if took := time.Since(began); d.BulkOperationStatus != types.BulkOperationStatusCompleted || d.ProcessedItemCount != 3000 || took < 1900*time.Millisecond {
		t.Errorf("paced load: %s in %v, %d items", d.BulkOperationStatus, took, d.ProcessedItemCount)
	}
	in.ClientToken = aws.String("cancelled")
	start, err = c.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	cancel, err := c.CancelBulkOperation(ctx, &dynamodb.CancelBulkOperationInput{BulkOperationArn: start.BulkOperationDescription.BulkOperationArn})
	if err != nil || cancel.BulkOperationStatus != types.BulkOperationStatusCancelling {
		t.Fatalf("cancel: %+v, %v", cancel, err)
	}
	if d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn); d.BulkOperationStatus != types.BulkOperationStatusCancelled || d.ProcessedItemCount == 3000 && d.EndTime == nil ||
		aws.ToString(d.FailureCode) != "BulkOperationCancelled" || aws.ToString(d.FailureMessage) != "The bulk operation was cancelled by a CancelBulkOperation request" {
		t.Errorf("cancelled load: %+v", d)
	}
}

// TestBulkUsagePerIndex: BulkOperationUsage counts the bytes of the table
// and of each index entry the loaded items make, and their sum. Sizes by
// DynamoDB's rules (attribute name plus string value, in bytes): {pk a, sk 1,
// g x} is 8, {pk b, sk 2} 6 and not in the index (no g), {pk c, sk 3, g y,
// note hello} 17; the index projects ALL.
func TestBulkUsagePerIndex(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	createGSITable(t, c, "Usage")
	u := loadUsage(t, c, st, "Usage", "usage", `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"g":{"S":"x"}}}`+"\n"+`{"Item":{"pk":{"S":"b"},"sk":{"S":"2"}}}`+"\n"+
		`{"Item":{"pk":{"S":"c"},"sk":{"S":"3"},"g":{"S":"y"},"note":{"S":"hello"}}}`+"\n")
	got := fmt.Sprintf("%s total %d table %d gsi %v lsi %v", aws.ToString(u.TableName), aws.ToInt64(u.BulkPutBytes),
		aws.ToInt64(u.Table.BulkPutBytes), bytesByIndex(u.GlobalSecondaryIndexes), bytesByIndex(u.LocalSecondaryIndexes))
	if want := "Usage total 56 table 31 gsi map[byG:25] lsi map[]"; got != want {
		t.Errorf("usage:\n got %s\nwant %s", got, want)
	}
}

// loadUsage bulk-loads lines (JSON-lines items) into table from the object
// PREFIX/1.json, waits for the load to complete and returns its one usage.
func loadUsage(t *testing.T, c *dynamodb.Client, st bucket.Dir, table, prefix, lines string) types.BulkOperationUsage {
	t.Helper()
	ctx := context.Background()
	putObject(t, st, "src", prefix+"/1.json", lines)
	start, err := c.StartBulkPutItems(ctx, bulkInput(table, prefix+"/", prefix))
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompleted || len(d.BulkOperationUsage) != 1 {
		t.Fatalf("load: %+v", d)
	}
	return d.BulkOperationUsage[0]
}

func bytesByIndex(m map[string]types.BulkOperationBytes) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = aws.ToInt64(v.BulkPutBytes)
	}
	return out
}

// TestBulkUsageVectorIndex: BulkOperationUsage reports under VectorIndexes
// the bytes each vector index stores for the loaded items (the vector as
// float32s, 4 bytes a dimension, and the other projected attributes, as
// vector write capacity counts them: {pk a, note hi} with three dimensions
// is 12 + 3 + 6 = 21; {pk b} has no vector and is not in the index), and
// leaves them out of BulkPutBytes.
func TestBulkUsageVectorIndex(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	createVectorTable(t, c, "VecUsage", nil, vecIndex("byEmb", 3, types.VectorDistanceFunctionCosine))
	u := loadUsage(t, c, st, "VecUsage", "vec", `{"Item":{"pk":{"S":"a"},"emb":{"L":[{"N":"1"},{"N":"2"},{"N":"3"}]},"note":{"S":"hi"}}}`+"\n"+`{"Item":{"pk":{"S":"b"}}}`+"\n")
	vec := map[string]int64{}
	for k, v := range u.VectorIndexes {
		vec[k] = aws.ToInt64(v.BulkPutVectorBytes)
	}
	got := fmt.Sprintf("total %d vector %v", aws.ToInt64(u.BulkPutBytes)-aws.ToInt64(u.Table.BulkPutBytes), vec)
	if want := "total 0 vector map[byEmb:21]"; got != want {
		t.Errorf("usage:\n got %s\nwant %s", got, want)
	}
}
