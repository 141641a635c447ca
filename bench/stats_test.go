package main

import (
	"testing"
	"time"
)

func durations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single p50", durations(7), 50, 7 * time.Millisecond},
		{"single p99", durations(7), 99, 7 * time.Millisecond},
		{"1..100 p50", hundred, 50, 50 * time.Millisecond},
		{"1..100 p95", hundred, 95, 95 * time.Millisecond},
		{"1..100 p99", hundred, 99, 99 * time.Millisecond},
		{"1..100 p99.9", hundred, 99.9, 100 * time.Millisecond},
		{"1..100 max", hundred, 100, 100 * time.Millisecond},
		{"four p50 is 2nd", durations(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"four p51 is 3rd", durations(1, 2, 3, 4), 51, 3 * time.Millisecond},
		{"four p1 is 1st", durations(1, 2, 3, 4), 1, 1 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	a := &recorder{}
	a.success(3*time.Millisecond, 1)
	a.success(1*time.Millisecond, 2)
	b := &recorder{}
	b.failure(errTest("boom"))
	b.success(2*time.Millisecond, 25)
	b.failure(errTest("second"))

	s := merge([]*recorder{a, b}, 2*time.Second)
	if got, want := s.ops, int64(3); got != want {
		t.Errorf("ops = %d, want %d", got, want)
	}
	if got, want := s.errors, int64(2); got != want {
		t.Errorf("errors = %d, want %d", got, want)
	}
	if got, want := s.items, int64(28); got != want {
		t.Errorf("items = %d, want %d", got, want)
	}
	if got, want := s.firstErr, error(errTest("boom")); got != want {
		t.Errorf("firstErr = %v, want %v", got, want)
	}
	want := durations(1, 2, 3)
	for i := range want {
		if s.sorted[i] != want[i] {
			t.Fatalf("sorted = %v, want %v", s.sorted, want)
		}
	}
	if got, want := perSecond(s.ops, s.elapsed), 1.5; got != want {
		t.Errorf("perSecond = %v, want %v", got, want)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
