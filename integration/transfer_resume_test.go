package integration

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// resumeItems is how many items the kill -9 tests' bulk loads carry: at
// 1,024 write units a second (one per item) the load takes about five
// seconds, a checkpoint (1,000 items) a second, so the kill lands between
// checkpoints whatever the machine's speed.
const resumeItems = 5000

// writeSource writes n items pk "<prefix>-i", sk "x" as gzip DYNAMODB_JSON
// objects of at most per items under bucket src, prefix in/, and one bad
// line in the last object.
func writeSource(t *testing.T, st bucket.Store, prefix string, n, per int) {
	t.Helper()
	for obj := 0; obj*per < n; obj++ {
		w, err := st.Create(context.Background(), "src", fmt.Sprintf("in/%04d.json.gz", obj))
		if err != nil {
			t.Fatal(err)
		}
		gz := gzip.NewWriter(w)
		for i := obj * per; i < min(n, (obj+1)*per); i++ {
			fmt.Fprintf(gz, `{"Item":{"pk":{"S":"%s-%d"},"sk":{"S":"x"},"v":{"N":"%d"}}}`+"\n", prefix, i, i)
		}
		if (obj+1)*per >= n {
			gz.Write([]byte("not json\n"))
		}
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// countItems counts a table's items with consistent Scans.
func countItems(t *testing.T, c *dynamodb.Client, name string) int32 {
	t.Helper()
	var total int32
	in := &dynamodb.ScanInput{TableName: aws.String(name), Select: types.SelectCount, ConsistentRead: aws.Bool(true)}
	for {
		out, err := c.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		total += out.Count
		if in.ExclusiveStartKey = out.LastEvaluatedKey; in.ExclusiveStartKey == nil {
			return total
		}
	}
}

// startPacedBulk starts a bulk load of src/in/ into table at 1,024 write
// units a second and waits until its first checkpoint shows (through
// watch), failing if the load ends first.
func startPacedBulk(t *testing.T, c, watch *dynamodb.Client, table string) *string {
	t.Helper()
	in := bulkInput(table, "in/", "resume")
	in.InputS3Configuration.InputCompressionType = types.InputCompressionTypeGzip
	in.MaxWriteRequestUnits = aws.Int64(1024)
	out, err := c.StartBulkPutItems(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	arn := out.BulkOperationDescription.BulkOperationArn
	waitFor(t, "the load's first checkpoint", func() bool {
		d, err := watch.DescribeBulkOperation(context.Background(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		if st := d.BulkOperationDescription.BulkOperationStatus; st != types.BulkOperationStatusInProgress {
			t.Fatalf("the load ended %s before the kill", st)
		}
		return d.BulkOperationDescription.ProcessedItemCount > 0
	})
	return arn
}

// checkResumed: the load ended COMPLETED_WITH_ERRORS (the one bad line)
// with every record counted once, the table holds every item, and its
// stream has one record per item: nothing written twice, nothing lost.
func checkResumed(t *testing.T, c *dynamodb.Client, url string, arn *string, table, streamARN string) {
	t.Helper()
	d := waitBulk(t, c, arn)
	if d.BulkOperationStatus != types.BulkOperationStatusCompletedWithErrors || d.ProcessedItemCount != resumeItems+1 || d.FailedItemCount != 1 {
		t.Errorf("resumed load: status %s, processed %d, failed %d; want COMPLETED_WITH_ERRORS, %d, 1",
			d.BulkOperationStatus, d.ProcessedItemCount, d.FailedItemCount, resumeItems+1)
	}
	if got := countItems(t, c, table); got != resumeItems {
		t.Errorf("items after the resumed load: %d, want %d", got, resumeItems)
	}
	recs, _ := walkStream(t, streamsClient(url), streamARN)
	if len(recs) != resumeItems {
		t.Errorf("stream records after the resumed load: %d, want %d (one per item)", len(recs), resumeItems)
	}
}

// TestTransferResumeAfterKill: a server killed with SIGKILL in the middle
// of a bulk load and of an import resumes both when it starts again on the
// same files: each ends with every item written once.
func TestTransferResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	s3dir := filepath.Join(dir, "s3")
	st := bucket.Dir{Root: s3dir}
	writeSource(t, st, "p", resumeItems, 1000)
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "db"), "--s3-dir", s3dir}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	streamARN := createStreamTable(t, c, "Resume", types.StreamViewTypeKeysOnly)
	arn := startPacedBulk(t, c, c, "Resume")
	importARN := startBigImport(t, c, st)
	checkBuilding(t, c, importARN)
	p.kill()

	p = startBinary(t, dir, nil, args...)
	c = p.client()
	checkResumed(t, c, p.URL, arn, "Resume", streamARN)
	d := waitImport(t, c, importARN)
	if d.ImportStatus != types.ImportStatusCompleted || d.ImportedItemCount != bigImport || d.ProcessedItemCount != bigImport || d.ErrorCount != 0 {
		t.Errorf("resumed import: status %s, imported %d, processed %d, errors %d; want COMPLETED, %d, %d, 0", d.ImportStatus,
			d.ImportedItemCount, d.ProcessedItemCount, d.ErrorCount, bigImport, bigImport)
	}
	if got := countItems(t, c, "Imported"); got != bigImport {
		t.Errorf("items after the resumed import: %d, want %d", got, bigImport)
	}
	p.stopOK()
}

// checkBuilding: while an import builds table Imported whole, the table is
// CREATING and an item write to it is refused as to a missing table (the
// import may have ended meanwhile: then both are allowed). The item
// written is one the import holds, so the counts stay.
func checkBuilding(t *testing.T, c *dynamodb.Client, arn *string) {
	t.Helper()
	ctx := context.Background()
	desc, derr := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Imported")})
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Imported"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "i-0"}, "sk": &types.AttributeValueMemberS{Value: "x"}}})
	d, ierr := c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: arn})
	if derr != nil || ierr != nil {
		t.Fatal(derr, ierr)
	}
	if d.ImportTableDescription.ImportStatus != types.ImportStatusInProgress {
		return
	}
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) || aws.ToString(nf.Message) != "Requested resource not found" {
		t.Errorf("PutItem into the table an import builds: %v, want ResourceNotFoundException: Requested resource not found", err)
	}
	if desc.Table.TableStatus != types.TableStatusCreating {
		t.Errorf("the table an import builds is %s, want CREATING", desc.Table.TableStatus)
	}
}

