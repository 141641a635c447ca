package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"
)

// pprofPrefix is where --pprof mounts Go's profiler: under /_ddblocal/, the
// namespace kept for everything that is not DynamoDB's API.
const pprofPrefix = "/_ddblocal/debug/pprof/"

// withPprof routes pprofPrefix to the profiler and everything else to h.
// It is opt-in because profiles expose the process's internals.
//
// The handlers are written on runtime/pprof rather than taken from
// net/http/pprof: that package links internal/profile (~100 KB of binary,
// for its delta profiles) and the image has to stay under 30 MB. What `go
// tool pprof URL` and our benchmarks use is kept: profile and trace with
// ?seconds=, every named profile with ?debug= and ?gc=1, cmdline, and an
// index. Not kept: ?seconds= on named profiles (deltas) and symbol.
func withPprof(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(pprofPrefix, pprofNamed)
	mux.HandleFunc(pprofPrefix+"cmdline", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, strings.Join(os.Args, "\x00"))
	})
	mux.HandleFunc(pprofPrefix+"profile", func(w http.ResponseWriter, r *http.Request) {
		pprofTimed(w, r, pprof.StartCPUProfile, pprof.StopCPUProfile)
	})
	mux.HandleFunc(pprofPrefix+"trace", func(w http.ResponseWriter, r *http.Request) {
		pprofTimed(w, r, trace.Start, trace.Stop)
	})
	mux.Handle("/", h)
	return mux
}

// pprofTimed records for ?seconds= (default 30; fractions taken, as
// net/http/pprof's trace does) through start and stop into the response.
func pprofTimed(w http.ResponseWriter, r *http.Request, start func(io.Writer) error, stop func()) {
	secs := 30.0
	if v := r.FormValue("seconds"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			http.Error(w, "bad seconds", http.StatusBadRequest)
			return
		}
		secs = f
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="profile"`)
	if err := start(w); err != nil {
		// Another profile is running: there can be only one.
		w.Header().Del("Content-Disposition")
		http.Error(w, "could not enable profiling: "+err.Error(), http.StatusInternalServerError)
		return
	}
	select {
	case <-time.After(time.Duration(secs * float64(time.Second))):
	case <-r.Context().Done():
	}
	stop()
}

// pprofNamed serves a named profile (heap, allocs, goroutine, ...) by the
// path's last element, with ?debug=N and ?gc=1; the bare prefix lists them.
func pprofNamed(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, pprofPrefix)
	if name == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for _, p := range pprof.Profiles() {
			fmt.Fprintf(w, "%d\t%s\n", p.Count(), p.Name())
		}
		fmt.Fprintln(w, "profile\ntrace\ncmdline")
		return
	}
	p := pprof.Lookup(name)
	if p == nil {
		http.Error(w, "unknown profile", http.StatusNotFound)
		return
	}
	if r.FormValue("seconds") != "" {
		http.Error(w, "delta profiles (?seconds= on a named profile) are not served", http.StatusBadRequest)
		return
	}
	debug, _ := strconv.Atoi(r.FormValue("debug"))
	if name == "heap" && r.FormValue("gc") != "" {
		runtime.GC()
	}
	if debug != 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	}
	_ = p.WriteTo(w, debug)
}
