package main

import (
	"net/http"
	"net/http/pprof"
)

// pprofPrefix is where --pprof mounts Go's profiler: under /_ddblocal/, the
// namespace kept for everything that is not DynamoDB's API.
const pprofPrefix = "/_ddblocal/debug/pprof/"

// withPprof routes pprofPrefix to net/http/pprof and everything else to h.
// It is opt-in because profiles expose the process's internals.
func withPprof(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(pprofPrefix, func(w http.ResponseWriter, r *http.Request) {
		// pprof.Index serves named profiles by the path's last element,
		// which it expects under /debug/pprof/; strip our prefix for it.
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/debug/pprof/" + r.URL.Path[len(pprofPrefix):]
		pprof.Index(w, r2)
	})
	mux.HandleFunc(pprofPrefix+"cmdline", pprof.Cmdline)
	mux.HandleFunc(pprofPrefix+"profile", pprof.Profile)
	mux.HandleFunc(pprofPrefix+"symbol", pprof.Symbol)
	mux.HandleFunc(pprofPrefix+"trace", pprof.Trace)
	mux.Handle("/", h)
	return mux
}
