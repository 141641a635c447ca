package admin

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/ddblocal/ddblocal/api"
)

// TestHealth checks /_ddblocal/health, served through api as server wires
// it (so that the route also carries api's request id).
func TestHealth(t *testing.T) {
	for _, tc := range []struct {
		name       string
		readyErr   error
		wantStatus int
		wantBody   string
	}{
		{"ready", nil, 200, `{"status":"ok"}` + "\n"},
		{"not ready", errors.New("store not open"), 503, `{"error":"store not open","status":"unavailable"}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := api.NewHandler(api.Config{Addr: "localhost:8000",
				Admin: Handler(Config{Ready: func() error { return tc.readyErr }})}, nil)
			ts := httptest.NewServer(h)
			defer ts.Close()
			status, body := do(t, ts.URL, "GET", "/_ddblocal/health", "")
			if status != tc.wantStatus || body != tc.wantBody {
				t.Errorf("GET /_ddblocal/health = %d %q, want %d %q", status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// TestUnknownRoute checks that a path under /_ddblocal that no route
// serves is a 404, and that a route turned off by a nil Config member is
// one too.
func TestUnknownRoute(t *testing.T) {
	ts := httptest.NewServer(mounted(Config{}))
	defer ts.Close()
	for _, path := range []string{"/_ddblocal/nosuch", "/_ddblocal/faults", "/_ddblocal/settle"} {
		if status, _ := do(t, ts.URL, "GET", path, ""); status != 404 {
			t.Errorf("GET %s = %d, want 404", path, status)
		}
	}
}
