package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/transfer/bucket"
	"github.com/ddblocal/ddblocal/transfer/bucket/buckettest"
)

// TestImportBrokenObjects: an object whose compressed bytes break off
// (cut in the middle, or not of the compression at all) does not stop the
// import, as the developer guide's "Import format quotas and validation"
// says ("If the Amazon S3 object itself is malformed ... we may skip
// processing the remaining portion of the object"): each is one error,
// the records before the break and the other objects are imported, and
// the import ends FAILED with ItemValidationError, the table ACTIVE with
// the items imported. Against the folder backend (GZIP) and an S3
// endpoint (ZSTD).
func TestImportBrokenObjects(t *testing.T) {
	fake := buckettest.Start(t, "src")
	for _, tc := range []struct {
		name string
		st   bucket.Store
		comp types.InputCompressionType
	}{
		{"Folder", bucket.Dir{Root: t.TempDir()}, types.InputCompressionTypeGzip},
		{"Endpoint", fake.Store(t), types.InputCompressionTypeZstd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			put := func(key string, b []byte) {
				w, err := tc.st.Create(ctx, "src", key)
				if err != nil {
					t.Fatal(err)
				}
				w.Write(b)
				if _, err := w.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			lines := func(obj, n int) []byte {
				var b strings.Builder
				for i := range n {
					fmt.Fprintf(&b, `{"Item":{"pk":{"S":"o%d-%d"},"sk":{"S":"%d"},"pad":{"S":"%s"}}}`+"\n", obj, i, i, strings.Repeat("p", i%40))
				}
				return []byte(b.String())
			}
			put("in/part-0", compressSource(t, tc.comp, lines(0, 5)))
			cut := compressSource(t, tc.comp, lines(1, 3000))
			put("in/part-1", cut[:len(cut)/2])
			put("in/part-2", []byte("not compressed at all\n"))
			put("in/part-3", compressSource(t, tc.comp, lines(3, 5)))
			c := transferServer(t, tc.st)
			out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson, InputCompressionType: tc.comp,
				S3BucketSource:          &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("in/")},
				TableCreationParameters: importParams("Broken")})
			if err != nil {
				t.Fatal(err)
			}
			d := waitImport(t, c, out.ImportTableDescription.ImportArn)
			cutRead := d.ImportedItemCount - 10
			gzip := tc.comp == types.InputCompressionTypeGzip // a ZSTD stream cut in its first block gives nothing
			if !itemsSkipped(d) || d.ErrorCount != 2 || cutRead < 0 || cutRead >= 3000 || gzip && cutRead == 0 || d.ProcessedItemCount != d.ImportedItemCount+2 {
				t.Fatalf("import: %s %s, imported %d, errors %d, processed %d; want FAILED (ItemValidationError), 2 errors, the 10 items of the whole objects and part of the cut one",
					d.ImportStatus, aws.ToString(d.FailureCode), d.ImportedItemCount, d.ErrorCount, d.ProcessedItemCount)
			}
			desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Broken")})
			if err != nil || desc.Table.TableStatus != types.TableStatusActive {
				t.Fatalf("the table after the import: %v, %v; want ACTIVE", desc, err)
			}
			if got := countItems(t, c, "Broken"); int64(got) != d.ImportedItemCount {
				t.Errorf("the table holds %d items, the import says %d", got, d.ImportedItemCount)
			}
			keys := []string{"o0-4", "o3-0"}
			if gzip {
				keys = append(keys, "o1-0")
			}
			for _, pk := range keys {
				got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Broken"), ConsistentRead: aws.Bool(true),
					Key: map[string]types.AttributeValue{"pk": s(pk), "sk": s(pk[strings.IndexByte(pk, '-')+1:])}})
				if err != nil || got.Item == nil {
					t.Errorf("item %s: %v, %v", pk, got, err)
				}
			}
		})
	}
}
