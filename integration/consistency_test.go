package integration

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/consistency"
	"github.com/ddblocal/ddblocal/table"
)

// fakeClock is a settable clock shared by the server's goroutines.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
func lagOf(d time.Duration) consistency.Lag  { return consistency.Lag{Min: d, Max: d} }

// views is what every kind of read returns for item (pk=p, sk=s) right now:
// its attribute v, or "" when the read does not see the item.
type views struct {
	getEventual, getStrong, queryEventual, queryStrong, scanEventual, batchEventual, gsi string
}

func readViews(t *testing.T, c *dynamodb.Client, name string) views {
	t.Helper()
	ctx := context.Background()
	key := map[string]types.AttributeValue{"pk": s("p"), "sk": s("s")}
	v := func(item map[string]types.AttributeValue) string {
		if item == nil {
			return ""
		}
		return item["v"].(*types.AttributeValueMemberS).Value
	}
	first := func(items []map[string]types.AttributeValue) string {
		if len(items) == 0 {
			return ""
		}
		return v(items[0])
	}
	var out views
	for _, strong := range []bool{false, true} {
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: key, ConsistentRead: aws.Bool(strong)})
		if err != nil {
			t.Fatal(err)
		}
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), ConsistentRead: aws.Bool(strong),
			KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}})
		if err != nil {
			t.Fatal(err)
		}
		if strong {
			out.getStrong, out.queryStrong = v(g.Item), first(q.Items)
		} else {
			out.getEventual, out.queryEventual = v(g.Item), first(q.Items)
		}
	}
	sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	out.scanEventual = first(sc.Items)
	b, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{name: {Keys: []map[string]types.AttributeValue{key}}}})
	if err != nil {
		t.Fatal(err)
	}
	out.batchEventual = first(b.Responses[name])
	gq, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("G")}})
	if err != nil {
		t.Fatal(err)
	}
	out.gsi = first(gq.Items)
	return out
}

func all(eventual, strong string) views {
	return views{getEventual: eventual, getStrong: strong, queryEventual: eventual, queryStrong: strong,
		scanEventual: eventual, batchEventual: eventual, gsi: eventual}
}

// TestEventualConsistency shows, for lag 0 and 500 ms, what every read returns
// right after a put, an update and a delete, and after the lag has passed.
func TestEventualConsistency(t *testing.T) {
	for _, lag := range []time.Duration{0, 500 * time.Millisecond} {
		t.Run(lag.String(), func(t *testing.T) {
			ctx := context.Background()
			clock := newFakeClock()
			srv := startServer(t, table.Options{Now: clock.Now, EventualLag: lagOf(lag)})
			c := srv.client("us-east-1")
			createGSITable(t, c, "Lagged")
			put := func(v string) {
				t.Helper()
				if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Lagged"),
					Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s"), "g": s("G"), "v": s(v)}}); err != nil {
					t.Fatal(err)
				}
			}
			check := func(step string, want views) {
				t.Helper()
				if got := readViews(t, c, "Lagged"); got != want {
					t.Errorf("%s: got %+v, want %+v", step, got, want)
				}
			}
			stale := func(old, new string) views {
				if lag == 0 {
					return all(new, new)
				}
				return all(old, new)
			}
			clock.Advance(time.Second)
			put("v1")
			check("right after the insert", stale("", "v1"))
			clock.Advance(lag)
			check("after the lag", all("v1", "v1"))

			clock.Advance(time.Second)
			put("v2")
			check("right after the update", stale("v1", "v2"))
			clock.Advance(lag)
			check("after the lag", all("v2", "v2"))

			clock.Advance(time.Second)
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Lagged"),
				Key: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s")}}); err != nil {
				t.Fatal(err)
			}
			check("right after the delete", stale("v2", ""))
			clock.Advance(lag)
			check("after the lag", all("", ""))
		})
	}
}

