package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// clockPath is where the server's clock is read and moved.
const clockPath = "/_ddblocal/clock"

// Clock is the movable clock the clock route serves (clock.Clock).
type Clock interface {
	Now() time.Time
	Advance(ctx context.Context, d time.Duration) (time.Time, error)
	Set(ctx context.Context, t time.Time) (time.Time, error)
}

// clockMove is POST /_ddblocal/clock's body: exactly one of the members.
type clockMove struct {
	Advance string `json:"advance"` // a Go duration, "49h"
	Set     string `json:"set"`     // RFC 3339
}

// clockFormat is RFC 3339 with milliseconds, in UTC.
const clockFormat = "2006-01-02T15:04:05.000Z07:00"

// clockRoutes serves c under /_ddblocal/clock. GET answers {"now": "<RFC 3339 ms>"}; POST with
// {"advance": "49h"} or {"set": "2030-01-01T00:00:00Z"} moves it forward and
// answers, with the new time, once the work the move made due has run.
func clockRoutes(c Clock) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := c.Now()
		switch r.Method {
		case http.MethodGet:
		case http.MethodPost:
			var err error
			if now, err = moveClock(r, w, c); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error(), "now": now.UTC().Format(clockFormat)})
				return
			}
		default:
			w.Header().Set("Allow", "GET, POST")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"now": now.UTC().Format(clockFormat)})
	})
}

// moveClock decodes a clockMove and applies it, returning the clock's time.
func moveClock(r *http.Request, w http.ResponseWriter, c Clock) (time.Time, error) {
	var mv clockMove
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mv); err != nil {
		return c.Now(), err
	}
	switch {
	case (mv.Advance == "") == (mv.Set == ""):
		return c.Now(), fmt.Errorf(`give exactly one of "advance" (a duration such as "49h") or "set" (RFC 3339)`)
	case mv.Advance != "":
		d, err := time.ParseDuration(mv.Advance)
		if err != nil {
			return c.Now(), err
		}
		return c.Advance(r.Context(), d)
	}
	t, err := time.Parse(time.RFC3339Nano, mv.Set)
	if err != nil {
		return c.Now(), err
	}
	return c.Set(r.Context(), t)
}
