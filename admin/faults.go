package admin

import (
	"encoding/json"
	"net/http"

	"github.com/ddblocal/ddblocal/faults"
)

// faultsPath is where fault rules are managed (see package faults for the
// rule format): POST adds a rule, GET lists them, DELETE clears them.
const faultsPath = "/_ddblocal/faults"

// faultRoutes serves the fault rules of inj under /_ddblocal/faults.
func faultRoutes(inj *faults.Injector) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodPost:
			var rule faults.Rule
			dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rule); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
			if err := inj.Add(rule); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
		case http.MethodDelete:
			inj.Clear()
		default:
			w.Header().Set("Allow", "GET, POST, DELETE")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "method not allowed"})
			return
		}
		writeJSON(w, http.StatusOK, map[string][]faults.Rule{"rules": inj.Rules()})
	})
}
