package integration

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestBulkPutItemsBrokenObject: an input object that is not of the load's
// compression cannot be read past its first byte; it is one failed record
// (OutputS3Configuration's ERROR reports "input records or input objects
// that DynamoDB couldn't process"), named in the error report with the
// line where it breaks, and the load goes on with the next object, ending
// COMPLETED_WITH_ERRORS with the other objects' items written.
func TestBulkPutItemsBrokenObject(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	createTable(t, c, "Broken", true)
	gz := func(lines ...string) string {
		return string(compressSource(t, types.InputCompressionTypeGzip, []byte(strings.Join(lines, "\n")+"\n")))
	}
	item := func(pk string) string { return `{"Item":{"pk":{"S":"` + pk + `"},"sk":{"S":"1"}}}` }
	putObject(t, st, "src", "in/part-0.gz", gz(item("a"), item("b"), item("c")))
	putObject(t, st, "src", "in/part-1.gz", item("x")+"\n")
	putObject(t, st, "src", "in/part-2.gz", gz(item("d"), item("e")))
	in := bulkInput("Broken", "in/", "broken")
	in.InputS3Configuration.InputCompressionType = types.InputCompressionTypeGzip
	start, err := c.StartBulkPutItems(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, start.BulkOperationDescription.BulkOperationArn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != 6 || d.FailedItemCount != 1 || d.FailureCode != nil {
		t.Errorf("load: status %s, processed %d, failed %d, code %v; want COMPLETED_WITH_ERRORS, 6, 1, none",
			d.BulkOperationStatus, d.ProcessedItemCount, d.FailedItemCount, d.FailureCode)
	}
	if got := scanLines(t, c, "Broken"); len(got) != 5 || strings.Contains(strings.Join(got, ""), `"x"`) {
		t.Errorf("table after the load: %q", got)
	}
	report := reportLines(t, st, "report/", "/errors/")
	if len(report) != 1 || report[0]["S3Key"] != "in/part-1.gz" || report[0]["Line"] != 1.0 ||
		!strings.Contains(report[0]["ErrorMessage"].(string), "the rest of it is skipped") {
		t.Errorf("error report: %v", report)
	}
}
