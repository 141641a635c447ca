package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// getInsights fetches GET /_ddblocal/insights with query q, signed with the
// test credentials (the signed pass verifies them), and returns the status
// and body.
func getInsights(t *testing.T, srv *server, q string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/_ddblocal/insights"+q, nil)
	if err != nil {
		t.Fatal(err)
	}
	empty := sha256.Sum256(nil)
	creds := aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(empty[:]), "dynamodb", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// TestInsightsNamesHotKeyFirst drives a skewed load (one key takes most
// writes and reads) and a spread one, then expects the insights JSON to
// name the hot key first and warn about it with the remedy.
func TestInsightsNamesHotKeyFirst(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	ctx := context.Background()
	createTable(t, c, "Skewed", false)
	put := func(pk string) {
		t.Helper()
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Skewed"),
			Item: map[string]types.AttributeValue{"pk": s(pk), "v": s("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 30; i++ {
		put(fmt.Sprintf("user#%d", i))
	}
	for i := 0; i < 120; i++ {
		put("user#hot")
		if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Skewed"),
			Key: map[string]types.AttributeValue{"pk": s("user#hot")}}); err != nil {
			t.Fatal(err)
		}
	}
	code, body := getInsights(t, srv, "?table=Skewed")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var rep insights.Report
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	if len(rep.TopKeys.ByUnits) == 0 {
		t.Fatalf("no top keys: %s", body)
	}
	top := rep.TopKeys.ByUnits[0]
	if top.PartitionKey == nil || top.PartitionKey.S != "user#hot" || top.SortKey != nil {
		t.Fatalf("hottest key = %+v, want partition key user#hot", top)
	}
	if got, want := top.WriteUnits, 120.0; got != want {
		t.Errorf("hot key write units = %v, want %v", got, want)
	}
	if got, want := top.ReadUnits, 60.0; got != want { // eventually consistent: half a unit each
		t.Errorf("hot key read units = %v, want %v", got, want)
	}
	if len(rep.Indexes) != 1 || rep.Indexes[0].Index != "" || len(rep.Indexes[0].Partitions) != 4 {
		t.Fatalf("indexes = %+v, want the table's 4 partitions", rep.Indexes)
	}
	var items int64
	for _, p := range rep.Indexes[0].Partitions {
		items += p.Items
	}
	if items != 31 {
		t.Errorf("items over partitions = %d, want 31", items)
	}
	var hot *insights.Warning
	for i, w := range rep.Warnings {
		if w.Kind == "hot-key" {
			hot = &rep.Warnings[i]
		}
	}
	if hot == nil || hot.Remedy == "" {
		t.Fatalf("warnings = %+v, want a hot-key warning with a remedy", rep.Warnings)
	}
	wantMsg := `Partition key {"S":"user#hot"} took 86% of the consumed units of the table (180 of 210 units): one partition serves it, whatever the table's total capacity.`
	if hot.Message != wantMsg {
		t.Errorf("hot-key message = %q, want %q", hot.Message, wantMsg)
	}
}

// TestInsightsUnknownTableAndList: an unknown table is DynamoDB's
// ResourceNotFoundException; no table lists the caller's tables.
func TestInsightsUnknownTableAndList(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createTable(t, c, "Aaa", false)
	createTable(t, c, "Bbb", true)
	code, body := getInsights(t, srv, "?table=Nope")
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	if code != http.StatusBadRequest || e.Type != "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException" ||
		e.Message != "Requested resource not found: Table: Nope not found" {
		t.Fatalf("unknown table: %d %s", code, body)
	}
	code, body = getInsights(t, srv, "")
	if code != http.StatusOK || string(body) != `{"tables":["Aaa","Bbb"]}` {
		t.Fatalf("list: %d %s", code, body)
	}
}

// TestInsightsAmplificationAndScans: a filter that keeps one item in ten
// and a Scan beside Queries show in the amplification numbers and warnings.
// The numbers expected are those of the Queries and Scans the server
// received: a request the SDK sent again (after a connection closed under
// it, which the harness client retries) was read twice.
func TestInsightsAmplificationAndScans(t *testing.T) {
	srv, received := startCountingServer(t)
	c := srv.client("us-east-1")
	ctx := context.Background()
	createTable(t, c, "Events", true)
	for i := 0; i < 150; i++ {
		kind := "noise"
		if i%10 == 0 {
			kind = "alert"
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Events"),
			Item: map[string]types.AttributeValue{"pk": s(fmt.Sprint("dev#", i%3)), "sk": s(fmt.Sprintf("%04d", i)), "kind": s(kind)}}); err != nil {
			t.Fatal(err)
		}
	}
	for d := 0; d < 3; d++ {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Events"),
			KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("kind = :k"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s(fmt.Sprint("dev#", d)), ":k": s("alert")}})
		if err != nil || out.ScannedCount != 50 || out.Count != 5 {
			t.Fatalf("Query dev#%d: %v, %v", d, out, err)
		}
	}
	if _, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Events")}); err != nil {
		t.Fatal(err)
	}
	code, body := getInsights(t, srv, "?table=Events")
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var rep insights.Report
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatal(err)
	}
	queries, scans := received.of("Query"), received.of("Scan")
	if queries < 3 || scans < 1 {
		t.Fatalf("the server received %d Queries and %d Scans, want at least 3 and 1", queries, scans)
	}
	read, returned := int64(50*queries+150*scans), int64(5*queries+150*scans)
	a := rep.Amplification
	if a.ItemsRead != read || a.ItemsReturned != returned || a.ScanReadShare <= 0 || a.ScanReadShare >= 1 {
		t.Errorf("amplification = %+v, want %d read, %d returned (%d Queries, %d Scans), a Scan share between 0 and 1", a, read, returned, queries, scans)
	}
	kinds := map[string]string{}
	for _, w := range rep.Warnings {
		kinds[w.Kind] = w.Message
	}
	want := fmt.Sprintf("Filters discarded 90%% of the items they read (%d of %d): every item read was paid for.", 45*queries, 50*queries)
	if kinds["filter-discards"] != want {
		t.Errorf("filter-discards = %q, want %q", kinds["filter-discards"], want)
	}
	if kinds["scan-and-query"] == "" || kinds["low-cardinality"] == "" {
		t.Errorf("warnings = %v, want scan-and-query and low-cardinality (3 keys hold 150 items)", kinds)
	}
	if len(rep.Collections) != 3 || rep.Collections[0].Items != 50 {
		t.Errorf("collections = %+v, want 3 of 50 items", rep.Collections)
	}
}

// opCounts counts the DynamoDB requests a server received, by operation.
type opCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *opCounts) of(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

// startCountingServer is startServer (default options) counting each
// request by operation as it arrives, before it is served.
func startCountingServer(t *testing.T) (*server, *opCounts) {
	t.Helper()
	db, err := store.Open(testStoreOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, table.Options{})
	v := testVerifier()
	cfg := api.Config{Addr: "localhost:8000", Verifier: v,
		Admin: admin.Handler(admin.Config{Settle: svc.Settle, Insights: svc, Verifier: v})}
	h := api.NewHandler(cfg, api.Operations(svc))
	counts := &opCounts{n: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := r.Header.Get("X-Amz-Target")
		counts.mu.Lock()
		counts.n[target[strings.LastIndex(target, ".")+1:]]++
		counts.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		svc.Close()
		db.Close()
	})
	return &server{URL: ts.URL, svc: svc}, counts
}
