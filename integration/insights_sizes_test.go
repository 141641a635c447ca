package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/insights"
)

// TestInsightsSizesAcrossRestart: the sizes GET /_ddblocal/insights shows
// (items and bytes per partition, the largest item collections, the
// key-design warnings) are maintained from the writes once a report has
// been asked for; after mixed puts, updates, deletes and batches they hold
// exactly the items the client left, and after kill -9 and a restart
// (which walks the table once) the server reports the same sizes.
func TestInsightsSizesAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "sizes.db")}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	createTable(t, c, "Sizes", true)
	rng := rand.New(rand.NewPCG(3, 5))
	live := map[string]bool{}
	sizesWrites(t, c, rng, live, 150)
	sizesReport(t, p.URL, len(live)) // the first report starts maintaining the sizes
	sizesWrites(t, c, rng, live, 250)
	before := sizesReport(t, p.URL, len(live))
	p.kill()
	p = startBinary(t, dir, nil, args...)
	if after := sizesReport(t, p.URL, len(live)); !reflect.DeepEqual(before, after) {
		t.Fatalf("sizes maintained before the restart\n%+v\ndiffer from those after it\n%+v", before, after)
	}
}

// sizesWrites makes n random writes to table Sizes (15 partition keys of
// up to 10 items) through PutItem, UpdateItem, DeleteItem and
// BatchWriteItem, keeping live up to date.
func sizesWrites(t *testing.T, c *dynamodb.Client, rng *rand.Rand, live map[string]bool, n int) {
	t.Helper()
	ctx := context.Background()
	for range n {
		pk, sk := fmt.Sprint("user#", rng.IntN(15)), fmt.Sprintf("%03d", rng.IntN(10))
		key := map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk)}
		item := map[string]types.AttributeValue{"pk": s(pk), "sk": s(sk), "v": s(strings.Repeat("x", 1+rng.IntN(400)))}
		var err error
		switch rng.IntN(5) {
		case 0, 1:
			_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Sizes"), Item: item})
			live[pk+"/"+sk] = true
		case 2:
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Sizes"), Key: key,
				UpdateExpression:          aws.String("SET w = :w"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":w": s(strings.Repeat("y", rng.IntN(300)))}})
			live[pk+"/"+sk] = true
		case 3:
			_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Sizes"), Key: key})
			delete(live, pk+"/"+sk)
		case 4:
			_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				"Sizes": {{PutRequest: &types.PutRequest{Item: item}}}}})
			live[pk+"/"+sk] = true
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// sizes are the parts of an insights report measured from the stored
// items.
type sizes struct {
	Items, Bytes []int64
	Collections  []insights.Collection
	Warnings     []string
}

// sizesReport fetches the insights of Sizes, checks that its partitions
// hold want items, and returns its sizes.
func sizesReport(t *testing.T, url string, want int) sizes {
	t.Helper()
	code, body := getInsights(t, &server{URL: url}, "?table=Sizes")
	if code != http.StatusOK {
		t.Fatalf("insights: %d %s", code, body)
	}
	var rep insights.Report
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	var out sizes
	total := 0
	for _, p := range rep.Indexes[0].Partitions {
		out.Items = append(out.Items, p.Items)
		out.Bytes = append(out.Bytes, p.SizeBytes)
		total += int(p.Items)
	}
	out.Collections = rep.Collections
	for _, w := range rep.Warnings {
		switch w.Kind {
		case "low-cardinality", "date-like-key", "sequential-key", "collection-size":
			out.Warnings = append(out.Warnings, w.Message)
		}
	}
	if total != want || len(out.Collections) != 10 {
		t.Fatalf("the partitions hold %d items, want %d; %d collections listed, want 10", total, want, len(out.Collections))
	}
	return out
}
