package table

import (
	"context"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// TestInterruptedJobsResume: the jobs a stopped server left running (as
// kill -9 leaves them: the records IN_PROGRESS, an import's checkpoint
// after its first chunk) are run by the next Service on the same store. The
// import reads on from its checkpoint: the records before it are not
// written again (the test never wrote them, so they stay absent) and the
// counts go on from the checkpoint's; the export, which keeps no
// checkpoint, is written whole; a load left CANCELLING ends CANCELLED; a
// finished job is left alone.
func TestInterruptedJobsResume(t *testing.T) {
	ctx := context.Background()
	const region = "us-east-1"
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := bucket.Dir{Root: t.TempDir()}
	put := func(key, body string) int64 {
		w, _ := st.Create(ctx, "src", key)
		io.WriteString(w, body)
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		return int64(len(body))
	}
	aSize := put("in/a.json", `{"Item":{"pk":{"S":"a1"}}}`+"\n"+`{"Item":{"pk":{"S":"a2"}}}`+"\n"+`{"Item":{"pk":{"S":"a3"}}}`+"\n")
	put("in/b.json", `{"Item":{"pk":{"S":"b1"}}}`+"\nbad\n"+`{"Item":{"pk":{"S":"b2"}}}`+"\n")

	s := New(db, Options{S3: st})
	create := &ddb.CreateTableInput{TableName: "T", BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}
	if _, err := s.CreateTable(ctx, region, create); err != nil {
		t.Fatal(err)
	}
	m, err := s.catalog.get(db, region, "T")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	imp := newImportJob(m, &ddb.ImportTableInput{InputFormat: s3import.FormatJSON,
		S3BucketSource: &ddb.S3BucketSource{S3Bucket: "src", S3KeyPrefix: "in/"}}, jobID(now), now)
	imp.Progress = jobProgress{Written: 2, Pos: s3import.Position{Key: "in/a.json", Records: 2,
		Stats: s3import.Stats{Objects: 1, Processed: 2, Bytes: aSize}}}
	exp := newExportJob(m, &ddb.ExportTableToPointInTimeInput{S3Bucket: "dst"}, now, now, nil)
	bulk := newBulkJob(m, &ddb.StartBulkPutItemsInput{InputS3Configuration: &ddb.InputS3Configuration{S3Bucket: "src", S3KeyPrefix: "in/",
		InputFormat: s3import.FormatJSON}, OutputS3Configuration: &ddb.OutputS3Configuration{}}, now)
	bulk.Desc.BulkOperationStatus = "CANCELLING"
	done := &exportJob{Desc: ddb.ExportDescription{ExportArn: m.arn() + "/export/00-done", ExportStatus: "COMPLETED"}}
	s.Close() // the jobs are recorded as a killed server left them
	writeJobs(t, db, region, imp, exp, bulk, done)

	s = New(db, Options{S3: st})
	defer s.Close()
	var d ddb.ImportTableDescription
	waitFor(t, func() bool {
		out, err := s.DescribeImport(ctx, region, &ddb.DescribeImportInput{ImportArn: imp.Desc.ImportArn})
		d = out.ImportTableDescription
		return err == nil && d.ImportStatus != "IN_PROGRESS"
	})
	if d.ImportStatus != "FAILED" || d.FailureCode != "ItemValidationError" || d.ImportedItemCount != 5 || d.ProcessedItemCount != 6 || d.ErrorCount != 1 {
		t.Errorf("resumed import: %+v", d)
	}
	if got, want := tableKeys(t, s, region, "T"), []string{"a3", "b1", "b2"}; !slices.Equal(got, want) {
		t.Errorf("items after the resumed import: %v, want %v (a1 and a2 lie before the checkpoint)", got, want)
	}
	waitFor(t, func() bool {
		out, err := s.DescribeExport(ctx, region, &ddb.DescribeExportInput{ExportArn: exp.Desc.ExportArn})
		return err == nil && out.ExportDescription.ExportStatus == "COMPLETED" && out.ExportDescription.ExportManifest != ""
	})
	waitFor(t, func() bool {
		out, err := s.DescribeBulkOperation(ctx, region, &ddb.DescribeBulkOperationInput{BulkOperationArn: bulk.Desc.BulkOperationArn})
		return err == nil && out.BulkOperationDescription.BulkOperationStatus == "CANCELLED"
	})
	out, err := s.DescribeExport(ctx, region, &ddb.DescribeExportInput{ExportArn: done.Desc.ExportArn})
	if err != nil || out.ExportDescription.ExportStatus != "COMPLETED" {
		t.Errorf("finished export: %+v, %v", out, err)
	}
}

// writeJobs records jobs as they are.
func writeJobs(t *testing.T, db *store.DB, region string, jobs ...any) {
	t.Helper()
	err := db.Update(context.Background(), func(tx *store.Tx) error {
		for _, j := range jobs {
			var kind, arn string
			switch j := j.(type) {
			case *importJob:
				kind, arn = kindImport, j.Desc.ImportArn
			case *exportJob:
				kind, arn = kindExport, j.Desc.ExportArn
			case *bulkJob:
				kind, arn = kindBulk, j.Desc.BulkOperationArn
			}
			id, _ := jobIDFromARN(arn, kind)
			if err := writeJob(tx, region, kind, id, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 10s")
}

// tableKeys returns the sorted string partition keys (pk) of a table.
func tableKeys(t *testing.T, s *Service, region, name string) []string {
	t.Helper()
	out, err := s.Scan(context.Background(), region, &ddb.ScanInput{TableName: name})
	if err != nil {
		t.Fatal(err)
	}
	var items []map[string]map[string]string // the items have only pk
	if err := json.Unmarshal(append(append([]byte("["), out.RenderedItems...), ']'), &items); err != nil {
		t.Fatalf("%v: %s", err, out.RenderedItems)
	}
	var keys []string
	for _, it := range items {
		keys = append(keys, it["pk"]["S"])
	}
	slices.Sort(keys)
	return keys
}

// TestPageToken: a listing's NextToken is of the documented shape (at
// least 112 characters of ([0-9a-f]{16})+) and names the job it was made
// from; no token names none.
func TestPageToken(t *testing.T) {
	shape := regexp.MustCompile(`^([0-9a-f]{16})+$`)
	for _, id := range []string{jobID(time.UnixMilli(1_700_000_000_123)), "00000000000001-00000000", strings.Repeat("x", 70)} {
		tok := pageToken(id)
		if !shape.MatchString(tok) || len(tok) < pageTokenDigits {
			t.Errorf("pageToken(%q) = %q: not %d or more of ([0-9a-f]{16})+", id, tok, pageTokenDigits)
		}
		if got := pageTokenID(tok); got != id {
			t.Errorf("pageTokenID(pageToken(%q)) = %q", id, got)
		}
	}
	if got := pageTokenID(""); got != "" {
		t.Errorf(`pageTokenID("") = %q, want ""`, got)
	}
}
