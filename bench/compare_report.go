package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// row is one metric of the comparison table: value(server, round) is the
// figure of that server in that round, false when it was not measured.
type row struct {
	label string
	value func(server, round int) (float64, bool)
}

// comparisonRows returns the metrics worth a row, in a fixed order: start,
// idle memory, then per workload CPU per operation, throughput and RSS after
// it (setup also RSS growth per loaded item), then GetItem's CPU as a
// multiple of the ceiling's in the same round.
func comparisonRows(cfg config, specs []serverSpec, samples [][]sample) []row {
	at := func(i, r int) (sample, bool) {
		if r >= len(samples[i]) {
			return sample{}, false
		}
		return samples[i][r], true
	}
	of := func(f func(sample) (float64, bool)) func(int, int) (float64, bool) {
		return func(i, r int) (float64, bool) {
			s, ok := at(i, r)
			if !ok {
				return 0, false
			}
			return f(s)
		}
	}
	rows := []row{
		{"start ms", of(func(s sample) (float64, bool) { return ms64(s.start), s.start > 0 })},
		{"listening ms", of(func(s sample) (float64, bool) { return ms64(s.listen), s.listen > 0 })},
		{"idle RSS MiB", of(func(s sample) (float64, bool) { return mib(s.idleRSS), s.idleRSS >= 0 })},
	}
	workloads := slices.Clone(cfg.workloads)
	ceiling := slices.IndexFunc(specs, func(s serverSpec) bool { return s.ceiling })
	if ceiling >= 0 {
		workloads = append(workloads, "ceiling")
	}
	for _, w := range workloads {
		rows = append(rows, workloadRows(w, of)...)
	}
	if ceiling >= 0 && slices.Contains(cfg.workloads, "get") {
		cpu := of(func(s sample) (float64, bool) { return cpuPerOp(s.runs["get"]) })
		ceil := of(func(s sample) (float64, bool) { return cpuPerOp(s.runs["ceiling"]) })
		rows = append(rows, row{"get CPU ÷ ceiling's", func(i, r int) (float64, bool) {
			a, okA := cpu(i, r)
			c, okC := ceil(ceiling, r)
			return a / c, okA && okC && c > 0 && i != ceiling
		}})
	}
	return rows
}

// workloadRows are the rows of workload w.
func workloadRows(w string, of func(func(sample) (float64, bool)) func(int, int) (float64, bool)) []row {
	rows := []row{
		{w + " CPU µs/op", of(func(s sample) (float64, bool) { return cpuPerOp(s.runs[w]) })},
		{w + " ops/s", of(func(s sample) (float64, bool) {
			m, ok := s.runs[w]
			return perSecond(m.summary.ops, m.summary.elapsed), ok
		})},
		{w + " RSS MiB after", of(func(s sample) (float64, bool) {
			m, ok := s.runs[w]
			return mib(m.serverRSS), ok && m.serverRSS >= 0
		})},
	}
	if w == "setup" {
		rows = append(rows, row{"setup RSS growth B/item", of(func(s sample) (float64, bool) {
			m, ok := s.runs[w]
			if !ok || m.serverRSS < 0 || s.idleRSS < 0 || m.summary.items == 0 {
				return 0, false
			}
			return float64(m.serverRSS-s.idleRSS) / float64(m.summary.items), true
		})})
	}
	return rows
}

func cpuPerOp(m measurement) (float64, bool) {
	return micros(m.serverCPU, m.summary.ops), m.serverCPU >= 0 && m.summary.ops > 0
}

// writeComparison writes the comparison table: per metric and server the
// median and [min–max] over the rounds, then for each further server the
// median and range of its per-round ratio to the first server (both measured
// in the same round, so a load spike on the shared machine moves both).
func writeComparison(w io.Writer, cfg config, specs []serverSpec, samples [][]sample) {
	fmt.Fprintf(w, "\n== comparison: %d rounds, c=%d, d=%s, items=%d; median [min–max] over rounds; ratios paired by round\n",
		cfg.rounds, cfg.concurrency, cfg.duration, cfg.items)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"metric"}
	for _, s := range specs {
		header = append(header, s.name)
	}
	ratioCols := ratioColumns(specs)
	for _, i := range ratioCols {
		header = append(header, specs[i].name+"/"+specs[0].name)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, rw := range comparisonRows(cfg, specs, samples) {
		cells := []string{rw.label}
		any := false
		for i := range specs {
			vals := collect(cfg.rounds, func(r int) (float64, bool) { return rw.value(i, r) })
			cells = append(cells, spreadCell(vals))
			any = any || len(vals) > 0
		}
		if !any {
			continue
		}
		for _, i := range ratioCols {
			vals := collect(cfg.rounds, func(r int) (float64, bool) {
				a, okA := rw.value(i, r)
				b, okB := rw.value(0, r)
				return a / b, okA && okB && b != 0
			})
			cells = append(cells, spreadCell(vals))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// ratioColumns lists the servers compared with the first: all but the first
// and the ceiling.
func ratioColumns(specs []serverSpec) []int {
	var cols []int
	for i := 1; i < len(specs); i++ {
		if !specs[i].ceiling {
			cols = append(cols, i)
		}
	}
	return cols
}

// collect returns the values f gives for rounds 0..n-1, skipping those it
// has none for.
func collect(n int, f func(round int) (float64, bool)) []float64 {
	var vals []float64
	for r := range n {
		if v, ok := f(r); ok {
			vals = append(vals, v)
		}
	}
	return vals
}

// spread returns the median (the mean of the middle two for an even count),
// the minimum and the maximum of vals, which must not be empty.
func spread(vals []float64) (median, lo, hi float64) {
	s := slices.Clone(vals)
	slices.Sort(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[0], s[n-1]
}

// spreadCell formats vals as "median [min–max]", or "-" when empty.
func spreadCell(vals []float64) string {
	if len(vals) == 0 {
		return "-"
	}
	med, lo, hi := spread(vals)
	if len(vals) == 1 {
		return num(med)
	}
	return fmt.Sprintf("%s [%s–%s]", num(med), num(lo), num(hi))
}

// num prints v with about three significant digits, never in e-notation.
func num(v float64) string {
	switch a := max(v, -v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
