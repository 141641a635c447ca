package admin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/insights"
)

// insightsPath serves the partition heat, hot keys and key-design warnings
// of a table (package insights); the web console reads it.
const insightsPath = "/_ddblocal/insights"

// InsightsSource is what GET /_ddblocal/insights reads: *table.Service.
type InsightsSource interface {
	Insights(ctx context.Context, scope, name string) (*insights.Report, error)
	ListTables(ctx context.Context, scope string, in *ddb.ListTablesInput) (*ddb.ListTablesOutput, error)
}

// insightsTables is GET /_ddblocal/insights without a table.
type insightsTables struct {
	Tables []string `json:"tables"`
}

// insightsHandler answers GET /_ddblocal/insights?table=T with the report of
// table T, or without table the names of the caller's tables. The caller is
// found as for DynamoDB's own calls: with --credentials the request must be
// SigV4-signed (header or presigned query) and the signer's account scopes
// it; without, any caller is the default account. The region is the
// signature's, else the region query parameter, else us-east-1. Errors are
// DynamoDB's JSON errors (an unknown table is ResourceNotFoundException).
func insightsHandler(cfg Config) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		serveInsights(cfg, w, r)
	}
}

// serveInsights is insightsHandler's body.
func serveInsights(cfg Config, w http.ResponseWriter, r *http.Request) {
	id, err := insightsCaller(cfg.Verifier, r)
	if err != nil {
		api.WriteError(w, r, cfg.Logger, err)
		return
	}
	ctx := r.Context()
	if cfg.Verifier != nil {
		ctx = access.WithCaller(ctx, access.Caller{Account: id.Account, AccessKey: id.AccessKey, Operation: "DescribeTable"})
	}
	scope := access.Scope(id.Account, id.Region)
	var out any
	if name := r.URL.Query().Get("table"); name != "" {
		out, err = cfg.Insights.Insights(ctx, scope, name)
	} else {
		out, err = insightsTableNames(ctx, cfg.Insights, scope)
	}
	if err != nil {
		api.WriteError(w, r, cfg.Logger, err)
		return
	}
	body, err := json.Marshal(out)
	if err != nil {
		api.WriteError(w, r, cfg.Logger, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body)
}

// insightsCaller says who asks for insights (see serveInsights).
func insightsCaller(v *auth.Verifier, r *http.Request) (auth.Identity, error) {
	if v != nil {
		return v.Verify(r, nil)
	}
	region, err := auth.Region(r)
	if err != nil {
		region = r.URL.Query().Get("region")
		if region == "" {
			region = "us-east-1"
		}
	}
	return auth.Identity{Account: auth.DefaultAccount, Region: region}, nil
}

// insightsTableNames lists every table of scope, all pages.
func insightsTableNames(ctx context.Context, src InsightsSource, scope string) (insightsTables, error) {
	out := insightsTables{Tables: []string{}}
	in := &ddb.ListTablesInput{}
	for {
		page, err := src.ListTables(ctx, scope, in)
		if err != nil {
			return out, err
		}
		out.Tables = append(out.Tables, page.TableNames...)
		if page.LastEvaluatedTableName == "" {
			return out, nil
		}
		in.ExclusiveStartTableName = page.LastEvaluatedTableName
	}
}
