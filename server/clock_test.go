package server

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClockSurvivesRestart: a clock moved through /_ddblocal/clock stays
// moved when the server restarts on the same data, so that time (TTL,
// stream retention) never goes back across a restart.
func TestClockSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ddb.db")
	start := func() *Server {
		t.Helper()
		s, err := Start(context.Background(), Options{Path: path, Host: "127.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := start()
	for _, body := range []string{`{"advance":"49h"}`, `{"advance":"1h"}`} {
		resp, err := http.Post(s.URL()+"/_ddblocal/clock", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: got status %d, want 200", body, resp.StatusCode)
		}
	}
	moved := s.Clock().Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = start()
	defer s.Close()
	if got := s.Clock().Now(); got.Before(moved) {
		t.Errorf("after restart: got %v, want at least %v (50h ahead of the wall clock)", got, moved)
	}
	if got, want := s.Clock().Offset(), 50*time.Hour; got != want {
		t.Errorf("offset after restart: got %v, want %v", got, want)
	}
}