// bigImport is the size of the import killed mid-way: large enough that
// it runs for a while even on a fast machine.
const bigImport = 200000

// startBigImport starts an import of bigImport items from src/big/ and
// waits until its first checkpoint shows, failing if it ends first.
func startBigImport(t *testing.T, c *dynamodb.Client, st bucket.Store) *string {
	t.Helper()
	return startImportOf(t, c, st, bigImport)
}

// startImportOf is startBigImport of n items.
func startImportOf(t *testing.T, c *dynamodb.Client, st bucket.Store, n int) *string {
	t.Helper()
	ctx := context.Background()
	for obj := 0; obj < 4; obj++ {
		w, err := st.Create(ctx, "src", fmt.Sprintf("big/%d.json.gz", obj))
		if err != nil {
			t.Fatal(err)
		}
		gz := gzip.NewWriter(w)
		for i := obj * n / 4; i < (obj+1)*n/4; i++ {
			fmt.Fprintf(gz, `{"Item":{"pk":{"S":"i-%d"},"sk":{"S":"x"}}}`+"\n", i)
		}
		gz.Close()
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	params := importParams("Imported")
	params.GlobalSecondaryIndexes = nil
	out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		InputCompressionType: types.InputCompressionTypeGzip, TableCreationParameters: params,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("big/")}})
	if err != nil {
		t.Fatal(err)
	}
	arn := out.ImportTableDescription.ImportArn
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		d, err := c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		if d.ImportTableDescription.ImportStatus != types.ImportStatusInProgress {
			t.Fatalf("the import ended %s before the kill; import more items", d.ImportTableDescription.ImportStatus)
		}
		if d.ImportTableDescription.ProcessedItemCount > 0 {
			return arn
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the import made no progress within a minute")
	return nil
}

// TestTransferClusterHandover: two front-ends share an etcd store; the one
// running a bulk load (the only one when the load starts, so the owner of
// the transfers) is killed with SIGKILL, and the other, once the dead one's
// lease ends, takes the load over from its last checkpoint. Its status is
// visible from both while it runs.
func TestTransferClusterHandover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if signedPass() {
		t.Skip("run once, in the unsigned pass: signatures change nothing here")
	}
	ec := etcdtest.StartT(t, 1)
	url := "etcd://" + strings.TrimPrefix(ec.Endpoints()[0], "http://") + "/xfer"
	dir := t.TempDir()
	s3dir := filepath.Join(dir, "s3")
	writeSource(t, bucket.Dir{Root: s3dir}, "h", resumeItems, 1000)
	args := []string{"--port", "0", "--store", url, "--etcd-timeout", etcdDial.String(), "--s3-dir", s3dir}
	p1 := startBinary(t, dir, nil, args...)
	c1 := p1.client()
	streamARN := createStreamTable(t, c1, "Handover", types.StreamViewTypeKeysOnly)
	arn := startPacedBulk(t, c1, c1, "Handover")
	p2 := startBinary(t, dir, nil, args...)
	c2 := p2.client()
	d, err := c2.DescribeBulkOperation(context.Background(), &dynamodb.DescribeBulkOperationInput{BulkOperationArn: arn})
	if err != nil || d.BulkOperationDescription.BulkOperationStatus != types.BulkOperationStatusInProgress {
		t.Fatalf("the load seen from the second front-end: %+v, %v", d, err)
	}
	p1.kill()
	checkResumed(t, c2, p2.URL, arn, "Handover", streamARN)
	p2.stopOK()
}

