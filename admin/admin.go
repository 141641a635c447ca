// Package admin serves ddblocal's own HTTP routes: everything under
// /_ddblocal/ that is not DynamoDB's API (health, settle, insights, the web
// console, fault rules, the clock and local triggers). server mounts its
// Handler into api's router (api.Config.Admin), so these routes share the
// API's request ids, CORS, logging and panic recovery; api itself knows
// none of them.
package admin

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/console"
	"github.com/ddblocal/ddblocal/faults"
	"github.com/ddblocal/ddblocal/streams"
)

// Prefix is where Handler's routes live; api mounts Handler there.
const Prefix = "/_ddblocal"

// Config says what the routes serve. A nil member turns its route off
// (404), except Ready (nil: always ready) and the console (always on).
type Config struct {
	// Ready backs GET /_ddblocal/health.
	Ready func() error
	// Settle backs POST /_ddblocal/settle: it returns once every write
	// acknowledged before the call is visible to every read.
	Settle func(ctx context.Context) error
	// Insights backs GET /_ddblocal/insights (insights.go).
	Insights InsightsSource
	// Verifier, when set, makes GET /_ddblocal/insights carry a valid SigV4
	// signature, as DynamoDB's own calls must (--credentials).
	Verifier *auth.Verifier
	// Faults backs /_ddblocal/faults (faults.go).
	Faults *faults.Injector
	// Clock backs /_ddblocal/clock (clock.go).
	Clock Clock
	// Triggers backs /_ddblocal/triggers (triggers.go).
	Triggers *streams.Triggers
	// Replication backs /_ddblocal/replication (replication.go).
	Replication Replication
	// Logger receives the internal errors of insights. Nil discards them.
	Logger *slog.Logger
}

// Handler returns the handler of every route under Prefix, routing on the
// path below it (as chi's Mount leaves it).
func Handler(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	r := chi.NewRouter()
	r.Get("/health", readiness(cfg.Ready))
	cons := console.Handler()
	r.Handle(console.Path[len(Prefix):], cons)
	r.Handle(console.Path[len(Prefix):]+"/*", cons)
	if cfg.Settle != nil {
		r.Post("/settle", settle(cfg.Settle))
	}
	if cfg.Insights != nil {
		r.Get(insightsPath[len(Prefix):], insightsHandler(cfg))
	}
	if cfg.Faults != nil {
		r.Handle(faultsPath[len(Prefix):], faultRoutes(cfg.Faults))
	}
	if cfg.Clock != nil {
		r.Handle(clockPath[len(Prefix):], clockRoutes(cfg.Clock))
	}
	if cfg.Replication != nil {
		replicationRoutes(r, cfg.Replication)
	}
	if cfg.Triggers != nil {
		h := triggerRoutes(cfg.Triggers)
		r.Handle(triggersPath[len(Prefix):], h)
		r.Handle(triggersPath[len(Prefix):]+"/*", h)
	}
	return r
}

// readiness reports ready as JSON: 200 {"status":"ok"} or
// 503 {"status":"unavailable","error":"…"}.
func readiness(ready func() error) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var err error
		if ready != nil {
			err = ready()
		}
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"status": "unavailable", "error": err.Error()})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
	}
}

// settle serves POST /_ddblocal/settle: 200 {"settled":true} once fn
// returns, 503 with the error otherwise (the client gave up, or shutdown).
func settle(fn func(context.Context) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if err := fn(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		w.Write([]byte(`{"settled":true}`))
	}
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
