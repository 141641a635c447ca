package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/faults"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// faultServer is an in-process ddblocal with fault injection, and an SDK
// client that retries as applications do (3 attempts, no backoff delay so
// the test does not sleep).
type faultServer struct {
	url string
	c   *dynamodb.Client
}

func startFaultServer(t *testing.T) *faultServer {
	t.Helper()
	db, err := store.Open(store.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, table.Options{})
	inj := faults.New()
	h := api.NewHandler(api.Config{Addr: "localhost:8000", Verifier: testVerifier(), Admin: admin.Handler(admin.Config{Faults: inj})},
		api.WithFaults(api.Operations(svc), inj))
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		if c, ok := any(svc).(interface{ Close() }); ok {
			c.Close()
		}
		db.Close()
	})
	c := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(ts.URL),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		}),
	}, readOnlyBodies)
	return &faultServer{url: ts.URL, c: c}
}

// addRule posts a fault rule.
func (fs *faultServer) addRule(t *testing.T, rule string) {
	t.Helper()
	resp, err := http.Post(fs.url+"/_ddblocal/faults", "application/json", strings.NewReader(rule))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("adding rule %s: got status %d", rule, resp.StatusCode)
	}
}

// hits returns how many requests each rule has failed, in order.
func (fs *faultServer) hits(t *testing.T) []int {
	t.Helper()
	resp, err := http.Get(fs.url + "/_ddblocal/faults")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct{ Rules []faults.Rule }
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var hs []int
	for _, r := range doc.Rules {
		hs = append(hs, r.Hits)
	}
	return hs
}

func counterUpdate(tableName string) *dynamodb.TransactWriteItemsInput {
	return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(tableName), Item: txKey("other")}},
		{Update: &types.Update{TableName: aws.String(tableName), Key: txKey("c"), UpdateExpression: aws.String("ADD n :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}},
	}}
}

func (fs *faultServer) counter(t *testing.T, tableName string) string {
	t.Helper()
	out, err := fs.c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tableName), Key: txKey("c"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return txNum(out.Item, "n")
}

// TestFaultTransactionConflict: the SDK does not retry a cancelled
// transaction (TransactionCanceledException is not in its retryable codes),
// so the application sees the TransactionConflict reason on the matching
// action and must retry itself.
func TestFaultTransactionConflict(t *testing.T) {
	ctx := context.Background()
	fs := startFaultServer(t)
	createTable(t, fs.c, "Faulty", false)
	fs.addRule(t, `{"operation":"TransactWriteItems","table":"Faulty","key":{"pk":{"S":"c"}},"error":"TransactionConflict"}`)
	_, err := fs.c.TransactWriteItems(ctx, counterUpdate("Faulty"))
	tce := txCancelled(t, err)
	if got, want := reasonCodes(tce), "None,TransactionConflict"; got != want {
		t.Fatalf("got reasons %s, want %s", got, want)
	}
	if got, want := tce.ErrorMessage(), "Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]"; got != want {
		t.Errorf("got message %q, want %q", got, want)
	}
	if got := fs.hits(t); len(got) != 1 || got[0] != 1 {
		t.Fatalf("got hits %v, want [1]: the SDK sent the request once", got)
	}
	if _, err := fs.c.TransactWriteItems(ctx, counterUpdate("Faulty")); err != nil {
		t.Fatalf("application retry: %v", err)
	}
	if got := fs.counter(t, "Faulty"); got != "1" {
		t.Fatalf("got counter %s, want 1", got)
	}
}

func TestFaultSingleItemErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, kind string
		count      int
		wantHits   int
		wantErr    string // "" when the SDK's retries get through
	}{
		{"conflict is not retried", "TransactionConflict", 1, 1, "TransactionConflictException"},
		{"provisioned throughput is retried", "ProvisionedThroughputExceeded", 2, 2, ""},
		{"throttling is retried", "ThrottlingException", 2, 2, ""},
		{"internal error is retried", "InternalServerError", 2, 2, ""},
		{"retries run out", "ProvisionedThroughputExceeded", 5, 3, "ProvisionedThroughputExceededException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := startFaultServer(t)
			createTable(t, fs.c, "Faulty", false)
			rule, _ := json.Marshal(map[string]any{"operation": "PutItem", "error": tt.kind, "count": tt.count})
			fs.addRule(t, string(rule))
			_, err := fs.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Faulty"), Item: txKey("a")})
			if tt.wantErr == "" && err != nil {
				t.Fatalf("got %v, want the SDK to retry through", err)
			}
			if tt.wantErr != "" {
				wantAPIError(t, err, tt.wantErr, "")
			}
			if got := fs.hits(t); len(got) != 1 || got[0] != tt.wantHits {
				t.Fatalf("got hits %v, want [%d]", got, tt.wantHits)
			}
		})
	}
}

// TestFaultRetriedTransactionIsIdempotent: a 500 makes the SDK resend the
// transaction with the ClientRequestToken it generated; it applies once.
func TestFaultRetriedTransactionIsIdempotent(t *testing.T) {
	ctx := context.Background()
	fs := startFaultServer(t)
	createTable(t, fs.c, "Faulty", false)
	fs.addRule(t, `{"operation":"TransactWriteItems","error":"InternalServerError"}`)
	if _, err := fs.c.TransactWriteItems(ctx, counterUpdate("Faulty")); err != nil {
		t.Fatal(err)
	}
	if got := fs.counter(t, "Faulty"); got != "1" {
		t.Fatalf("got counter %s, want 1", got)
	}
}

func TestFaultUnprocessedItems(t *testing.T) {
	ctx := context.Background()
	fs := startFaultServer(t)
	createTable(t, fs.c, "Faulty", false)
	fs.addRule(t, `{"operation":"BatchWriteItem","table":"Faulty","key":{"pk":{"S":"b"}},"error":"UnprocessedItems"}`)
	out, err := fs.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"Faulty": {{PutRequest: &types.PutRequest{Item: txKey("a")}}, {PutRequest: &types.PutRequest{Item: txKey("b")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	un := out.UnprocessedItems["Faulty"]
	if len(un) != 1 || txNum(un[0].PutRequest.Item, "pk") != "b" {
		t.Fatalf("got unprocessed %v, want the put of b", un)
	}
	for _, tc := range []struct {
		pk   string
		want bool
	}{{"a", true}, {"b", false}} {
		got, err := fs.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Faulty"), Key: txKey(tc.pk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if (got.Item != nil) != tc.want {
			t.Errorf("got item %s present=%v, want %v", tc.pk, got.Item != nil, tc.want)
		}
	}
	// The application retries the unprocessed items; now they go through.
	again, err := fs.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: out.UnprocessedItems})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.UnprocessedItems) != 0 {
		t.Fatalf("got unprocessed %v on the retry, want none", again.UnprocessedItems)
	}
}
