package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
// load, bad ones are counted and named on stderr.
func TestBinaryImportS3Sources(t *testing.T) {
	fake := buckettest.Start(t, "src")
	putObject(t, fake.Store(t), "src", "in/part.csv", "pk;sk;note\na;1;x\nb;2\nc;3;y\n")
	a := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	createTable(t, a.client(), "Things", true)
	code, stdout, stderr := runCommand(t, nil, "import", "--endpoint", a.URL, "--table", "Things", "--from", "s3://src/in/",
		"--s3-endpoint", fake.URL, "--input-format", "CSV", "--csv-delimiter", ";")
	if code != 0 || !strings.Contains(stdout, "imported 2 items from 1 objects; 1 records could not be imported") ||
		!strings.Contains(stderr, "in/part.csv:3") {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
