package exemap

import (
	"testing"
	"time"
)

// TestIdleTrimmer: a trim comes once per idle period that follows work,
// never twice in a row; the faults of the period after a trim (the check's
// own code coming back) do not count as work; a period that uses CPU is
// never idle, however few pages it faults in.
func TestIdleTrimmer(t *testing.T) {
	const ms = time.Millisecond
	type check struct {
		faults int64         // cumulative minor faults
		cpu    time.Duration // cumulative CPU time
		trim   bool          // whether this check trims
	}
	tests := []struct {
		name   string
		checks []check
	}{
		{"start-up counts as work, then idle", []check{{2000, 30 * ms, false}, {2003, 31 * ms, true}, {2004, 31 * ms, false}}},
		{"never busy after the first trim", []check{{2000, 30 * ms, false}, {2000, 30 * ms, true}, {2000, 30 * ms, false}, {2001, 30 * ms, false}, {2001, 30 * ms, false}}},
		{"the period after a trim is not work", []check{{2000, 30 * ms, false}, {2000, 30 * ms, true}, {2050, 32 * ms, false}, {2050, 32 * ms, false}, {2050, 32 * ms, false}}},
		{"a request after the trim, then idle", []check{{2000, 30 * ms, false}, {2000, 30 * ms, true}, {2000, 30 * ms, false}, {2100, 33 * ms, false}, {2100, 33 * ms, true}, {2100, 33 * ms, false}}},
		{"busy for several periods, trim once idle", []check{{100, 0, false}, {200, 0, false}, {300, 0, false}, {400, 0, false}, {400, 0, true}, {400, 0, false}}},
		{"under load without faults: no trim until the CPU rests", []check{{2000, 30 * ms, false}, {2001, 500 * ms, false}, {2002, 990 * ms, false}, {2003, 1490 * ms, false}, {2003, 1491 * ms, true}}},
		{"faults below the threshold are idle", []check{{0, 0, false}, {idleFaults - 1, 0, false}, {2 * (idleFaults - 1), 0, false}}},
		{"faults at the threshold are work", []check{{0, 0, false}, {idleFaults, 0, false}, {idleFaults, 0, true}}},
		{"CPU at the threshold is not idle", []check{{0, 0, false}, {idleFaults, 0, false}, {idleFaults, idleCPU, false}, {idleFaults, idleCPU + idleCPU - 1, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tr IdleTrimmer
			for i, c := range tc.checks {
				if got := tr.Check(c.faults, c.cpu); got != c.trim {
					t.Fatalf("check %d (faults %d, cpu %v): trim %v, want %v", i, c.faults, c.cpu, got, c.trim)
				}
			}
		})
	}
}

// TestUsage: the counts are known on Linux and never go down.
func TestUsage(t *testing.T) {
	f1, c1, ok := Usage()
	if !ok {
		t.Skip("page faults and CPU time are not known on this system")
	}
	f2, c2, _ := Usage()
	if f1 <= 0 || f2 < f1 || c1 <= 0 || c2 < c1 {
		t.Errorf("faults %d then %d, CPU %v then %v; want positive, non-decreasing counts", f1, f2, c1, c2)
	}
}
