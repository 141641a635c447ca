package admin

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/faults"
)

func TestFaultRoutes(t *testing.T) {
	ts := httptest.NewServer(mounted(Config{Faults: faults.New()}))
	t.Cleanup(ts.Close)
	tests := []struct {
		method, body string
		wantStatus   int
		wantBody     string
	}{
		{"GET", "", 200, `{"rules":[]}`},
		{"POST", `{"operation":"PutItem","table":"T","key":{"pk":{"S":"a"}},"error":"TransactionConflict","count":2}`, 200,
			`{"rules":[{"operation":"PutItem","table":"T","key":{"pk":{"S":"a"}},"error":"TransactionConflict","count":2,"hits":0}]}`},
		{"POST", `{"operation":"PutItem","error":"Nope"}`, 400, `{"error":"faults: unknown error kind \"Nope\""}`},
		{"POST", `{"operation":"PutItem","error":"UnprocessedItems"}`, 400, `{"error":"faults: UnprocessedItems applies only to BatchWriteItem and BatchGetItem"}`},
		{"POST", `{"operation":"PutItem","eror":"Throttling"}`, 400, `{"error":"json: unknown field \"eror\""}`},
		{"PUT", "", 405, `{"error":"method not allowed"}`},
		{"DELETE", "", 200, `{"rules":[]}`},
	}
	for _, tt := range tests {
		status, body := do(t, ts.URL, tt.method, faultsPath, tt.body)
		if status != tt.wantStatus || strings.TrimSpace(body) != tt.wantBody {
			t.Errorf("%s %s: got %d %s, want %d %s", tt.method, tt.body, status, body, tt.wantStatus, tt.wantBody)
		}
	}
}
