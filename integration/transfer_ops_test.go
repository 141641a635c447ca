package integration

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
)

// transferServer starts a server whose exports and imports use st.
func transferServer(t *testing.T, st bucket.Store) *dynamodb.Client {
	return startServer(t, table.Options{S3: st}).client("us-east-1")
}

// pitrTable creates Things (pk, sk) with point-in-time recovery and n items.
func pitrTable(t *testing.T, c *dynamodb.Client, name string, n int) string {
	t.Helper()
	createTable(t, c, name, true)
	enablePITR(t, c, name, 0)
	for i := range n {
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(name), Item: roundTripItem(i)}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(d.Table.TableArn)
}

func waitExport(t *testing.T, c *dynamodb.Client, arn string) *types.ExportDescription {
	t.Helper()
	out, err := dynamodb.NewExportCompletedWaiter(c, func(o *dynamodb.ExportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	}).WaitForOutput(context.Background(), &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)}, time.Minute)
	if err != nil {
		t.Fatalf("waiting for export %s: %v", arn, err)
	}
	return out.ExportDescription
}

// scanLines returns every item of a table as sorted DynamoDB-JSON lines.
func scanLines(t *testing.T, c *dynamodb.Client, name string) []string {
	t.Helper()
	return scanLinesRead(t, c, name, true)
}

// scanLinesRead is scanLines with strongly (consistent) or eventually
// consistent reads.
func scanLinesRead(t *testing.T, c *dynamodb.Client, name string, consistent bool) []string {
	t.Helper()
	var lines []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(consistent)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Items {
			it, err := transfer.FromSDK(m)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(transfer.AppendLine(nil, it)))
		}
	}
	slices.Sort(lines)
	return lines
}

// readExportLines follows an export's manifests as the developer guide
// describes them and returns its data lines, sorted, and the summary.
func readExportLines(t *testing.T, st bucket.Store, bkt, summaryKey string) ([]string, map[string]any) {
	t.Helper()
	get := func(key string) []byte {
		r, err := st.Open(context.Background(), bkt, key)
		if err != nil {
			t.Fatalf("open %s: %v", key, err)
		}
		defer r.Close()
		b, _ := io.ReadAll(r)
		return b
	}
	var sum map[string]any
	if err := json.Unmarshal(get(summaryKey), &sum); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(get(sum["manifestFilesS3Key"].(string))))
	for sc.Scan() {
		var f struct{ DataFileS3Key string }
		json.Unmarshal(sc.Bytes(), &f)
		zr, err := gzip.NewReader(bytes.NewReader(get(f.DataFileS3Key)))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(zr)
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				lines = append(lines, l+"\n")
			}
		}
	}
	slices.Sort(lines)
	return lines, sum
}

// TestExportTableToPointInTime exports through the API to a folder and to
// an S3 endpoint and reads the export back from the documented layout.
func TestExportTableToPointInTime(t *testing.T) {
	fake := buckettest.Start(t, "exports")
	for name, st := range map[string]bucket.Store{"dir": bucket.Dir{Root: t.TempDir()}, "s3": fake.Store(t)} {
		t.Run(name, func(t *testing.T) {
			c := transferServer(t, st)
			arn := pitrTable(t, c, "Things", 150)
			out, err := c.ExportTableToPointInTime(context.Background(), &dynamodb.ExportTableToPointInTimeInput{
				TableArn: aws.String(arn), S3Bucket: aws.String("exports"), S3Prefix: aws.String("nightly")})
			if err != nil {
				t.Fatal(err)
			}
			started := out.ExportDescription
			if started.ExportStatus != types.ExportStatusInProgress || !strings.HasPrefix(aws.ToString(started.ExportArn), arn+"/export/") ||
				started.ExportFormat != types.ExportFormatDynamodbJson || started.ExportType != types.ExportTypeFullExport {
				t.Errorf("started = %+v", started)
			}
			d := waitExport(t, c, aws.ToString(started.ExportArn))
			if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != 150 || aws.ToInt64(d.BilledSizeBytes) == 0 ||
				d.EndTime == nil || d.ExportTime == nil || aws.ToString(d.S3Prefix) != "nightly" ||
				!strings.HasPrefix(aws.ToString(d.ExportManifest), "nightly/AWSDynamoDB/") {
				t.Errorf("completed = %+v", d)
			}
			lines, sum := readExportLines(t, st, "exports", aws.ToString(d.ExportManifest))
			if want := scanLines(t, c, "Things"); !slices.Equal(lines, want) {
				t.Errorf("export holds %d lines, table %d: they differ", len(lines), len(want))
			}
			if sum["exportArn"] != aws.ToString(d.ExportArn) || sum["itemCount"] != float64(150) || sum["outputFormat"] != "DYNAMODB_JSON" {
				t.Errorf("manifest-summary.json = %v", sum)
			}
		})
	}
}

