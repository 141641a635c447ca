package admin

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ddblocal/ddblocal/streams"
)

// triggersPath is where local triggers are managed: POST adds one, GET lists
// them, DELETE triggersPath/{id} removes one.
const triggersPath = "/_ddblocal/triggers"

// triggerRoutes serves the local triggers of ts under /_ddblocal/triggers.
func triggerRoutes(ts *streams.Triggers) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, sub := strings.CutPrefix(r.URL.Path, triggersPath+"/")
		switch {
		case r.URL.Path == triggersPath && r.Method == http.MethodGet:
			writeJSON(w, http.StatusOK, map[string][]streams.TriggerStatus{"triggers": ts.List()})
		case r.URL.Path == triggersPath && r.Method == http.MethodPost:
			var cfg streams.TriggerConfig
			dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&cfg); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
			st, err := ts.Add(r.Context(), cfg)
			if err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
			writeJSON(w, http.StatusOK, st)
		case r.URL.Path == triggersPath:
			w.Header().Set("Allow", "GET, POST")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
		case sub && id != "" && r.Method == http.MethodDelete:
			if !ts.Remove(id) {
				writeJSON(w, http.StatusNotFound, map[string]string{"error": "no trigger " + id})
				return
			}
			writeJSON(w, http.StatusOK, map[string]string{"deleted": id})
		case sub:
			w.Header().Set("Allow", "DELETE")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
		default:
			http.NotFound(w, r)
		}
	})
}
