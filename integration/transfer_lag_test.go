package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// TestImportLaggingTable imports into a table whose eventually consistent
// reads and global index lag writes by an hour (--eventual-lag, on a
// clock that does not move). The service serves no read of an imported
// table before it is ACTIVE, so right after that every item is there for
// an eventually consistent Scan, GetItem and BatchGetItem and for the
// global index, as for a strongly consistent Scan. A write after the
// import lags as any write does.
func TestImportLaggingTable(t *testing.T) {
	st := bucket.Dir{Root: t.TempDir()}
	clock := newFakeClock()
	c := startServer(t, table.Options{S3: st, Now: clock.Now, EventualLag: lagOf(time.Hour)}).client("us-east-1")
	ctx := context.Background()
	var src strings.Builder
	for i := range 1500 { // two of the import's chunks
		fmt.Fprintf(&src, `{"Item":{"pk":{"S":"p%d"},"sk":{"S":"s%d"},"v":{"N":"%d"}}}`+"\n", i, i%7, i)
	}
	putObject(t, st, "src", "in/1.json", src.String())
	imp, err := c.ImportTable(ctx, &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("in/")}, TableCreationParameters: importParams("Lagging")})
	if err != nil {
		t.Fatal(err)
	}
	if d := waitImport(t, c, imp.ImportTableDescription.ImportArn); d.ImportedItemCount != 1500 {
		t.Fatalf("import: %+v", d)
	}
	strong := scanLines(t, c, "Lagging")
	if got := scanLinesRead(t, c, "Lagging", false); len(strong) != 1500 || !slices.Equal(got, strong) {
		t.Errorf("right after the import an eventually consistent Scan sees %d items, a strong one %d; want 1500 each", len(got), len(strong))
	}
	key := func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": s(fmt.Sprintf("p%d", i)), "sk": s(fmt.Sprintf("s%d", i%7))}
	}
	if g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Lagging"), Key: key(1499)}); err != nil || g.Item == nil {
		t.Errorf("eventually consistent GetItem of the last item imported: not found (%v)", err)
	}
	b, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"Lagging": {Keys: []map[string]types.AttributeValue{key(0), key(777), key(1499)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Responses["Lagging"]) != 3 {
		t.Errorf("eventually consistent BatchGetItem of 3 items imported: %d found", len(b.Responses["Lagging"]))
	}
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Lagging"), IndexName: aws.String("bySk"), Select: types.SelectCount,
		KeyConditionExpression: aws.String("sk = :s"), ExpressionAttributeValues: map[string]types.AttributeValue{":s": s("s3")}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 1500/7 {
		t.Errorf("global index query right after the import: %d items; want %d", q.Count, 1500/7)
	}

	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Lagging"), Item: key(2000)}); err != nil {
		t.Fatal(err)
	}
	read := func(consistent bool) bool {
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Lagging"), Key: key(2000), ConsistentRead: aws.Bool(consistent)})
		if err != nil {
			t.Fatal(err)
		}
		return g.Item != nil
	}
	if eventual, strong := read(false), read(true); eventual || !strong {
		t.Errorf("a put after the import: eventually consistent read sees it %v, strong %v; want false, true", eventual, strong)
	}
	clock.Advance(time.Hour)
	if !read(false) {
		t.Errorf("a put after the import: not seen by an eventually consistent read once the lag has passed")
	}
}
