package integration

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// sizedNumbers are number values and the bytes DynamoDB counts for each
// (the developer guide's "1 byte per two significant digits, plus 1 byte",
// leading and trailing zeros trimmed, as refined by nubo-db/dynoxide#195's
// eu-west-2 measurements at the 400 KB gate: integer and fraction digits
// paired separately, one more byte for a negative number). Each of these
// costs the same by either reading, so the test pins the byte cost without
// taking sides on the rarer cases.
var sizedNumbers = []struct {
	v    string
	cost int
}{{"1E125", 2}, {"-1.5", 4}, {"1786461547", 6}, {"0.5", 2}, {"27", 2}, {"-27", 3}}

// numberAttrs is how many number attributes numberItem holds: a miscount
// of one byte per number would be off by this many bytes.
const numberAttrs = 120

// numberItem returns an item of key's S attributes, numberAttrs number
// attributes n000... cycling through sizedNumbers, and a string p padding
// the whole to exactly bytes as DynamoDB counts them.
func numberItem(key map[string]string, bytes int) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{}
	left := bytes - len("p")
	for k, v := range key {
		it[k] = s(v)
		left -= len(k) + len(v)
	}
	for i := range numberAttrs {
		name, num := fmt.Sprintf("n%03d", i), sizedNumbers[i%len(sizedNumbers)]
		it[name] = n(num.v)
		left -= len(name) + num.cost
	}
	it["p"] = s(strings.Repeat("x", left))
	return it
}

// TestItemSizeCountsNumbers: an item holding numbers is sized with each
// number's byte cost on every surface that writes whole items (PutItem,
// BatchWriteItem, TransactWriteItems Put, PartiQL INSERT): 409,600 bytes
// is stored, one more is refused; and a one-byte-over item of strings only
// is refused by PutItem as it is by the other surfaces (TestItemSizeBySurface).
func TestItemSizeCountsNumbers(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "SizedN", false)
	tbl := aws.String("SizedN")
	put := func(it map[string]types.AttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: it})
		return err
	}
	batch := func(it map[string]types.AttributeValue) error {
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"SizedN": {{PutRequest: &types.PutRequest{Item: it}}}}})
		return err
	}
	txPut := func(it map[string]types.AttributeValue) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: tbl, Item: it}}}})
		return err
	}
	insert := func(it map[string]types.AttributeValue) error {
		var b strings.Builder
		b.WriteString(`INSERT INTO "SizedN" VALUE {'pk': ?, 'p': ?`)
		for i := range numberAttrs {
			fmt.Fprintf(&b, ", 'n%03d': %s", i, it[fmt.Sprintf("n%03d", i)].(*types.AttributeValueMemberN).Value)
		}
		b.WriteString("}")
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(b.String()),
			Parameters: []types.AttributeValue{it["pk"], it["p"]}})
		return err
	}
	for _, tc := range []struct {
		name  string
		write func(map[string]types.AttributeValue) error
	}{{"PutItem", put}, {"BatchWriteItem", batch}, {"TransactWriteItems Put", txPut}, {"PartiQL INSERT", insert}} {
		at, over := map[string]string{"pk": tc.name + " at"}, map[string]string{"pk": tc.name + " over"}
		if err := tc.write(numberItem(at, maxItemBytes)); err != nil {
			t.Fatalf("%s of %d bytes with numbers: %v", tc.name, maxItemBytes, err)
		}
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": s(at["pk"])}, ConsistentRead: aws.Bool(true)})
		if err != nil || len(got.Item) != numberAttrs+2 {
			t.Fatalf("%s: the item at the limit was not stored whole: %d attributes, %v", tc.name, len(got.Item), err)
		}
		wantAPIError(t, tc.write(numberItem(over, maxItemBytes+1)), "ValidationException", putTooLarge)
	}
	// PutItem of strings only, at the byte.
	at, over := sizeKey("s"), sizeKey("t")
	if err := put(withPad(at, maxItemBytes)); err != nil {
		t.Fatalf("PutItem of %d bytes: %v", maxItemBytes, err)
	}
	wantStoredSize(t, c, "SizedN", at, maxItemBytes)
	wantAPIError(t, put(withPad(over, maxItemBytes+1)), "ValidationException", putTooLarge)
}

// TestItemSizeImport: ImportTable sizes each record as a write does,
// numbers included: the record of exactly 409,600 bytes is imported, the
// one a byte over is counted in ErrorCount and not imported.
func TestItemSizeImport(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	c := startServer(t, table.Options{S3: st}).client("us-east-1")
	ctx := context.Background()
	var src strings.Builder
	for _, rec := range []struct {
		pk    string
		bytes int
	}{{"at", maxItemBytes}, {"over", maxItemBytes + 1}} {
		it := numberItem(map[string]string{"pk": rec.pk, "sk": "1"}, rec.bytes)
		src.WriteString(`{"Item":{`)
		first := true
		for k, v := range it {
			if !first {
				src.WriteString(",")
			}
			first = false
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				fmt.Fprintf(&src, `%q:{"S":%q}`, k, v.Value)
			case *types.AttributeValueMemberN:
				fmt.Fprintf(&src, `%q:{"N":%q}`, k, v.Value)
			}
		}
		src.WriteString("}}\n")
	}
	w, err := st.Create(ctx, "src", "sized/a.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, src.String()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	out, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("sized/")}, TableCreationParameters: importParams("SizedImport")})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitImport(t, c, out.ImportTableDescription.ImportArn); d.ImportedItemCount != 1 || d.ErrorCount != 1 || d.ProcessedItemCount != 2 {
		t.Fatalf("import of a record at the limit and one a byte over: imported %d, errors %d, processed %d; want 1, 1, 2",
			d.ImportedItemCount, d.ErrorCount, d.ProcessedItemCount)
	}
	for pk, want := range map[string]bool{"at": true, "over": false} {
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("SizedImport"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": s(pk), "sk": s("1")}})
		if err != nil || (got.Item != nil) != want {
			t.Errorf("record %s: stored %v (%v), want %v", pk, got.Item != nil, err, want)
		}
	}
}
