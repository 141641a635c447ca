package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/faults"
)

// faultServer serves fake item operations behind the fault injector. The
// batch operation records the requests it was given.
type faultServer struct {
	url      string
	inj      *faults.Injector
	mu       sync.Mutex
	received []string // BatchWriteItem tables:pk that reached the operation
}

func newFaultServer(t *testing.T) *faultServer {
	t.Helper()
	fs := &faultServer{}
	ok := func(context.Context, *Request) (any, error) { return struct{}{}, nil }
	ops := map[string]Handler{
		"PutItem":            ok,
		"TransactWriteItems": ok,
		"BatchWriteItem": Op(func(_ context.Context, _ string, in *ddb.BatchWriteItemInput) (*ddb.BatchWriteItemOutput, error) {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			for name, reqs := range in.RequestItems {
				for _, r := range reqs {
					pk, _ := r.PutRequest.Item.Lookup("pk")
					fs.received = append(fs.received, name+":"+pk.S)
				}
			}
			return &ddb.BatchWriteItemOutput{UnprocessedItems: map[string][]ddb.WriteRequest{}}, nil
		}),
	}
	inj := faults.New()
	ts := httptest.NewServer(NewHandler(Config{Addr: "localhost:8000"}, WithFaults(ops, inj)))
	fs.inj = inj
	t.Cleanup(ts.Close)
	fs.url = ts.URL
	return fs
}

// addRule arms the rule in JSON body, as POST /_ddblocal/faults would
// (package admin serves that route).
func (fs *faultServer) addRule(t *testing.T, body string) error {
	t.Helper()
	var rule faults.Rule
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rule); err != nil {
		return err
	}
	return fs.inj.Add(rule)
}

func (fs *faultServer) call(t *testing.T, op, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, fs.url+"/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	req.Header.Set("Authorization", testAuth)
	req.Header.Set("Content-Type", jsonContentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, doc
}

// msgProvisionedWant is DynamoDB's wording for a provisioned table's
// throttled request, which injected faults share with real throttling.
const msgProvisionedWant = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."

func TestFaultInjection(t *testing.T) {
	const put = `{"TableName":"T","Item":{"pk":{"S":"a"},"x":{"N":"1"}}}`
	const tx = `{"TransactItems":[{"Put":{"TableName":"T","Item":{"pk":{"S":"b"}}}},{"Delete":{"TableName":"T","Key":{"pk":{"S":"a"}}}}]}`
	tests := []struct {
		name, rule, op, body string
		wantStatus           int
		wantType, wantMsg    string
		wantReasons          string
	}{
		{"conflict on a put", `{"operation":"PutItem","table":"T","key":{"pk":{"S":"a"}},"error":"TransactionConflict"}`, "PutItem", put,
			400, prefixDynamo + "TransactionConflictException", "Transaction is ongoing for the item", ""},
		{"other key passes", `{"operation":"PutItem","table":"T","key":{"pk":{"S":"zzz"}},"error":"TransactionConflict"}`, "PutItem", put,
			200, "", "", ""},
		{"conflict in a transaction", `{"operation":"TransactWriteItems","table":"T","key":{"pk":{"S":"a"}},"error":"TransactionConflict"}`, "TransactWriteItems", tx,
			400, prefixDynamo + "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]",
			`[{"Code":"None"},{"Code":"TransactionConflict","Message":"Transaction is ongoing for the item"}]`},
		{"throttled transaction", `{"operation":"TransactWriteItems","error":"ThrottlingException"}`, "TransactWriteItems", tx,
			400, prefixDynamo + "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError, ThrottlingError]", ""},
		{"provisioned", `{"operation":"PutItem","error":"ProvisionedThroughputExceeded"}`, "PutItem", put,
			400, prefixDynamo + "ProvisionedThroughputExceededException", msgProvisionedWant, ""},
		{"provisioned in a transaction", `{"operation":"TransactWriteItems","table":"T","key":{"pk":{"S":"a"}},"error":"ProvisionedThroughputExceeded"}`, "TransactWriteItems", tx,
			400, prefixDynamo + "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ProvisionedThroughputExceeded]",
			`[{"Code":"None"},{"Code":"ProvisionedThroughputExceeded","Message":"` + msgProvisionedWant + `"}]`},
		{"throttling", `{"operation":"PutItem","error":"ThrottlingException"}`, "PutItem", put,
			400, prefixAvail + "ThrottlingException", msgThrottling, ""},
		{"internal", `{"operation":"PutItem","error":"InternalServerError"}`, "PutItem", put,
			500, prefixDynamo + "InternalServerError", "Internal server error", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFaultServer(t)
			if err := fs.addRule(t, tt.rule); err != nil {
				t.Fatalf("adding rule: %v", err)
			}
			status, doc := fs.call(t, tt.op, tt.body)
			msg, _ := doc["message"].(string)
			if m, ok := doc["Message"].(string); ok {
				msg = m
			}
			typ, _ := doc["__type"].(string)
			if status != tt.wantStatus || typ != tt.wantType || msg != tt.wantMsg {
				t.Fatalf("got %d %s %q, want %d %s %q", status, typ, msg, tt.wantStatus, tt.wantType, tt.wantMsg)
			}
			if tt.wantReasons != "" {
				got, _ := json.Marshal(doc["CancellationReasons"])
				if string(got) != tt.wantReasons {
					t.Errorf("got reasons %s, want %s", got, tt.wantReasons)
				}
			}
			// count defaults to 1: the next request is served.
			if status, doc := fs.call(t, tt.op, tt.body); status != 200 {
				t.Errorf("second request: got %d %v, want 200", status, doc)
			}
		})
	}
}

// TestFaultUnprocessedItems: a BatchWriteItem rule leaves the matching
// request unprocessed and serves the rest (the tables' names are valid:
// RequestItems' key constraint is checked first).
func TestFaultUnprocessedItems(t *testing.T) {
	fs := newFaultServer(t)
	rule := `{"operation":"BatchWriteItem","table":"Tbl","key":{"pk":{"S":"b"}},"error":"UnprocessedItems"}`
	if err := fs.addRule(t, rule); err != nil {
		t.Fatalf("adding rule: %v", err)
	}
	body := `{"RequestItems":{"Tbl":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"PutRequest":{"Item":{"pk":{"S":"b"}}}}],"Ubl":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}]}}`
	status, doc := fs.call(t, "BatchWriteItem", body)
	if status != 200 {
		t.Fatalf("got %d %v, want 200", status, doc)
	}
	got, _ := json.Marshal(doc["UnprocessedItems"])
	if want := `{"Tbl":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}]}`; string(got) != want {
		t.Errorf("got UnprocessedItems %s, want %s", got, want)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	slices.Sort(fs.received) // the operation sees tables in map order
	if got, want := strings.Join(fs.received, ","), "Tbl:a,Ubl:b"; got != want {
		t.Errorf("got %s served, want %s", got, want)
	}
}