// TestExportPointInTimeAndFilter exports the table as it was before a
// change, and a filtered, projected export.
func TestExportPointInTimeAndFilter(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	arn := pitrTable(t, c, "Things", 20)
	time.Sleep(20 * time.Millisecond)
	before := time.Now()
	time.Sleep(20 * time.Millisecond)
	past := scanLines(t, c, "Things")
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Things"),
		Key: map[string]types.AttributeValue{"pk": s("k3"), "sk": s("3")}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn),
		S3Bucket: aws.String("bk"), ExportTime: aws.Time(before), ExportFormat: types.ExportFormatDynamodbJson})
	if err != nil {
		t.Fatal(err)
	}
	d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	if lines, _ := readExportLines(t, st, "bk", aws.ToString(d.ExportManifest)); len(lines) != 20 || !slices.Equal(lines, past) {
		t.Errorf("export at %v: %d items, want the 20 before the delete", before, len(lines))
	}
	out, err = c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("bk"),
		FilterSpecification: &types.FilterSpecification{FilterExpression: aws.String("pk = :k"), ProjectionExpression: aws.String("pk, sk, #t"),
			ExpressionAttributeNames:  map[string]string{"#t": "t"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":k": s("k1")}}})
	if err != nil {
		t.Fatal(err)
	}
	d = waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
	lines, _ := readExportLines(t, st, "bk", aws.ToString(d.ExportManifest))
	want := []string{`{"Item":{"pk":{"S":"k1"},"sk":{"S":"1"},"t":{"BOOL":false}}}` + "\n", `{"Item":{"pk":{"S":"k1"},"sk":{"S":"12"},"t":{"BOOL":true}}}` + "\n"}
	if !slices.Equal(lines, want) || aws.ToInt64(d.ItemCount) != 2 || d.FilterSpecification == nil {
		t.Errorf("filtered export: %q (count %d), want %q", lines, aws.ToInt64(d.ItemCount), want)
	}
}

// TestExportErrors checks the refusals, idempotency and a failed export.
func TestExportErrors(t *testing.T) {
	fake := buckettest.Start(t, "exports")
	c := transferServer(t, fake.Store(t))
	ctx := context.Background()
	createTable(t, c, "NoPITR", false)
	d, _ := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("NoPITR")})
	_, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: d.Table.TableArn, S3Bucket: aws.String("exports")})
	var pitr *types.PointInTimeRecoveryUnavailableException
	if !errors.As(err, &pitr) || pitr.ErrorMessage() != "Point in time recovery is not enabled for table 'NoPITR'" {
		t.Errorf("without PITR: %v", err)
	}
	arn := pitrTable(t, c, "Things", 3)
	_, err = c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("exports"),
		ExportTime: aws.Time(time.Now().Add(-time.Hour))})
	var bad *types.InvalidExportTimeException
	if !errors.As(err, &bad) || !strings.HasPrefix(bad.ErrorMessage(), "ExportTime '") {
		t.Errorf("export time before the window: %v", err)
	}
	_, err = c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(strings.Replace(arn, "Things", "Nope", 1)), S3Bucket: aws.String("exports")})
	var tnf *types.TableNotFoundException
	if !errors.As(err, &tnf) || tnf.ErrorMessage() != "Table not found: Nope" {
		t.Errorf("missing table: %v", err)
	}
	_, err = c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn + "/export/01234567890123-abcdef01")})
	var enf *types.ExportNotFoundException
	if !errors.As(err, &enf) {
		t.Errorf("unknown export: %v", err)
	}
	in := &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("exports"), ClientToken: aws.String("tok")}
	a, err := c.ExportTableToPointInTime(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.ExportTableToPointInTime(ctx, in)
	if err != nil || aws.ToString(b.ExportDescription.ExportArn) != aws.ToString(a.ExportDescription.ExportArn) {
		t.Errorf("same ClientToken again: %v, %v", b, err)
	}
	in.S3Prefix = aws.String("other")
	_, err = c.ExportTableToPointInTime(ctx, in)
	var conflict *types.ExportConflictException
	if !errors.As(err, &conflict) {
		t.Errorf("same ClientToken, other request: %v", err)
	}
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn), S3Bucket: aws.String("no-such-bucket")})
	if err != nil {
		t.Fatal(err)
	}
	err = dynamodb.NewExportCompletedWaiter(c, func(o *dynamodb.ExportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	}).
		Wait(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn}, time.Minute)
	failed, _ := c.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: out.ExportDescription.ExportArn})
	if err == nil || failed.ExportDescription.ExportStatus != types.ExportStatusFailed || aws.ToString(failed.ExportDescription.FailureCode) != "S3NoSuchBucket" {
		t.Errorf("export to a missing bucket: waiter %v, description %+v", err, failed.ExportDescription)
	}
	listed, err := c.ListExports(ctx, &dynamodb.ListExportsInput{TableArn: aws.String(arn), MaxResults: aws.Int32(1)})
	if err != nil || len(listed.ExportSummaries) != 1 || listed.NextToken == nil {
		t.Fatalf("ListExports page 1: %+v, %v", listed, err)
	}
	rest, err := c.ListExports(ctx, &dynamodb.ListExportsInput{TableArn: aws.String(arn), MaxResults: aws.Int32(5), NextToken: listed.NextToken})
	if err != nil || len(rest.ExportSummaries) != 1 || rest.NextToken != nil ||
		aws.ToString(rest.ExportSummaries[0].ExportArn) != aws.ToString(out.ExportDescription.ExportArn) {
		t.Errorf("ListExports page 2: %+v, %v", rest, err)
	}
}

