package integration

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestImportErrorLog: where the service writes a CloudWatch Logs entry for
// each record an import could not import, the server logs a warning naming
// the import, the object, the line and the reason, up to 1,000 records an
// import, then says the rest are only counted.
func TestImportErrorLog(t *testing.T) {
	dir := t.TempDir()
	st := bucket.Dir{Root: filepath.Join(dir, "s3")}
	putObject(t, st, "src", "in/1.json", `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"}}}`+"\n"+`{"Item":{"pk":{"N":"1"},"sk":{"S":"1"}}}`+"\n"+"not json\n")
	putObject(t, st, "src", "in/2.json", strings.Repeat("{}\n", 1000))
	p := startBinary(t, dir, nil, "--in-memory", "--port", "0", "--s3-dir", st.Root)
	c := p.client()
	out, err := c.ImportTable(context.Background(), &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("in/")},
		TableCreationParameters: importParams("Logged")})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.ImportTableDescription.ImportArn)
	if d := waitImport(t, c, out.ImportTableDescription.ImportArn); d.ImportedItemCount != 1 || d.ErrorCount != 1002 {
		t.Fatalf("import: %d items, %d errors; want 1 and 1002", d.ImportedItemCount, d.ErrorCount)
	}
	record := regexp.MustCompile(`level=WARN msg="import: record not imported" import=` + regexp.QuoteMeta(arn) + ` object=(\S+) line=(\d+) reason=`)
	further := `msg="import: further records not imported are counted in ErrorCount only" import=` + arn + " logged=1000"
	waitFor(t, "the import's error log", func() bool { return strings.Contains(p.log.String(), further) })
	lines := record.FindAllStringSubmatch(p.log.String(), -1)
	if len(lines) != 1000 || strings.Count(p.log.String(), further) != 1 {
		t.Fatalf("logged %d bad records (want 1,000) and the end of the log %d times (want once)", len(lines), strings.Count(p.log.String(), further))
	}
	for i, want := range map[int][2]string{0: {"in/1.json", "2"}, 1: {"in/1.json", "3"}, 2: {"in/2.json", "1"}, 999: {"in/2.json", "998"}} {
		if got := [2]string{lines[i][1], lines[i][2]}; got != want {
			t.Errorf("logged record %d: object and line %v, want %v", i, got, want)
		}
	}
}
