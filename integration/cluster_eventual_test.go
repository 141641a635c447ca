package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// eventualStale is how stale an eventually consistent read through a
// front-end may be in cluster mode (store's mirrorStale: its local copy
// holds every write acknowledged that long before the read).
const eventualStale = 100 * time.Millisecond

// TestClusterEventualReads: in cluster mode an eventually consistent
// GetItem is served from the front-end's local copy of the store, and
// still reads the front-end's own writes at once, another front-end's
// writes once they are eventualStale old or once /_ddblocal/settle has
// been called, deletions as absent items, and projections as DynamoDB
// does; a strongly consistent read sees everything at once.
func TestClusterEventualReads(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	as := startFrontEnd(t, c.Endpoints(), "ev/")
	bs := startFrontEnd(t, c.Endpoints(), "ev/")
	a, b := as.client("us-east-1"), bs.client("us-east-1")
	ctx := context.Background()
	createTable(t, a, "evr", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	get := func(cl *dynamodb.Client, consistent bool, projection string) map[string]types.AttributeValue {
		t.Helper()
		in := &dynamodb.GetItemInput{TableName: aws.String("evr"), Key: key, ConsistentRead: aws.Bool(consistent)}
		if projection != "" {
			in.ProjectionExpression = aws.String(projection)
		}
		out, err := cl.GetItem(ctx, in)
		if err != nil {
			t.Fatalf("GetItem: %v", err)
		}
		return out.Item
	}
	put := func(cl *dynamodb.Client, v int) {
		t.Helper()
		if _, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("evr"),
			Item: map[string]types.AttributeValue{"pk": s("k"), "v": n(fmt.Sprint(v)), "w": s("x")}}); err != nil {
			t.Fatalf("PutItem: %v", err)
		}
	}
	for i := range 30 { // a's own writes, at once (the copy warms meanwhile)
		put(a, i)
		if got := numberOf(get(a, false, "")); got != int64(i) {
			t.Fatalf("eventually consistent GetItem through the writing front-end = %d, want %d", got, i)
		}
	}
	for i := 100; i < 105; i++ { // a's writes through b, eventualStale later
		put(a, i)
		if got := numberOf(get(b, true, "")); got != int64(i) {
			t.Fatalf("strongly consistent GetItem through the other front-end = %d, want %d", got, i)
		}
		time.Sleep(eventualStale + time.Millisecond)
		if got := numberOf(get(b, false, "")); got != int64(i) {
			t.Fatalf("eventually consistent GetItem through the other front-end %s after the write = %d, want %d", eventualStale, got, i)
		}
	}
	put(a, 200)
	settleAt(t, bs.URL)
	if got := get(b, false, "v"); numberOf(got) != 200 || len(got) != 1 {
		t.Errorf("eventually consistent GetItem of v after settle = %v, want only v 200", got)
	}
	if _, err := a.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("evr"), Key: key}); err != nil {
		t.Fatal(err)
	}
	settleAt(t, bs.URL)
	if got := get(b, false, ""); got != nil {
		t.Errorf("eventually consistent GetItem of a deleted item after settle = %v, want none", got)
	}
	_, err := b.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("none"), Key: key})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("eventually consistent GetItem of a missing table: %v, want ResourceNotFoundException", err)
	}
}

// settleAt POSTs /_ddblocal/settle to the server at url.
func settleAt(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Post(url+"/_ddblocal/settle", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("settle: %s", resp.Status)
	}
}

// pageReads is what Query (ascending, and descending in pages of 3),
// Scan and BatchGetItem of table evp under pk "p" see through one
// front-end: each item's sk, comma-separated, one string per read.
func pageReads(t *testing.T, c *dynamodb.Client, consistent bool, n int) []string {
	t.Helper()
	ctx := context.Background()
	skOf := func(items []map[string]types.AttributeValue) string {
		var ks []string
		for _, it := range items {
			if v, ok := it["sk"].(*types.AttributeValueMemberS); ok {
				ks = append(ks, v.Value)
			}
		}
		return strings.Join(ks, ",")
	}
	cond := map[string]types.AttributeValue{":p": s("p")}
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("evp"), ConsistentRead: aws.Bool(consistent),
		KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: cond})
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	var desc []map[string]types.AttributeValue
	var start map[string]types.AttributeValue
	for {
		page, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("evp"), ConsistentRead: aws.Bool(consistent),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: cond, ScanIndexForward: aws.Bool(false),
			Limit: aws.Int32(3), ExclusiveStartKey: start})
		if err != nil {
			t.Fatalf("Query descending: %v", err)
		}
		desc = append(desc, page.Items...)
		if start = page.LastEvaluatedKey; start == nil {
			break
		}
	}
	sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("evp"), ConsistentRead: aws.Bool(consistent)})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	var keys []map[string]types.AttributeValue
	for i := range n + 2 { // two absent
		keys = append(keys, map[string]types.AttributeValue{"pk": s("p"), "sk": s(fmt.Sprintf("%02d", i))})
	}
	bg, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"evp": {Keys: keys, ConsistentRead: aws.Bool(consistent)}}})
	if err != nil {
		t.Fatalf("BatchGetItem: %v", err)
	}
	got := bg.Responses["evp"]
	slices.SortFunc(got, func(x, y map[string]types.AttributeValue) int {
		return strings.Compare(x["sk"].(*types.AttributeValueMemberS).Value, y["sk"].(*types.AttributeValueMemberS).Value)
	})
	return []string{skOf(q.Items), skOf(desc), skOf(sc.Items), skOf(got)}
}

