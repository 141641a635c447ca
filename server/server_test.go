package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestInitRunsBeforeServing: Init can use the API in-process, and nothing
// is accepted on the listener until it returns.
func TestInitRunsBeforeServing(t *testing.T) {
	var initAddr string
	s, err := Start(context.Background(), Options{InMemory: true, Host: "127.0.0.1",
		Init: func(_ context.Context, h http.Handler) error {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
			initAddr = w.Body.String()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := "healthy: " + s.Addr(); !strings.HasPrefix(initAddr, want) {
		t.Errorf("GET / during Init: got %q, want prefix %q", initAddr, want)
	}
	resp, err := http.Get(s.URL() + "/_ddblocal/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got, want := strings.TrimSpace(string(body)), `{"status":"ok"}`; got != want {
		t.Errorf("health: got %s, want %s", got, want)
	}
}

// TestInitErrorReleasesEverything: a failing Init is Start's error, and the
// port is free again.
func TestInitErrorReleasesEverything(t *testing.T) {
	boom := errors.New("boom")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	_, err = Start(context.Background(), Options{InMemory: true, Host: "127.0.0.1", Port: port,
		Init: func(context.Context, http.Handler) error { return boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
	s, err := Start(context.Background(), Options{InMemory: true, Host: "127.0.0.1", Port: port})
	if err != nil {
		t.Fatalf("port %d not released: %v", port, err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

func TestAddrNamesLocalhost(t *testing.T) {
	tests := []struct{ host, wantPrefix string }{
		{"", "localhost:"}, {"127.0.0.1", "127.0.0.1:"},
	}
	for _, tt := range tests {
		s, err := Start(context.Background(), Options{InMemory: true, Host: tt.host})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Addr(); !strings.HasPrefix(got, tt.wantPrefix) {
			t.Errorf("host %q: got Addr %q, want prefix %q", tt.host, got, tt.wantPrefix)
		}
		if got := s.URL(); got != "http://"+s.Addr() {
			t.Errorf("got URL %q, want http://%s", got, s.Addr())
		}
		s.Close()
	}
}
