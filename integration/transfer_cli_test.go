package integration

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
)

// roundTripItem holds every type, a 38-digit number, and empty values.
func roundTripItem(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(fmt.Sprintf("k%d", i%11)), "sk": s(fmt.Sprint(i)),
		"big": n(fmt.Sprintf("1234567890123456789012345678901234567%d", i%10)), "tiny": n("-1E-130"),
		"b": &types.AttributeValueMemberB{Value: []byte{byte(i), 0, 255}}, "eb": &types.AttributeValueMemberB{Value: []byte{}},
		"es": s(""), "t": &types.AttributeValueMemberBOOL{Value: i%2 == 0}, "z": &types.AttributeValueMemberNULL{Value: true},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"e": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, "q\"uote d": s("x\ny")}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberL{Value: []types.AttributeValue{}}, n("600")}},
		"ss": &types.AttributeValueMemberSS{Value: []string{"", "☃"}}, "ns": &types.AttributeValueMemberNS{Value: []string{"0.5", "-7"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {}}}}
}

// TestBinaryExportImportS3Layout exports with the binary in the service's
// layout (both formats, folder and S3 endpoint), imports the export's
// folder into another server, and compares the tables item for item.
func TestBinaryExportImportS3Layout(t *testing.T) {
	fake := buckettest.Start(t, "exports")
	for _, c := range []struct {
		name, format string
		s3           []string
	}{
		{"dir-json", "DYNAMODB_JSON", []string{"--s3-dir", t.TempDir()}},
		{"dir-ion", "ION", []string{"--s3-dir", t.TempDir()}},
		{"endpoint-ion", "ION", []string{"--s3-endpoint", fake.URL}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
			b := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
			ctx := context.Background()
			createTable(t, a.client(), "Things", true)
			createTable(t, b.client(), "Things", true)
			for i := range 120 {
				if _, err := a.client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Things"), Item: roundTripItem(i)}); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"export", "--endpoint", a.URL, "--table", "Things", "--to", "s3://exports/runs/1", "--format", c.format}, c.s3...)
			code, stdout, stderr := runCommand(t, nil, args...)
			summary := strings.TrimSpace(stdout)
			if code != 0 || !strings.HasPrefix(summary, "s3://exports/runs/1/AWSDynamoDB/") || !strings.HasSuffix(summary, "/manifest-summary.json") {
				t.Fatalf("export: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			from := strings.TrimSuffix(summary, "/manifest-summary.json") // the export's folder
			if c.format == "ION" {
				from = summary // or the summary itself
			}
			args = append([]string{"import", "--endpoint", b.URL, "--table", "Things", "--from", from}, c.s3...)
			code, stdout, stderr = runCommand(t, nil, args...)
			if code != 0 || !strings.Contains(stdout, "imported 120 items") || !strings.Contains(stdout, "0 records could not be imported") {
				t.Fatalf("import: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			want, got := exportLines(t, a.URL), exportLines(t, b.URL)
			if len(want) != 120 || !slices.Equal(got, want) {
				t.Errorf("after export and import: got %d lines, want the %d exported", len(got), len(want))
			}
		})
	}
}

// TestBinaryImportS3Sources imports a CSV object with bad rows: good rows
// load, bad ones are counted and named on stderr, and the command exits 1
// for them.
func TestBinaryImportS3Sources(t *testing.T) {
	fake := buckettest.Start(t, "src")
	putObject(t, fake.Store(t), "src", "in/part.csv", "pk;sk;note\na;1;x\nb;2\nc;3;y\n")
	a := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	createTable(t, a.client(), "Things", true)
	code, stdout, stderr := runCommand(t, nil, "import", "--endpoint", a.URL, "--table", "Things", "--from", "s3://src/in/",
		"--s3-endpoint", fake.URL, "--input-format", "CSV", "--csv-delimiter", ";")
	if code != 1 || !strings.Contains(stdout, "imported 2 items from 1 objects; 1 records could not be imported") ||
		!strings.Contains(stderr, "in/part.csv:3") || !strings.Contains(stderr, "ddblocal: import Things: 1 of 3 records could not be imported") {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if got := scanLines(t, a.client(), "Things"); len(got) != 2 {
		t.Errorf("table after the import: %q, want the 2 good rows", got)
	}
}

// TestBinaryImportBrokenObject: an input object whose compressed bytes
// break off (a GZIP stream cut short, a ZSTD one whose checksum is wrong) is one record
// that could not be imported, named on stderr, and the import goes on with
// the next object, as ImportTable does: the objects around it load whole,
// the command prints the counts and exits 1. Without the cut the same
// import exits 0.
func TestBinaryImportBrokenObject(t *testing.T) {
	for _, comp := range []string{"GZIP", "ZSTD"} {
		t.Run(comp, func(t *testing.T) {
			dir := t.TempDir()
			st := bucket.Dir{Root: dir}
			a := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
			createTable(t, a.client(), "Things", true)
			putObject(t, st, "src", "in/1.json", compressed(t, comp, itemLines("a", 3)))
			whole := compressed(t, comp, itemLines("b", 500))
			putObject(t, st, "src", "in/2.json", breakOff(comp, whole))
			putObject(t, st, "src", "in/3.json", compressed(t, comp, itemLines("c", 2)))
			code, stdout, stderr := runCommand(t, nil, "import", "--endpoint", a.URL, "--table", "Things", "--from", "s3://src/in/",
				"--s3-dir", dir, "--compression", comp)
			if code != 1 || !strings.Contains(stdout, "from 3 objects; 1 records could not be imported") ||
				!strings.Contains(stderr, "in/2.json:") || !strings.Contains(stderr, "cannot be read from here on") {
				t.Fatalf("import: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			got := scanLines(t, a.client(), "Things")
			var n int
			if _, err := fmt.Sscanf(stdout, "imported %d items", &n); err != nil || n != len(got) {
				t.Errorf("stdout %q: want the %d items the table holds", stdout, len(got))
			}
			for _, pk := range []string{"a-0", "a-2", "c-0", "c-1"} {
				if !slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, `"`+pk+`"`) }) {
					t.Errorf("%s (an object beside the broken one) is not in the table", pk)
				}
			}
			putObject(t, st, "src", "in/2.json", whole)
			code, stdout, stderr = runCommand(t, nil, "import", "--endpoint", a.URL, "--table", "Things", "--from", "s3://src/in/",
				"--s3-dir", dir, "--compression", comp)
			if code != 0 || !strings.Contains(stdout, "imported 505 items from 3 objects; 0 records could not be imported") {
				t.Errorf("import of whole objects: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}

// itemLines is n DynamoDB JSON lines, partition keys PREFIX-0 on.
func itemLines(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"Item":{"pk":{"S":"%s-%d"},"sk":{"S":"x"},"pad":{"S":"%0100d"}}}`+"\n", prefix, i, i)
	}
	return b.String()
}

// compressed is text in GZIP or ZSTD.
func compressed(t *testing.T, comp, text string) string {
	t.Helper()
	var b bytes.Buffer
	var w io.WriteCloser = gzip.NewWriter(&b)
	if comp == "ZSTD" {
		zw, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	}
	if _, err := io.WriteString(w, text); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// breakOff breaks a compressed stream: GZIP cut at half its length, ZSTD
// with a wrong frame checksum (its last four bytes).
func breakOff(comp, s string) string {
	if comp == "GZIP" {
		return s[:len(s)/2]
	}
	b := []byte(s)
	b[len(b)-3] ^= 0xff
	return string(b)
}
