// Package console is ddblocal's web console: a few static files (HTML, CSS
// and JavaScript, embedded in the binary, no build step, nothing fetched
// from elsewhere) that api serves under Path. The page reads only what the
// server's JSON endpoints expose: the DynamoDB API itself (POST /, signed
// with SigV4 in the browser), GET /_ddblocal/insights and, for a global
// table's replicas, /_ddblocal/replication.
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// Path is where the console is served; Path + "/" is its page.
const Path = "/_ddblocal/console"

// csp keeps the page to its own origin: no script, style, font or image
// from anywhere else, no inline script, no framing.
const csp = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

//go:embed assets
var embedded embed.FS

// Handler returns the handler of every request under Path: Path itself is
// redirected to Path + "/", which serves index.html; Path + "/NAME" serves
// the asset NAME; anything else is 404. Only GET and HEAD are answered
// (405 otherwise).
func Handler() http.Handler {
	assets, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // the embedded tree always has assets/
	}
	files := http.StripPrefix(Path, http.FileServerFS(assets))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == Path {
			http.Redirect(w, r, Path+"/", http.StatusMovedPermanently)
			return
		}
		if !strings.HasPrefix(r.URL.Path, Path+"/") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		// The assets change only with the binary; revalidate each load so
		// an upgraded server is never paired with a stale script.
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
