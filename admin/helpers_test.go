package admin

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// mounted is Handler(cfg) mounted at Prefix, as api mounts it.
func mounted(cfg Config) http.Handler {
	r := chi.NewRouter()
	r.Mount(Prefix, Handler(cfg))
	return r
}

// do sends one request to url+path and returns the status and body.
func do(t *testing.T, url, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
