package mcp

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ddblocal/ddblocal/clock"
	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/server"
	"github.com/ddblocal/ddblocal/table"
	"github.com/ddblocal/ddblocal/throttle"
)

// Evaluator runs evaluate_data_model. Its zero value is ready to use.
type Evaluator struct {
	// MaxRequests bounds the requests one evaluation sends (default
	// 20000): a heavier workload is sent at a fraction of its rates
	// against limits scaled by the same fraction (--capacity-scale), which
	// keeps every partition's load relative to its limits.
	MaxRequests int
	// MaxPreload bounds the items written before the run so that reads
	// find data (default 5000).
	MaxPreload int
}

// evalStart is the scratch server's frozen clock's start: a fixed date, so
// that a report does not depend on when it ran.
var evalStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Evaluate creates m.Table on a scratch in-memory server, preloads the
// items the reads need, switches on DynamoDB's throughput limits for the
// table, runs the access patterns second by second on the server's frozen
// clock, and reports. It returns an error naming the field when the model
// is invalid, DynamoDB's error when the table definition is, and any other
// request's error that is not throttling.
func (ev *Evaluator) Evaluate(ctx context.Context, m Model) (*Report, error) {
	if m.Table == nil {
		return nil, errNoTable
	}
	def, err := tableDefinition(m.Table)
	if err != nil {
		return nil, err
	}
	sc, err := parseSchema(def)
	if err != nil {
		return nil, fmt.Errorf("Table: %w", err)
	}
	if err := m.validate(sc); err != nil {
		return nil, err
	}
	scale := ev.scale(m)
	def = scaleLimits(def, scale)
	clk := clock.Manual(evalStart)
	srv, err := server.Start(ctx, server.Options{InMemory: true, Host: "127.0.0.1", Clock: clk,
		Table: table.Options{CapacityScale: scale}})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	ep := &Endpoint{URL: srv.URL(), Credentials: aws.Credentials{AccessKeyID: "ddblocal", SecretAccessKey: "ddblocal"}}
	r := newRun(ep, clk, sc, m, scale, orDefault(ev.MaxPreload, 5000))
	return r.evaluate(ctx, def)
}

// scale is the share of the described rates the run sends.
func (ev *Evaluator) scale(m Model) float64 {
	var total float64
	for _, p := range m.AccessPatterns {
		total += p.RatePerSecond * float64(m.Seconds)
	}
	budget := float64(orDefault(ev.MaxRequests, 20000))
	if total <= budget {
		return 1
	}
	return budget / total
}

// evaluate runs the phases of Evaluate on the scratch server.
func (r *run) evaluate(ctx context.Context, def map[string]any) (*Report, error) {
	if err := r.ep.Call(ctx, "CreateTable", def, nil); err != nil {
		return nil, fmt.Errorf("Table: %w", err)
	}
	desc, err := waitActive(ctx, r.ep, r.sc.name)
	if err != nil {
		return nil, err
	}
	if err := r.preload(ctx); err != nil {
		return nil, fmt.Errorf("preloading items: %w", err)
	}
	before, err := r.insights(ctx)
	if err != nil {
		return nil, err
	}
	tag := map[string]any{"ResourceArn": desc["TableArn"], "Tags": []any{map[string]any{"Key": throttle.Tag, "Value": "on"}}}
	if err := r.ep.Call(ctx, "TagResource", tag, nil); err != nil {
		return nil, err
	}
	for range r.m.Seconds {
		if err := r.second(ctx); err != nil {
			return nil, err
		}
	}
	after, err := r.insights(ctx)
	if err != nil {
		return nil, err
	}
	return r.report(before, after), nil
}

// insights settles the indexes and fetches the table's insights report.
func (r *run) insights(ctx context.Context) (*insights.Report, error) {
	if err := r.ep.Admin(ctx, "POST", "/_ddblocal/settle", &map[string]any{}); err != nil {
		return nil, err
	}
	var rep insights.Report
	if err := r.ep.Admin(ctx, "GET", "/_ddblocal/insights?table="+r.sc.name, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// second sends one simulated second of every pattern, then moves the
// clock, which refills the partitions' token buckets.
func (r *run) second(ctx context.Context) error {
	for i := range r.m.AccessPatterns {
		p := &r.m.AccessPatterns[i]
		st := &r.stats[i]
		st.due += p.RatePerSecond * r.scale
		n := int(math.Floor(st.due))
		st.due -= float64(n)
		for range n {
			if err := r.request(ctx, i); err != nil {
				return fmt.Errorf("AccessPatterns[%d] (%s): %w", i, p.Name, err)
			}
		}
	}
	_, err := r.clk.Advance(ctx, time.Second)
	return err
}

// scaleLimits returns def with the capacity the user sets (provisioned
// units, on-demand maximums, of the table and its global indexes)
// multiplied by scale: ddblocal's --capacity-scale scales only DynamoDB's
// own limits, and a scaled run must scale both alike.
func scaleLimits(def map[string]any, scale float64) map[string]any {
	if scale == 1 {
		return def
	}
	scaleUnits(def, scale)
	for _, ix := range list(def["GlobalSecondaryIndexes"]) {
		scaleUnits(ix, scale)
	}
	return def
}

// scaleUnits scales the units of one table or index definition in place.
func scaleUnits(def map[string]any, scale float64) {
	for member, fields := range map[string][]string{
		"ProvisionedThroughput": {"ReadCapacityUnits", "WriteCapacityUnits"},
		"OnDemandThroughput":    {"MaxReadRequestUnits", "MaxWriteRequestUnits"},
	} {
		m, ok := def[member].(map[string]any)
		if !ok {
			continue
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
			if f, ok := v.(float64); ok && f > 0 && contains(fields, k) {
				c[k] = math.Max(1, math.Ceil(f*scale))
			}
		}
		def[member] = c
	}
}