// waitImport waits until the import ends COMPLETED, or FAILED for the
// records it skipped (itemsSkipped), and returns its description; any
// other end fails the test, as the ImportCompleted waiter would.
func waitImport(t *testing.T, c *dynamodb.Client, arn *string) *types.ImportTableDescription {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		out, err := c.DescribeImport(context.Background(), &dynamodb.DescribeImportInput{ImportArn: arn})
		if err != nil {
			t.Fatalf("waiting for import: %v", err)
		}
		switch d := out.ImportTableDescription; {
		case d.ImportStatus == types.ImportStatusCompleted || itemsSkipped(d):
			return d
		case d.ImportStatus != types.ImportStatusInProgress:
			t.Fatalf("import ended %s: %s %s", d.ImportStatus, aws.ToString(d.FailureCode), aws.ToString(d.FailureMessage))
		case time.Now().After(deadline):
			t.Fatal("the import did not end within a minute")
		}
	}
}

// itemsSkipped reports whether an import ended as the service ends one
// that skipped records (the developer guide's "Import format quotas and
// validation"): FAILED, ItemValidationError, with ErrorCount of them.
func itemsSkipped(d *types.ImportTableDescription) bool {
	return d.ImportStatus == types.ImportStatusFailed && d.ErrorCount > 0 && aws.ToString(d.FailureCode) == "ItemValidationError" &&
		aws.ToString(d.FailureMessage) == "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details."
}

func importParams(name string) *types.TableCreationParameters {
	return &types.TableCreationParameters{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("bySk"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("sk"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}
}

// TestExportImportRoundTrip exports a table in each format and imports the
// export's data files as a new table: equal item for item, and the new
// table's global index serves them.
func TestExportImportRoundTrip(t *testing.T) {
	fake := buckettest.Start(t, "exports")
	c := transferServer(t, fake.Store(t))
	ctx := context.Background()
	arn := pitrTable(t, c, "Things", 200)
	for _, format := range []types.ExportFormat{types.ExportFormatDynamodbJson, types.ExportFormatIon} {
		out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: aws.String(arn),
			S3Bucket: aws.String("exports"), ExportFormat: format})
		if err != nil {
			t.Fatal(err)
		}
		d := waitExport(t, c, aws.ToString(out.ExportDescription.ExportArn))
		target := "Copy" + string(format[0:3])
		imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormat(format), InputCompressionType: types.InputCompressionTypeGzip,
			S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("exports"), S3KeyPrefix: aws.String(strings.TrimSuffix(aws.ToString(d.ExportManifest), "manifest-summary.json") + "data/")},
			TableCreationParameters: importParams(target)})
		if err != nil {
			t.Fatal(err)
		}
		if imp.ImportTableDescription.ImportStatus != types.ImportStatusInProgress {
			t.Errorf("ImportTable answered %+v", imp.ImportTableDescription)
		}
		done := waitImport(t, c, imp.ImportTableDescription.ImportArn)
		if done.ImportStatus != types.ImportStatusCompleted || done.ImportedItemCount != 200 || done.ProcessedItemCount != 200 || done.ErrorCount != 0 {
			t.Errorf("%s import: %+v", format, done)
		}
		if got, want := scanLines(t, c, target), scanLines(t, c, "Things"); !slices.Equal(got, want) {
			t.Errorf("%s: imported table has %d items, source %d: they differ", format, len(got), len(want))
		}
		var q *dynamodb.QueryOutput
		for try := 0; try < 100 && (q == nil || q.Count != 1); try++ { // the global index catches up
			if q, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(target), IndexName: aws.String("bySk"),
				KeyConditionExpression: aws.String("sk = :s"), ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("7")}}); err != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err != nil || q.Count != 1 {
			t.Errorf("%s: GSI query: %v, %v", format, q, err)
		}
	}
}

