package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPprofHandlers: what `go tool pprof URL` and the benchmarks fetch under
// --pprof is served by our runtime/pprof handlers; other paths reach the API.
func TestPprofHandlers(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "api") })
	srv := httptest.NewServer(withPprof(api))
	defer srv.Close()
	get := func(path string) (int, string, []byte) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b
	}
	gzipped := func(b []byte) bool { return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) }
	for _, tc := range []struct {
		path  string
		code  int
		check func([]byte) bool
	}{
		{"/", 200, func(b []byte) bool { return string(b) == "api" }},
		{pprofPrefix, 200, func(b []byte) bool {
			return strings.Contains(string(b), "\theap\n") && strings.Contains(string(b), "profile\n")
		}},
		{pprofPrefix + "heap?gc=1&debug=1", 200, func(b []byte) bool { return strings.HasPrefix(string(b), "heap profile:") }},
		{pprofPrefix + "allocs", 200, gzipped},
		{pprofPrefix + "goroutine?debug=2", 200, func(b []byte) bool { return strings.Contains(string(b), "goroutine ") }},
		{pprofPrefix + "profile?seconds=0.2", 200, gzipped},
		{pprofPrefix + "trace?seconds=0.1", 200, func(b []byte) bool { return bytes.HasPrefix(b, []byte("go 1.")) }},
		{pprofPrefix + "cmdline", 200, func(b []byte) bool { return len(b) > 0 }},
		{pprofPrefix + "profile?seconds=x", 400, nil},
		{pprofPrefix + "heap?seconds=5", 400, nil},
		{pprofPrefix + "nosuch", 404, nil},
	} {
		code, _, body := get(tc.path)
		if code != tc.code || (tc.check != nil && !tc.check(body)) {
			t.Errorf("GET %s: %d, %.80q", tc.path, code, body)
		}
	}
}
