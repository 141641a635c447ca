package store_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// TestHealthOverHTTPAfterFsyncFailure: a failed fsync of the write-ahead
// log, wired as the server wires the store, the service and the routes,
// fails the write it was for (a 500, never an acknowledgement), turns GET
// /_ddblocal/health into a 503 that says why, and refuses every later
// write; a restart serves the acknowledged writes and is healthy again.
func TestHealthOverHTTPAfterFsyncFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	var logged strings.Builder
	db, failSync := store.OpenFailingSync(t, path, &logged)
	url, stop := serve(t, db)
	wantHealth(t, url, http.StatusOK, "")
	call(t, url, "CreateTable", `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`, http.StatusOK)
	call(t, url, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"acked"}}}`, http.StatusOK)

	failSync()
	if body := call(t, url, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"lost"}}}`, http.StatusInternalServerError); !strings.Contains(body, "InternalServerError") {
		t.Errorf("PutItem with a failing fsync answered %s, want InternalServerError", body)
	}
	wantHealth(t, url, http.StatusServiceUnavailable, "write-ahead log unusable: sync")
	call(t, url, "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"later"}}}`, http.StatusInternalServerError)
	wantHealth(t, url, http.StatusServiceUnavailable, "write-ahead log unusable: sync")
	stop()

	db, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	url, stop = serve(t, db)
	defer stop()
	wantHealth(t, url, http.StatusOK, "")
	body := call(t, url, "Scan", `{"TableName":"tbl","ConsistentRead":true}`, http.StatusOK)
	if !strings.Contains(body, `"acked"`) || strings.Contains(body, `"lost"`) || strings.Contains(body, `"later"`) {
		t.Errorf("Scan after the restart = %s, want the acknowledged item only", body)
	}
}

// serve wires db as server.Start does and returns its URL and a function
// that stops it and closes db.
func serve(t *testing.T, db *store.DB) (string, func()) {
	svc := table.New(db, table.Options{})
	cfg := api.Config{Addr: "localhost:8000", Admin: admin.Handler(admin.Config{Ready: db.Ready})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	return ts.URL, func() {
		ts.Close()
		svc.Close()
		_ = db.Close()
	}
}

// call sends one DynamoDB operation and checks its status.
func call(t *testing.T, url, op, body string, wantStatus int) string {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	// Signatures are not verified here, but a request must carry one.
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantStatus {
		t.Fatalf("%s = %d %s, want %d", op, resp.StatusCode, out, wantStatus)
	}
	return string(out)
}

// wantHealth checks GET /_ddblocal/health's status and that its error
// says errPart.
func wantHealth(t *testing.T, url string, status int, errPart string) {
	t.Helper()
	resp, err := http.Get(url + "/_ddblocal/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Status, Error string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status || !strings.Contains(got.Error, errPart) {
		t.Errorf("health = %d %+v, want %d with an error saying %q", resp.StatusCode, got, status, errPart)
	}
}