// TestLagTags: tags set the lag per table; ddblocal:gsi-lag lags only the GSI.
func TestLagTags(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now})
	c := srv.client("us-east-1")
	createGSITable(t, c, "Tagged", types.Tag{Key: aws.String(consistency.EventualLagTag), Value: aws.String("750ms")})
	createGSITable(t, c, "GSIOnly", types.Tag{Key: aws.String(consistency.GSILagTag), Value: aws.String("1s")})
	createGSITable(t, c, "Fresh")
	for _, name := range []string{"Tagged", "GSIOnly", "Fresh"} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name),
			Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s"), "g": s("G"), "v": s("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := readViews(t, c, "Tagged"), all("", "x"); got != want {
		t.Errorf("Tagged: got %+v, want %+v", got, want)
	}
	gsiOnly := all("x", "x")
	gsiOnly.gsi = ""
	if got := readViews(t, c, "GSIOnly"); got != gsiOnly {
		t.Errorf("GSIOnly: got %+v, want %+v", got, gsiOnly)
	}
	if got, want := readViews(t, c, "Fresh"), all("x", "x"); got != want {
		t.Errorf("Fresh: got %+v, want %+v", got, want)
	}
	clock.Advance(time.Second)
	for _, name := range []string{"Tagged", "GSIOnly"} {
		if got, want := readViews(t, c, name), all("x", "x"); got != want {
			t.Errorf("%s after 1s: got %+v, want %+v", name, got, want)
		}
	}
	_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/Fresh"),
		Tags: []types.Tag{{Key: aws.String(consistency.EventualLagTag), Value: aws.String("soon")}}})
	wantAPIError(t, err, "ValidationException", "")
}

// TestSettle: POST /_ddblocal/settle makes every earlier write visible at once.
func TestSettle(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, EventualLag: lagOf(time.Hour)})
	c := srv.client("us-east-1")
	createGSITable(t, c, "Settled")
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Settled"),
		Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s"), "g": s("G"), "v": s("x")}}); err != nil {
		t.Fatal(err)
	}
	if got, want := readViews(t, c, "Settled"), all("", "x"); got != want {
		t.Fatalf("before settle: got %+v, want %+v", got, want)
	}
	resp, err := http.Post(srv.URL+"/_ddblocal/settle", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("settle: %v, %v", resp, err)
	}
	resp.Body.Close()
	if got, want := readViews(t, c, "Settled"), all("x", "x"); got != want {
		t.Fatalf("after settle: got %+v, want %+v", got, want)
	}
}

// TestRandomLagReproducible: random:0-1s with a seed gives the same answers
// on two servers fed the same requests, and everything after the maximum.
func TestRandomLagReproducible(t *testing.T) {
	run := func() []views {
		ctx := context.Background()
		clock := newFakeClock()
		srv := startServer(t, table.Options{Now: clock.Now, EventualLag: consistency.Lag{Max: time.Second}, Seed: 7})
		c := srv.client("us-east-1")
		createGSITable(t, c, "Chaos")
		var seen []views
		for i := 0; i < 10; i++ {
			clock.Advance(300 * time.Millisecond)
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Chaos"),
				Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s"), "g": s("G"), "v": s(string(rune('a' + i)))}}); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, readViews(t, c, "Chaos"))
		}
		clock.Advance(time.Second)
		if got, want := readViews(t, c, "Chaos"), all("j", "j"); got != want {
			t.Errorf("after the maximum lag: got %+v, want %+v", got, want)
		}
		return seen
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d: runs differ: %+v vs %+v", i, a[i], b[i])
		}
	}
}

// TestEventualLSI: an eventually consistent Query on a local index sees the
// index as it stood before the lag (an item moved within the index shows at
// its old place); a strongly consistent one sees the latest write.
func TestEventualLSI(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	srv := startServer(t, table.Options{Now: clock.Now, EventualLag: lagOf(time.Second)})
	c := srv.client("us-east-1")
	createIndexed(t, c, "LagLSI", true, map[string]types.ScalarAttributeType{"r": types.ScalarAttributeTypeS}, nil,
		[]types.LocalSecondaryIndex{lsiDef("byR", "r", types.ProjectionTypeKeysOnly)})
	put := func(sk, r string) {
		t.Helper()
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("LagLSI"),
			Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s(sk), "r": s(r)}}); err != nil {
			t.Fatal(err)
		}
	}
	order := func(strong bool) []string {
		t.Helper()
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("LagLSI"), IndexName: aws.String("byR"),
			ConsistentRead: aws.Bool(strong), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("p")}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it["sk"].(*types.AttributeValueMemberS).Value+"@"+it["r"].(*types.AttributeValueMemberS).Value)
		}
		return got
	}
	put("a", "1")
	put("b", "2")
	clock.Advance(2 * time.Second)
	put("a", "3") // moves a after b in the index
	put("c", "0") // new, first in the index
	if got, want := fmt.Sprint(order(false)), "[a@1 b@2]"; got != want {
		t.Errorf("eventual right after the writes: got %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(order(true)), "[c@0 b@2 a@3]"; got != want {
		t.Errorf("strong: got %s, want %s", got, want)
	}
	clock.Advance(time.Second)
	if got, want := fmt.Sprint(order(false)), "[c@0 b@2 a@3]"; got != want {
		t.Errorf("eventual after the lag: got %s, want %s", got, want)
	}
}
