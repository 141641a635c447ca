package admin

import (
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/ddblocal/ddblocal/replication"
)

// replicationPath reports and steers global tables' replication (package
// replication): GET for every link's lag, backlog and conflicts; POST
// .../pause?region=R and .../resume?region=R cut a Region off from the
// others and let it catch up again.
const replicationPath = Prefix + "/replication"

// Replication is what replicationPath uses: *table.Service.
type Replication interface {
	Replication() (*replication.Report, error)
	PauseRegion(region string)
	ResumeRegion(region string)
}

// replicationRoutes adds replicationPath's routes to r.
func replicationRoutes(r chi.Router, rep Replication) {
	p := replicationPath[len(Prefix):]
	r.Get(p, func(w http.ResponseWriter, _ *http.Request) { serveReplication(w, rep) })
	r.Post(p+"/pause", steerReplication(rep, rep.PauseRegion))
	r.Post(p+"/resume", steerReplication(rep, rep.ResumeRegion))
}

// serveReplication answers with the report.
func serveReplication(w http.ResponseWriter, rep Replication) {
	out, err := rep.Replication()
	if err != nil {
		replicationJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	replicationJSON(w, http.StatusOK, out)
}

// steerReplication answers a pause or resume: 400 without a region, else
// the report after the change.
func steerReplication(rep Replication, change func(region string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		region := r.URL.Query().Get("region")
		if region == "" {
			replicationJSON(w, http.StatusBadRequest, map[string]string{"error": "the region query parameter is required"})
			return
		}
		change(region)
		serveReplication(w, rep)
	}
}

func replicationJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