// TestImportTableSources imports CSV and JSON sources with bad records,
// compressed three ways, and checks the refusals and idempotency.
func TestImportTableSources(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	put := func(key, body string) { putObject(t, st, "src", key, body) }
	put("csv/a.csv", "pk|sk|note\na|1|x\nb|2\nc|3|y\n")
	put("json/a.json", `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}`+"\n"+`{"Item":{"pk":{"N":"1"},"sk":{"S":"1"}}}`+"\nnot json\n"+
		`{"Item":{"pk":{"S":"b"},"sk":{"S":"2"},"big":{"S":"`+strings.Repeat("x", 410000)+`"}}}`+"\n")
	csv, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatCsv, ClientToken: aws.String("csv-1"),
		InputFormatOptions: &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String("|")}},
		S3BucketSource:     &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("csv/")}, TableCreationParameters: importParams("FromCsv")})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitImport(t, c, csv.ImportTableDescription.ImportArn); d.ImportedItemCount != 2 || d.ErrorCount != 1 || d.ProcessedItemCount != 3 {
		t.Errorf("CSV import: %+v", d)
	}
	again, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatCsv, ClientToken: aws.String("csv-1"),
		InputFormatOptions: &types.InputFormatOptions{Csv: &types.CsvOptions{Delimiter: aws.String("|")}},
		S3BucketSource:     &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("csv/")}, TableCreationParameters: importParams("FromCsv")})
	if err != nil || aws.ToString(again.ImportTableDescription.ImportArn) != aws.ToString(csv.ImportTableDescription.ImportArn) {
		t.Errorf("same ClientToken again: %v", err)
	}
	js, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("json/")}, TableCreationParameters: importParams("FromJson")})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitImport(t, c, js.ImportTableDescription.ImportArn); d.ImportedItemCount != 1 || d.ErrorCount != 3 || d.ProcessedItemCount != 4 {
		t.Errorf("JSON import: %+v", d)
	}
	_, err = c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src")}, TableCreationParameters: importParams("FromJson")})
	var inUse *types.ResourceInUseException
	if !errors.As(err, &inUse) || inUse.ErrorMessage() != "Table already exists: FromJson" {
		t.Errorf("import into an existing table: %v", err)
	}
	_, err = c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: aws.String(aws.ToString(js.ImportTableDescription.TableArn) + "/import/01234567890123-abcdef01")})
	var inf *types.ImportNotFoundException
	if !errors.As(err, &inf) {
		t.Errorf("unknown import: %v", err)
	}
	list, err := c.ListImports(ctx, &dynamodb.ListImportsInput{})
	if err != nil || len(list.ImportSummaryList) != 2 || list.ImportSummaryList[0].ImportStatus != types.ImportStatusFailed {
		t.Errorf("ListImports: %+v, %v", list, err)
	}
	none, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("nothing/")}, TableCreationParameters: importParams("Empty")})
	if err != nil {
		t.Fatal(err)
	}
	err = dynamodb.NewImportCompletedWaiter(c, func(o *dynamodb.ImportCompletedWaiterOptions) {
		o.MinDelay, o.MaxDelay = 10*time.Millisecond, 50*time.Millisecond
	}).
		Wait(ctx, &dynamodb.DescribeImportInput{ImportArn: none.ImportTableDescription.ImportArn}, time.Minute)
	if err == nil {
		t.Errorf("import of an empty prefix completed; want FAILED")
	}
}
