package integration

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
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