// TestClusterEventualPages: in cluster mode eventually consistent Query
// and Scan pages and BatchGetItem are served from the front-end's local
// copy of the store as GetItem is: they see the front-end's own writes at
// once (pages in both directions), another front-end's once they are
// eventualStale old or after /_ddblocal/settle, as strongly consistent
// ones see them at once.
func TestClusterEventualPages(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	as := startFrontEnd(t, c.Endpoints(), "evp/")
	bs := startFrontEnd(t, c.Endpoints(), "evp/")
	a, b := as.client("us-east-1"), bs.client("us-east-1")
	ctx := context.Background()
	createTable(t, a, "evp", true)
	written := 0
	write := func(count int) {
		t.Helper()
		var puts []types.WriteRequest
		for ; count > 0; count-- {
			puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
				"pk": s("p"), "sk": s(fmt.Sprintf("%02d", written)), "v": n(fmt.Sprint(written))}}})
			written++
		}
		if _, err := a.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"evp": puts}}); err != nil {
			t.Fatal(err)
		}
	}
	want := func() []string {
		var asc, desc []string
		for i := range written {
			asc = append(asc, fmt.Sprintf("%02d", i))
			desc = append(desc, fmt.Sprintf("%02d", written-1-i))
		}
		return []string{strings.Join(asc, ","), strings.Join(desc, ","), strings.Join(asc, ","), strings.Join(asc, ",")}
	}
	check := func(step string, cl *dynamodb.Client, consistent bool) {
		t.Helper()
		if got := pageReads(t, cl, consistent, written); !slices.Equal(got, want()) {
			t.Errorf("%s (ConsistentRead %v): Query, descending Query, Scan, BatchGetItem saw %q, want %q", step, consistent, got, want())
		}
	}
	for range 3 { // a's own writes, at once (the copy warms meanwhile)
		write(4)
		check("through the writing front-end", a, false)
	}
	write(4)
	check("through the other front-end", b, true)
	settleAt(t, bs.URL)
	check("through the other front-end after settle", b, false)
	write(3)
	time.Sleep(eventualStale + time.Millisecond)
	check(fmt.Sprintf("through the other front-end %s after the write", eventualStale), b, false)
}

// TestClusterGSISettle: with lagging global indexes (--eventual-lag),
// /_ddblocal/settle through either front-end makes the writes before it
// visible in the index through that front-end, whichever front-end applies
// the table's change log (the settle is recorded in the table's space for
// the owner's applier).
func TestClusterGSISettle(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	opts := table.Options{EventualLag: lagOf(time.Hour)}
	as := startFrontEndWith(t, c.Endpoints(), "gset/", opts)
	bs := startFrontEndWith(t, c.Endpoints(), "gset/", opts)
	a, b := as.client("us-east-1"), bs.client("us-east-1")
	ctx := context.Background()
	createGSITable(t, a, "gset")
	// a writes first, so a applies the log; the first settle is b's.
	for i, fe := range []struct {
		url string
		c   *dynamodb.Client
	}{{bs.URL, b}, {as.URL, a}} {
		if _, err := a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("gset"),
			Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "sk": s("s"), "g": s("g")}}); err != nil {
			t.Fatal(err)
		}
		if got := gsiCount(t, fe.c, "gset", "g"); got != int32(i) {
			t.Errorf("round %d: the index holds %d items before the settle, want %d (the write lags)", i, got, i)
		}
		settleWithin(t, fe.url, time.Minute)
		if got := gsiCount(t, fe.c, "gset", "g"); got != int32(i+1) {
			t.Errorf("round %d: the index holds %d items after the settle, want %d", i, got, i+1)
		}
	}
}

// settleWithin POSTs /_ddblocal/settle to the server at url, failing the
// test when it has not answered within d.
func settleWithin(t *testing.T, url string, d time.Duration) {
	t.Helper()
	resp, err := (&http.Client{Timeout: d}).Post(url+"/_ddblocal/settle", "application/json", nil)
	if err != nil {
		t.Fatalf("settle: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("settle: %s", resp.Status)
	}
}
