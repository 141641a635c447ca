package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// sample is what one server showed in one round of a comparison.
type sample struct {
	start   time.Duration          // exec to first answered request
	listen  time.Duration          // exec to the port accepting a connection
	idleRSS int64                  // VmRSS after -idle without requests
	runs    map[string]measurement // by workload name
}

// compare runs the comparison mode: every round starts each server in turn
// (the order rotating by one each round, so no server always follows the
// same one), measures it, and kills it; then the table of medians and paired
// ratios is written.
func (b *bench) compare(ctx context.Context) error {
	specs := slices.Clone(b.cfg.servers)
	if b.cfg.ceiling {
		spec, err := ceilingSpec()
		if err != nil {
			return err
		}
		specs = append(specs, spec)
	}
	samples := make([][]sample, len(specs))
	for r := range b.cfg.rounds {
		for _, i := range rotation(len(specs), r) {
			s, err := b.sampleServer(ctx, specs[i])
			if err != nil {
				return fmt.Errorf("round %d: %w", r+1, err)
			}
			writeSampleLine(b.out, r+1, specs[i].name, s)
			samples[i] = append(samples[i], s)
		}
	}
	writeComparison(b.out, b.cfg, specs, samples)
	return nil
}

// rotation returns 0..n-1 rotated left by r.
func rotation(n, r int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (i + r) % n
	}
	return order
}

// sampleServer starts spec, waits -idle, reads its idle RSS, runs the
// workloads (the ceiling server runs only the ceiling workload) and kills it.
func (b *bench) sampleServer(ctx context.Context, spec serverSpec) (sample, error) {
	srv, err := startServer(ctx, spec)
	if err != nil {
		return sample{}, err
	}
	defer srv.stop()
	s := sample{start: srv.startDur, listen: srv.listenDur, idleRSS: -1, runs: map[string]measurement{}}
	select {
	case <-ctx.Done():
		return s, ctx.Err()
	case <-time.After(b.cfg.idle):
	}
	if rss, err := procRSS(srv.pid); err == nil {
		s.idleRSS = rss
	}
	workloads := b.cfg.workloads
	if spec.ceiling {
		workloads = []string{"ceiling"}
	}
	for _, name := range workloads {
		m, err := b.measureWorkload(ctx, name, srv.url, srv.pid, b.cfg.tableFor(spec.name), io.Discard)
		if err != nil {
			return s, fmt.Errorf("%s %s: %w", spec.name, name, err)
		}
		if m.summary.errors > 0 {
			return s, fmt.Errorf("%s %s: %d errors, the first: %w", spec.name, name, m.summary.errors, m.summary.firstErr)
		}
		s.runs[name] = m
	}
	return s, nil
}

// writeSampleLine writes one round's figures of one server, so a reader can
// see every value the medians come from.
func writeSampleLine(w io.Writer, round int, name string, s sample) {
	fmt.Fprintf(w, "round %d %-10s start %.1fms idle %.1fMiB", round, name, ms64(s.start), mib(s.idleRSS))
	for _, m := range sortedRuns(s.runs) {
		fmt.Fprintf(w, " | %s %.0f/s %.1fµs", m.name, perSecond(m.summary.ops, m.summary.elapsed), micros(m.serverCPU, m.summary.ops))
	}
	fmt.Fprintln(w)
}

func sortedRuns(runs map[string]measurement) []measurement {
	out := make([]measurement, 0, len(runs))
	for _, name := range workloadNames {
		if m, ok := runs[name]; ok {
			out = append(out, m)
		}
	}
	return out
}

func ms64(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mib(n int64) float64 { return float64(n) / (1 << 20) }
