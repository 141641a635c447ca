package main

import (
	"slices"
	"time"
)

// recorder collects one worker's observations; it is not shared between
// goroutines, so recording needs no locking on the hot path.
type recorder struct {
	latencies []time.Duration // successful operations only
	items     int64
	errors    int64
	firstErr  error
}

func (r *recorder) success(d time.Duration, items int) {
	r.latencies = append(r.latencies, d)
	r.items += int64(items)
}

func (r *recorder) failure(err error) {
	r.errors++
	if r.firstErr == nil {
		r.firstErr = err
	}
}

// summary is the merged outcome of one workload run.
type summary struct {
	ops      int64 // successful operations
	errors   int64
	items    int64
	elapsed  time.Duration
	firstErr error
	sorted   []time.Duration // ascending latencies of successful operations
	byWorker []int64         // successful operations of each worker, in order
}

// merge combines the workers' recorders into one summary.
func merge(recs []*recorder, elapsed time.Duration) summary {
	s := summary{elapsed: elapsed}
	n := 0
	for _, r := range recs {
		n += len(r.latencies)
	}
	s.sorted = make([]time.Duration, 0, n)
	for _, r := range recs {
		s.byWorker = append(s.byWorker, int64(len(r.latencies)))
		s.sorted = append(s.sorted, r.latencies...)
		s.items += r.items
		s.errors += r.errors
		if s.firstErr == nil {
			s.firstErr = r.firstErr
		}
	}
	slices.Sort(s.sorted)
	s.ops = int64(len(s.sorted))
	return s
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of an
// ascending slice: the smallest value with at least p % of values at or
// below it. It returns 0 for an empty slice.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// Integer arithmetic on p*1000 avoids float rounding putting p99 of 100
	// values at rank 100 instead of 99.
	rank := (int64(p*1000+0.5)*int64(len(sorted)) + 100_000 - 1) / 100_000
	rank = max(1, min(rank, int64(len(sorted))))
	return sorted[rank-1]
}

// perSecond returns n per second of elapsed, or 0 when nothing elapsed.
func perSecond(n int64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(n) / elapsed.Seconds()
}