// TestExportResumeAfterKill: a server killed with SIGKILL while it writes
// an export writes it again from the start when it starts again on the
// same files: the export completes with every item exactly once, and the
// killed attempt leaves no object a reader of the layout would see.
func TestExportResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	s3dir := filepath.Join(dir, "s3")
	st := bucket.Dir{Root: s3dir}
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "db"), "--s3-dir", s3dir}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	waitImport(t, c, startBigImport(t, c, st))
	enablePITR(t, c, "Imported", 0)
	arn := exportAndKill(t, p, c, s3dir)

	p = startBinary(t, dir, nil, args...)
	c = p.client()
	d := waitExport(t, c, arn)
	if d.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(d.ItemCount) != bigImport {
		t.Fatalf("resumed export: status %s, items %d; want COMPLETED, %d", d.ExportStatus, aws.ToInt64(d.ItemCount), bigImport)
	}
	lines, sum := readExportLines(t, st, "out", aws.ToString(d.ExportManifest))
	if sum["itemCount"] != float64(bigImport) || len(lines) != bigImport {
		t.Errorf("resumed export: summary itemCount %v, %d data lines; want %d", sum["itemCount"], len(lines), bigImport)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] {
			t.Fatalf("resumed export: %s written twice", strings.TrimSpace(lines[i]))
		}
	}
	p.stopOK()
}

// exportAndKill starts an export of Imported to bucket out, kills the
// server with SIGKILL as soon as the export's _started object shows, and
// returns the export's ARN; it fails if the export had already finished.
func exportAndKill(t *testing.T, p *proc, c *dynamodb.Client, s3dir string) string {
	t.Helper()
	ctx := context.Background()
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Imported")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.ExportTableToPointInTime(ctx, &dynamodb.ExportTableToPointInTimeInput{TableArn: desc.Table.TableArn, S3Bucket: aws.String("out")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.ExportDescription.ExportArn)
	folder := filepath.Join(s3dir, "out", "AWSDynamoDB", arn[strings.LastIndex(arn, "/")+1:])
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(folder, "_started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the export did not start within a minute")
		}
		time.Sleep(time.Millisecond)
	}
	p.kill()
	if _, err := os.Stat(filepath.Join(folder, "manifest-summary.json")); err == nil {
		t.Fatal("the export finished before the kill; raise bigImport")
	}
	return arn
}

// clusterImport is the size of the import TestImportClusterHandover kills
// mid-way: the etcd store writes far fewer items a second than the
// durable one, so a smaller import still runs for a while.
const clusterImport = 20000

// TestImportClusterHandover: two front-ends share an etcd store; an import
// started through the first (the owner of the transfers) shows IN_PROGRESS
// through the second, its table CREATING, the first is killed with SIGKILL in the middle of
// it, and the second, once the dead one's lease ends, resumes it from its
// last checkpoint: it completes with every item imported once, its counts
// going on from the checkpoint's, and both front-ends' view is the same.
func TestImportClusterHandover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if signedPass() {
		t.Skip("run once, in the unsigned pass: signatures change nothing here")
	}
	ec := etcdtest.StartT(t, 1)
	url := "etcd://" + strings.TrimPrefix(ec.Endpoints()[0], "http://") + "/ximp"
	dir := t.TempDir()
	s3dir := filepath.Join(dir, "s3")
	args := []string{"--port", "0", "--store", url, "--etcd-timeout", etcdDial.String(), "--s3-dir", s3dir}
	p1 := startBinary(t, dir, nil, args...)
	c1 := p1.client()
	arn := startImportOf(t, c1, bucket.Dir{Root: s3dir}, clusterImport)
	p2 := startBinary(t, dir, nil, args...)
	c2 := p2.client()
	desc, derr := c2.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("Imported")})
	d, err := c2.DescribeImport(context.Background(), &dynamodb.DescribeImportInput{ImportArn: arn})
	if err != nil || d.ImportTableDescription.ImportStatus != types.ImportStatusInProgress {
		t.Fatalf("the import seen from the second front-end: %+v, %v", d, err)
	}
	if derr != nil || desc.Table.TableStatus != types.TableStatusCreating {
		t.Fatalf("the table being imported seen from the second front-end: %v, %v; want CREATING", desc, derr)
	}
	checkNoBulkDuringImport(t, c2, arn)
	p1.kill()
	got := waitImport(t, c2, arn)
	if got.ImportStatus != types.ImportStatusCompleted || got.ImportedItemCount != clusterImport || got.ProcessedItemCount != clusterImport || got.ErrorCount != 0 {
		t.Errorf("import taken over: status %s, imported %d, processed %d, errors %d; want COMPLETED, %d, %d, 0", got.ImportStatus,
			got.ImportedItemCount, got.ProcessedItemCount, got.ErrorCount, clusterImport, clusterImport)
	}
	if n := countItems(t, c2, "Imported"); n != clusterImport {
		t.Errorf("items after the import taken over: %d, want %d", n, clusterImport)
	}
	p2.stopOK()
}

