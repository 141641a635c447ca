package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
)

// TestBulkPutItemsS3Endpoint: a bulk load reads its input from, and writes
// its error report to, an S3 endpoint (an in-process server speaking the
// S3 protocol), here ION compressed with ZSTD in the ACCELERATED tier
// (decoded on every core): the good items land, the bad record is counted
// and reported under the output prefix, naming its object and line.
func TestBulkPutItemsS3Endpoint(t *testing.T) {
	fake := buckettest.Start(t, "src", "out")
	st := fake.Store(t)
	c := transferServer(t, st)
	ctx := context.Background()
	put := func(key, body string) {
		putObject(t, st, "src", key, string(compressSource(t, types.InputCompressionTypeZstd, []byte(body))))
	}
	createTable(t, c, "BulkS3", true)
	put("in/1.ion.zst", "$ion_1_0 {Item:{pk:\"a\",sk:\"1\",n:"+big38+".}}\n$ion_1_0 {Item:{pk:\n")
	put("in/2.ion.zst", "$ion_1_0 {Item:{pk:\"b\",sk:\"2\",ss:$dynamodb_SS::[\"x\",\"y\"],e:\"\"}}\n")
	in := bulkInput("BulkS3", "in/", "s3-1")
	in.InputS3Configuration.InputFormat = types.BulkOperationInputFormatIon
	in.InputS3Configuration.InputCompressionType = types.InputCompressionTypeZstd
	in.PerformanceTier = types.BulkOperationPerformanceTierAccelerated
	start, err := c.StartBulkPutItems(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 3 || d.FailedItemCount != 1 ||
		d.PerformanceTier != types.BulkOperationPerformanceTierAccelerated {
		t.Errorf("load: status %s, processed %d, failed %d, tier %s; want COMPLETED_WITH_ERRORS, 3, 1, ACCELERATED",
			d.BulkOperationStatus, d.ProcessedItemCount, d.FailedItemCount, d.PerformanceTier)
	}
	if got := scanLines(t, c, "BulkS3"); len(got) != 2 || !strings.Contains(strings.Join(got, ""), `"n":{"N":"`+big38+`"}`) ||
		!strings.Contains(strings.Join(got, ""), `"e":{"S":""}`) {
		t.Errorf("table after the load: %q", got)
	}
	if report := reportLines(t, st, "report/", "/errors/"); len(report) != 1 || report[0]["S3Key"] != "in/1.ion.zst" || report[0]["Line"] != 2.0 {
		t.Errorf("error report in the S3 bucket: %v", report)
	}
	if aws.ToInt64(d.TotalInputBytes) == 0 || aws.ToInt64(d.ProcessedInputBytes) != aws.ToInt64(d.TotalInputBytes) {
		t.Errorf("TotalInputBytes %d, ProcessedInputBytes %d; want equal, not 0", aws.ToInt64(d.TotalInputBytes), aws.ToInt64(d.ProcessedInputBytes))
	}
}
