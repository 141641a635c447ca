package admin

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/clock"
)

func TestClockRoutes(t *testing.T) {
	c := clock.Manual(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	h := mounted(Config{Clock: c})
	tests := []struct {
		method, body string
		status       int
		want         string
	}{
		{"GET", "", 200, `{"now":"2030-01-01T00:00:00.000Z"}`},
		{"POST", `{"advance":"49h"}`, 200, `{"now":"2030-01-03T01:00:00.000Z"}`},
		{"POST", `{"set":"2030-02-01T00:00:00.25Z"}`, 200, `{"now":"2030-02-01T00:00:00.250Z"}`},
		{"POST", `{"set":"2030-01-01T00:00:00Z"}`, 400, `{"error":"clock: the clock never moves backward","now":"2030-02-01T00:00:00.250Z"}`},
		{"POST", `{"advance":"-1s"}`, 400, `{"error":"clock: the clock never moves backward","now":"2030-02-01T00:00:00.250Z"}`},
		{"POST", `{}`, 400, `{"error":"give exactly one of \"advance\" (a duration such as \"49h\") or \"set\" (RFC 3339)","now":"2030-02-01T00:00:00.250Z"}`},
		{"DELETE", "", 405, `{"error":"method not allowed"}`},
	}
	for _, tc := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, "/_ddblocal/clock", strings.NewReader(tc.body)))
		if got := strings.TrimSpace(rec.Body.String()); rec.Code != tc.status || got != tc.want {
			t.Errorf("%s %s: got %d %s, want %d %s", tc.method, tc.body, rec.Code, got, tc.status, tc.want)
		}
	}
}
