package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
)

// TestS3BucketOwner: S3BucketOwner is the account the bucket must belong
// to (the API: "required when the bucket is owned by another account";
// omitted, the requester's). A job naming the bucket's owner, or none,
// runs; one naming another account ends FAILED with S3AccessDenied, for an
// export, an import, and a bulk load's input and output, against an S3
// endpoint (S3's bucket owner condition: 403 AccessDenied) and against the
// folder, whose buckets are the requester's account's (000000000000 here).
func TestS3BucketOwner(t *testing.T) {
	const requester, elsewhere = "000000000000", "123456789012"
	for _, c := range []struct {
		name         string
		st           bucket.Store
		owner, wrong string
	}{
		{"dir", bucket.Dir{Root: t.TempDir()}, requester, elsewhere},
		{"endpoint", buckettest.StartOwned(t, elsewhere, "exports", "src", "out").Store(t), elsewhere, requester},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := transferServer(t, c.st)
			arn := pitrTable(t, cl, "Things", 5)
			putObject(t, c.st, "src", "in/1.json", `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}`+"\n"+`{"Item":{"pk":{"N":"1"}}}`+"\n")
			checkExportOwner(t, cl, arn, c.owner, "")
			checkExportOwner(t, cl, arn, "", "")
			checkExportOwner(t, cl, arn, c.wrong, "S3AccessDenied")
			checkImportOwner(t, cl, c.wrong)
			checkBulkOwner(t, cl, c.owner, c.owner, types.BulkOperationStatusCompletedWithErrors)
			checkBulkOwner(t, cl, c.wrong, c.owner, types.BulkOperationStatusFailed)
			checkBulkOwner(t, cl, c.owner, c.wrong, types.BulkOperationStatusFailed) // its one bad record's report
		})
	}
}

// checkExportOwner exports with S3BucketOwner owner: COMPLETED when code
// is "", else FAILED with code; the owner is described either way.
func checkExportOwner(t *testing.T, c *dynamodb.Client, arn, owner, code string) {
	t.Helper()
	ctx := context.Background()
	in := &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("exports")}
	if owner != "" {
		in.S3BucketOwner = aws.String(owner)
	}
	out, err := c.ExportTableToPointInTime(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	exportArn := out.ExportDescription.ExportArn
	if code == "" {
		if d := waitExport(t, c, aws.ToString(exportArn)); aws.ToString(d.S3BucketOwner) != owner || aws.ToInt64(d.ItemCount) != 5 {
			t.Errorf("export expecting owner %q: %+v", owner, d)
		}
		return
	}
	err = dynamodb.NewExportCompletedWaiter(c, func(o *dynamodb.ExportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	}).Wait(ctx, &dynamodb.DescribeExportInput{ExportArn: exportArn}, time.Minute)
	d, _ := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: exportArn})
	if e := d.ExportDescription; err == nil || e.ExportStatus != types.ExportStatusFailed || aws.ToString(e.FailureCode) != code ||
		aws.ToString(e.FailureMessage) != "Access Denied" || aws.ToString(e.S3BucketOwner) != owner {
		t.Errorf("export expecting owner %q: waiter %v, description %+v", owner, err, e)
	}
}

// checkImportOwner imports from a bucket expecting owner, another
// account's: the import FAILS with S3AccessDenied and imports nothing.
func checkImportOwner(t *testing.T, c *dynamodb.Client, owner string) {
	t.Helper()
	ctx := context.Background()
	out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("in/"), S3BucketOwner: aws.String(owner)},
		TableCreationParameters: importParams("Imported")})
	if err != nil {
		t.Fatal(err)
	}
	err = dynamodb.NewImportCompletedWaiter(c, func(o *dynamodb.ImportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	}).Wait(ctx, &dynamodb.DescribeImportInput{ImportArn: out.ImportTableDescription.ImportArn}, time.Minute)
	d, _ := c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: out.ImportTableDescription.ImportArn})
	if e := d.ImportTableDescription; err == nil || e.ImportStatus != types.ImportStatusFailed || aws.ToString(e.FailureCode) != "S3AccessDenied" ||
		e.ImportedItemCount != 0 || aws.ToString(e.S3BucketSource.S3BucketOwner) != owner {
		t.Errorf("import expecting owner %q: waiter %v, description %+v", owner, err, e)
	}
}

// checkBulkOwner loads the source (one good record, one bad) expecting
// in and out as the input and output buckets' owners, and wants the load
// to end in status.
func checkBulkOwner(t *testing.T, c *dynamodb.Client, in, out string, status types.BulkOperationStatus) {
	t.Helper()
	req := bulkInput("Things", "in/", strings.Join([]string{"owners", in, out}, "-"))
	req.InputS3Configuration.S3BucketOwner, req.OutputS3Configuration.S3BucketOwner = aws.String(in), aws.String(out)
	started, err := c.StartBulkPutItems(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	d := waitBulk(t, c, started.BulkOperationDescription.BulkOperationArn)
	code := ""
	if status == types.BulkOperationStatusFailed {
		code = "S3AccessDenied"
	}
	if d.BulkOperationStatus != status || aws.ToString(d.FailureCode) != code ||
		aws.ToString(d.InputS3Configuration.S3BucketOwner) != in || aws.ToString(d.OutputS3Configuration.S3BucketOwner) != out {
		t.Errorf("load expecting input owner %q, output owner %q: %s %q, want %s %q", in, out, d.BulkOperationStatus, aws.ToString(d.FailureCode), status, code)
	}
}
