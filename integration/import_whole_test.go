package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/klauspost/compress/gzip"

	"github.com/ddblocal/ddblocal/transfer/bucket"
)

// writeShuffledSource writes n keys in a shuffled order over three gzip
// DYNAMODB_JSON objects under src/whole/, every seventh key a second time
// in a later object with another value, and one bad line; it returns the
// items the table must hold (pk to v: the last record of each key) and
// how many good records it wrote.
func writeShuffledSource(t *testing.T, st bucket.Store, n int) (map[string]string, int64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	perm := rng.Perm(n)
	objects := make([][]string, 3)
	want := map[string]string{}
	var records int64
	for i, k := range perm {
		pk := fmt.Sprintf("k%06d", k)
		objects[i%3] = append(objects[i%3], pk)
		if i%7 == 0 && i%3 < 2 {
			objects[2] = append(objects[2], pk)
		}
	}
	for o, keys := range objects {
		w, err := st.Create(context.Background(), "src", fmt.Sprintf("whole/%d.json.gz", o))
		if err != nil {
			t.Fatal(err)
		}
		gz := gzip.NewWriter(w)
		for j, pk := range keys {
			v := fmt.Sprintf("object %d line %d", o, j)
			fmt.Fprintf(gz, `{"Item":{"pk":{"S":"%s"},"sk":{"S":"x"},"v":{"S":"%s"}}}`+"\n", pk, v)
			want[pk] = v
			records++
		}
		if o == 1 {
			gz.Write([]byte("{\"Item\":\n"))
		}
		gz.Close()
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	return want, records
}

// checkWhole fails the test unless table name holds exactly want (pk to v,
// sk "x"), Scanned consistently, DescribeTable counts its items and their
// bytes, in the table and in its index bySk, and the index holds them all.
func checkWhole(t *testing.T, p *proc, name string, want map[string]string, when string) {
	t.Helper()
	c := p.client()
	settleAt(t, p.URL) // the index has every write
	got := map[string]string{}
	in := &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true)}
	for {
		out, err := c.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got[it["pk"].(*types.AttributeValueMemberS).Value] = it["v"].(*types.AttributeValueMemberS).Value
		}
		if in.ExclusiveStartKey = out.LastEvaluatedKey; in.ExclusiveStartKey == nil {
			break
		}
	}
	var bytes int64
	for pk, v := range want {
		bytes += int64(len("pk") + len(pk) + len("sk") + len("x") + len("v") + len(v))
		if got[pk] != v {
			t.Fatalf("%s: item %s holds v %q, want %q", when, pk, got[pk], v)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d", when, len(got), len(want))
	}
	d, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	if n, b := aws.ToInt64(d.Table.ItemCount), aws.ToInt64(d.Table.TableSizeBytes); n != int64(len(want)) || b != bytes {
		t.Errorf("%s: DescribeTable counts %d items of %d bytes, want %d of %d", when, n, b, len(want), bytes)
	}
	g := d.Table.GlobalSecondaryIndexes[0]
	if n, b := aws.ToInt64(g.ItemCount), aws.ToInt64(g.IndexSizeBytes); n != int64(len(want)) || b != bytes {
		t.Errorf("%s: DescribeTable counts %d entries of %d bytes in index bySk, want %d of %d", when, n, b, len(want), bytes)
	}
	q, err := c.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("bySk"),
		KeyConditionExpression: aws.String("sk = :x"), Select: types.SelectCount,
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": &types.AttributeValueMemberS{Value: "x"}}})
	if err != nil || q.Count != int32(len(want)) || q.LastEvaluatedKey != nil {
		t.Errorf("%s: index bySk counts %v items (more: %v), %v; want %d", when, q.Count, q.LastEvaluatedKey != nil, err, len(want))
	}
}

// TestImportBuildsTableWhole: an import into a table with a global index
// on the durable store builds the table and the index whole (store.Bulk)
// from keys in no order, some of them twice: the table and the index hold
// the last record of each key, DescribeTable counts them and their bytes,
// and all of it survives a kill -9 right after a later write (the data in
// bbolt, the write in the log) and a clean restart.
func TestImportBuildsTableWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	s3dir := filepath.Join(dir, "s3")
	want, records := writeShuffledSource(t, bucket.Dir{Root: s3dir}, 6000)
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "db"), "--s3-dir", s3dir}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	params := importParams("Whole") // with global index bySk (ALL) on sk
	out, err := c.ImportTable(context.Background(), &dynamodb.ImportTableInput{InputFormat: types.InputFormatDynamodbJson,
		InputCompressionType: types.InputCompressionTypeGzip, TableCreationParameters: params,
		S3BucketSource: &types.S3BucketSource{S3Bucket: aws.String("src"), S3KeyPrefix: aws.String("whole/")}})
	if err != nil {
		t.Fatal(err)
	}
	d := waitImport(t, c, out.ImportTableDescription.ImportArn)
	if !itemsSkipped(d) || d.ErrorCount != 1 || d.ProcessedItemCount != records+1 || d.ImportedItemCount != records {
		t.Fatalf("import: status %s, imported %d, processed %d, errors %d; want FAILED (ItemValidationError), %d, %d, 1", d.ImportStatus,
			d.ImportedItemCount, d.ProcessedItemCount, d.ErrorCount, records, records+1)
	}
	checkWhole(t, p, "Whole", want, "after the import")
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Whole"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "later"}, "sk": &types.AttributeValueMemberS{Value: "x"}, "v": &types.AttributeValueMemberS{Value: "w"}}}); err != nil {
		t.Fatal(err)
	}
	want["later"] = "w"
	p.kill()
	p = startBinary(t, dir, nil, args...)
	checkWhole(t, p, "Whole", want, "after kill -9")
	p.stopOK()
	p = startBinary(t, dir, nil, args...)
	checkWhole(t, p, "Whole", want, "after a restart")
	p.stopOK()
}
