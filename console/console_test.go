package console

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, method, path string) *http.Response {
	t.Helper()
	w := httptest.NewRecorder()
	Handler().ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w.Result()
}

func TestHandlerRoutes(t *testing.T) {
	tests := []struct {
		method, path string
		status       int
		contentType  string // prefix
		location     string
	}{
		{"GET", Path, http.StatusMovedPermanently, "", Path + "/"},
		{"GET", Path + "/", http.StatusOK, "text/html", ""},
		{"HEAD", Path + "/", http.StatusOK, "text/html", ""},
		{"GET", Path + "/app.js", http.StatusOK, "text/javascript", ""},
		{"GET", Path + "/console.css", http.StatusOK, "text/css", ""},
		{"GET", Path + "/missing.js", http.StatusNotFound, "", ""},
		{"GET", "/_ddblocal/consolex", http.StatusNotFound, "", ""},
		{"POST", Path + "/", http.StatusMethodNotAllowed, "", ""},
	}
	for _, tt := range tests {
		resp := get(t, tt.method, tt.path)
		if got := resp.StatusCode; got != tt.status {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, got, tt.status)
		}
		if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, tt.contentType) {
			t.Errorf("%s %s: Content-Type %q, want %q…", tt.method, tt.path, got, tt.contentType)
		}
		if got := resp.Header.Get("Location"); got != tt.location {
			t.Errorf("%s %s: Location %q, want %q", tt.method, tt.path, got, tt.location)
		}
		if tt.status == http.StatusOK && resp.Header.Get("Content-Security-Policy") != csp {
			t.Errorf("%s %s: Content-Security-Policy %q, want %q", tt.method, tt.path, resp.Header.Get("Content-Security-Policy"), csp)
		}
	}
}

// references finds what a page or module loads: src= and href= in HTML,
// import … from "…" in JavaScript, url(…) in CSS.
var references = regexp.MustCompile(`(?:src|href)="([^"#]+)"|from "([^"]+)"|url\(([^)]+)\)`)

// TestAssetsSelfContained checks that everything the page loads is one of
// the embedded assets (so it works offline, with no CDN) and is served.
func TestAssetsSelfContained(t *testing.T) {
	assets, err := fs.Sub(embedded, "assets")
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(assets, "*")
	if err != nil {
		t.Fatal(err)
	}
	loaded := map[string]bool{"index.html": true}
	for _, name := range names {
		b, err := fs.ReadFile(assets, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range references.FindAllStringSubmatch(string(b), -1) {
			ref := m[1] + m[2] + m[3]
			if strings.HasPrefix(ref, "data:") {
				continue // inline, nothing is fetched
			}
			if strings.Contains(ref, ":") || strings.HasPrefix(ref, "/") {
				t.Errorf("%s loads %q: only relative references to embedded assets are allowed", name, ref)
				continue
			}
			ref = strings.TrimPrefix(ref, "./")
			if _, err := fs.Stat(assets, ref); err != nil {
				t.Errorf("%s loads %q, which is not embedded", name, ref)
			}
			loaded[ref] = true
		}
	}
	for _, name := range names {
		if !loaded[name] {
			t.Errorf("asset %s is embedded but nothing loads it", name)
		}
		path := Path + "/" + name
		if name == "index.html" {
			path = Path + "/" // FileServer redirects …/index.html to …/
		}
		resp := get(t, "GET", path)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("GET %s: status %d, %d bytes; want 200 with the asset", name, resp.StatusCode, len(body))
		}
	}
}
