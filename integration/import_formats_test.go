package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// big38 is a number at DynamoDB's 38 digits, which every format must
// carry exactly.
const big38 = "12345678901234567890123456789012345678"

// importSources hold, per format, three good records (a, b and c) among
// three bad ones: a line that does not parse, one without the partition
// key and one the format reads but DynamoDB cannot hold (a key of the
// wrong type, an Ion timestamp, a CSV row short of a column).
var importSources = map[types.InputFormat]string{
	types.InputFormatDynamodbJson: `{"Item":{"pk":{"S":"a"},"sk":{"S":"1"},"n":{"N":"` + big38 + `"}}}
not json
{"Item":{"pk":{"S":"b"},"sk":{"S":"2"},"ss":{"SS":["x","y"]},"e":{"S":""}}}
{"Item":{"sk":{"S":"3"}}}
{"Item":{"pk":{"N":"1"},"sk":{"S":"3"}}}
{"Item":{"pk":{"S":"c"},"sk":{"S":"3"},"b":{"B":"AAE="}}}
`,
	types.InputFormatIon: `$ion_1_0 {Item:{pk:"a",sk:"1",n:` + big38 + `.}}
$ion_1_0 {Item:{pk:
$ion_1_0 {Item:{pk:"b",sk:"2",ss:$dynamodb_SS::["x","y"],e:""}}
$ion_1_0 {Item:{sk:"3"}}
$ion_1_0 {Item:{pk:"x",sk:"3",t:2020-01-01T00:00Z}}
$ion_1_0 {Item:{pk:"c",sk:"3",b:{{AAE=}}}}
`,
	types.InputFormatCsv: "pk,sk,n\na,1," + big38 + "\nbare\"quote,2,x\nb,2,\n,3,x\nd,4\nc,3,z\n",
}

// compressSource compresses b as an import source of type comp.
func compressSource(t *testing.T, comp types.InputCompressionType, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	switch comp {
	case types.InputCompressionTypeGzip:
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
	case types.InputCompressionTypeZstd:
		w, err := zstd.NewWriter(&out)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		w.Close()
	default:
		return b
	}
	return out.Bytes()
}

// TestImportEachFormatAndCompression imports DYNAMODB_JSON, ION and CSV,
// each uncompressed, GZIP and ZSTD, every source with bad records: each
// import loads the three good items, counts the bad ones in ErrorCount and
// ends FAILED (ItemValidationError), as the service ends an import that
// skipped records, and the items' values are exact.
func TestImportEachFormatAndCompression(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	comps := []types.InputCompressionType{types.InputCompressionTypeNone, types.InputCompressionTypeGzip, types.InputCompressionTypeZstd}
	for _, format := range []types.InputFormat{types.InputFormatDynamodbJson, types.InputFormatIon, types.InputFormatCsv} {
		for i, comp := range comps {
			prefix := fmt.Sprintf("%s-%s/", format, comp)
			w, _ := st.Create(ctx, "src", prefix+"part-0")
			w.Write(compressSource(t, comp, []byte(importSources[format])))
			if _, err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			params := importParams(fmt.Sprintf("Fmt%s%d", format[:3], i))
			out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: format, InputCompressionType: comp,
				S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String(prefix)}, TableCreationParameters: params})
			if err != nil {
				t.Fatalf("%s: %v", prefix, err)
			}
			d := waitImport(t, c, out.ImportTableDescription.ImportArn)
			if !itemsSkipped(d) || d.ImportedItemCount != 3 || d.ErrorCount != 3 || d.ProcessedItemCount != 6 {
				t.Errorf("%s: status %s, imported %d, errors %d, processed %d; want FAILED (ItemValidationError), 3, 3, 6", prefix, d.ImportStatus,
					d.ImportedItemCount, d.ErrorCount, d.ProcessedItemCount)
			}
			checkImportedValues(t, c, aws.ToString(params.TableName), format)
		}
	}
}

// checkImportedValues reads items a, b and c of an imported table: a's
// 38-digit number (a string from CSV, whose non-key cells are strings),
// b's string set and empty string, c's binary.
func checkImportedValues(t *testing.T, c *dynamodb.Client, table string, format types.InputFormat) {
	t.Helper()
	get := func(pk, sk string) map[string]types.AttributeValue {
		out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}})
		if err != nil || out.Item == nil {
			t.Fatalf("%s: item %s/%s: %v, %v", table, pk, sk, out, err)
		}
		return out.Item
	}
	a := get("a", "1")
	if format == types.InputFormatCsv {
		if v, ok := a["n"].(*types.AttributeValueMemberS); !ok || v.Value != big38 {
			t.Errorf("%s: a.n = %#v, want S %s", table, a["n"], big38)
		}
		return
	}
	if v, ok := a["n"].(*types.AttributeValueMemberN); !ok || v.Value != big38 {
		t.Errorf("%s: a.n = %#v, want N %s", table, a["n"], big38)
	}
	b := get("b", "2")
	if v, ok := b["ss"].(*types.AttributeValueMemberSS); !ok || len(v.Value) != 2 {
		t.Errorf("%s: b.ss = %#v, want SS [x y]", table, b["ss"])
	}
	if v, ok := b["e"].(*types.AttributeValueMemberS); !ok || v.Value != "" {
		t.Errorf("%s: b.e = %#v, want an empty S", table, b["e"])
	}
	if v, ok := get("c", "3")["b"].(*types.AttributeValueMemberB); !ok || !bytes.Equal(v.Value, []byte{0, 1}) {
		t.Errorf("%s: c.b = %#v, want B 0x0001", table, v)
	}
}

// TestImportConflict: a ClientToken used again with another request is
// ImportConflictException, naming the first import; with the same
// request it returns the first import.
func TestImportConflict(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := transferServer(t, st)
	ctx := context.Background()
	w, _ := st.Create(ctx, "src", "c/part-0")
	w.Write([]byte(importSources[types.InputFormatDynamodbJson]))
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	in := func(table string) *dynamodb.ImportTableInput {
		return &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, ClientToken: aws.String("conflict-1"),
			S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("c/")},
			TableCreationParameters: importParams(table)}
	}
	first, err := c.ImportTable(ctx, in("First"))
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(first.ImportTableDescription.ImportArn)
	again, err := c.ImportTable(ctx, in("First"))
	if err != nil || aws.ToString(again.ImportTableDescription.ImportArn) != arn {
		t.Errorf("same token, same request: %v, %v; want import %s", again, err, arn)
	}
	_, err = c.ImportTable(ctx, in("Second"))
	var conflict *types.ImportConflictException
	if !errors.As(err, &conflict) || conflict.ErrorMessage() != "Duplicate request detected: "+arn {
		t.Errorf("same token, another table: %v; want ImportConflictException naming %s", err, arn)
	}
	if _, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Second")}); err == nil {
		t.Errorf("the refused import created its table")
	}
	waitImport(t, c, first.ImportTableDescription.ImportArn)
}