// checkNoBulkDuringImport: a bulk load into the table an import (run by
// another front-end) creates is refused while the import runs, as into any
// table being created (the import may have ended meanwhile: then the load
// is not checked).
func checkNoBulkDuringImport(t *testing.T, c *dynamodb.Client, arn *string) {
	t.Helper()
	ctx := context.Background()
	_, berr := c.StartBulkPutItems(ctx, bulkInput("Imported", "big/", "during-import"))
	d, err := c.DescribeImport(ctx, &dynamodb.DescribeImportInput{ImportArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	if d.ImportTableDescription.ImportStatus == types.ImportStatusInProgress {
		wantAPIError(t, berr, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: Imported")
	}
}

// TestExportClusterHandover: two front-ends share an etcd store; an export
// started through the first (the owner of the transfers) is killed with
// SIGKILL as soon as it has begun writing, and the second, once the dead
// one's lease ends, writes it again from the start at the same
// ExportTime: it ends COMPLETED (never also FAILED), each item exactly
// once, and both front-ends saw it IN_PROGRESS while it ran.
func TestExportClusterHandover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if signedPass() {
		t.Skip("run once, in the unsigned pass: signatures change nothing here")
	}
	ec := etcdtest.StartT(t, 1)
	url := "etcd://" + strings.TrimPrefix(ec.Endpoints()[0], "http://") + "/xexp"
	dir := t.TempDir()
	s3dir := filepath.Join(dir, "s3")
	st := bucket.Dir{Root: s3dir}
	args := []string{"--port", "0", "--store", url, "--etcd-timeout", etcdDial.String(), "--s3-dir", s3dir}
	p1 := startBinary(t, dir, nil, args...)
	c1 := p1.client()
	waitImport(t, c1, startImportOf(t, c1, st, clusterImport))
	enablePITR(t, c1, "Imported", 0)
	p2 := startBinary(t, dir, nil, args...)
	c2 := p2.client()
	arn := exportAndKill(t, p1, c1, s3dir)
	ctx := context.Background()
	d, err := c2.DescribeExport(ctx, &dynamodb.DescribeExportInput{ExportArn: aws.String(arn)})
	if err != nil || d.ExportDescription.ExportStatus != types.ExportStatusInProgress {
		t.Fatalf("the export seen from the second front-end after the kill: %+v, %v", d, err)
	}
	got := waitExport(t, c2, arn)
	if got.ExportStatus != types.ExportStatusCompleted || aws.ToInt64(got.ItemCount) != clusterImport || got.FailureCode != nil {
		t.Fatalf("export taken over: status %s, items %d, failure %v; want COMPLETED, %d, none",
			got.ExportStatus, aws.ToInt64(got.ItemCount), aws.ToString(got.FailureCode), clusterImport)
	}
	lines, sum := readExportLines(t, st, "out", aws.ToString(got.ExportManifest))
	if sum["itemCount"] != float64(clusterImport) || len(lines) != clusterImport {
		t.Errorf("export taken over: summary itemCount %v, %d data lines; want %d", sum["itemCount"], len(lines), clusterImport)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == lines[i-1] {
			t.Fatalf("export taken over: %s written twice", strings.TrimSpace(lines[i]))
		}
	}
	list, err := c2.ListExports(ctx, &dynamodb.ListExportsInput{})
	if err != nil || len(list.ExportSummaries) != 1 || list.ExportSummaries[0].ExportStatus != types.ExportStatusCompleted {
		t.Errorf("ListExports after the handover: %+v, %v; want the one export, COMPLETED", list, err)
	}
	p2.stopOK()
}
