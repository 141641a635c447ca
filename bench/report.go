package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// measurement is one workload's summary plus the CPU and memory figures
// taken around it; a negative duration or size means "not measured".
type measurement struct {
	name      string
	endpoint  string
	c         int
	summary   summary
	serverCPU time.Duration
	serverRSS int64
	clientCPU time.Duration
	etcdCPU   time.Duration // cluster mode: the etcd member's
	procErr   error         // why server figures are missing although -pid was given
}

// report writes one plain-text block for m.
func report(w io.Writer, m measurement) {
	s := m.summary
	fmt.Fprintf(w, "== %s  endpoint=%s c=%d elapsed=%s\n", m.name, m.endpoint, m.c, s.elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "ops %d  ops/s %.1f  errors %d\n", s.ops, perSecond(s.ops, s.elapsed), s.errors)
	if n := strings.Count(m.endpoint, ",") + 1; n > 1 {
		fmt.Fprintf(w, "ops/s per endpoint")
		for _, ops := range perEndpoint(s.byWorker, n) {
			fmt.Fprintf(w, " %.1f", perSecond(ops, s.elapsed))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "latency p50 %s  p95 %s  p99 %s  max %s\n",
		ms(percentile(s.sorted, 50)), ms(percentile(s.sorted, 95)), ms(percentile(s.sorted, 99)), ms(percentile(s.sorted, 100)))
	fmt.Fprintf(w, "items %d  items/s %.1f  (%s)\n", s.items, perSecond(s.items, s.elapsed), itemsNote(m.name))
	if m.serverCPU >= 0 {
		fmt.Fprintf(w, "server CPU µs/op %.1f  µs/item %.2f\n", micros(m.serverCPU, s.ops), micros(m.serverCPU, s.items))
	}
	if m.etcdCPU >= 0 {
		fmt.Fprintf(w, "etcd CPU µs/op %.1f\n", micros(m.etcdCPU, s.ops))
	}
	if m.serverRSS >= 0 {
		fmt.Fprintf(w, "server RSS %.1f MiB\n", float64(m.serverRSS)/(1<<20))
	}
	if m.procErr != nil {
		fmt.Fprintf(w, "server figures unavailable: %v\n", m.procErr)
	}
	if m.clientCPU >= 0 {
		fmt.Fprintf(w, "client CPU µs/op %.1f\n", micros(m.clientCPU, s.ops))
	}
	if s.firstErr != nil {
		fmt.Fprintf(w, "first error: %v\n", s.firstErr)
	}
	fmt.Fprintln(w)
}

// perEndpoint sums the operations of workers by endpoint: worker i sends
// to endpoint i mod n.
func perEndpoint(byWorker []int64, n int) []int64 {
	out := make([]int64, n)
	for i, ops := range byWorker {
		out[i%n] += ops
	}
	return out
}

// ms formats d in milliseconds with microsecond precision.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}

// micros is cpu in microseconds divided by n, or 0 when n is 0.
func micros(cpu time.Duration, n int64) float64 {
	if n == 0 {
		return 0
	}
	return float64(cpu) / float64(time.Microsecond) / float64(n)
}

// itemsNote says what the items line counts for workload name.
func itemsNote(name string) string {
	switch name {
	case "setup":
		return "items loaded"
	case "put":
		return "items written"
	case "get":
		return "items found"
	case "query":
		return "items returned (Count)"
	case "scan":
		return "items read (ScannedCount)"
	case "batchwrite":
		return "items processed"
	case "mixed":
		return "items found, written or returned"
	case "ceiling":
		return "always 0: the handler returns no item"
	case "etcd":
		return "etcd transactions committed"
	}
	return ""
}
