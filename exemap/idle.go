package exemap

import "time"

// IdleTrimmer decides when to Trim again while serving: once the process
// has faulted pages back in (a request ran code that Trim had dropped) and
// then stayed idle, by its page faults and by its CPU time, for a whole
// period of checks. A server under load never counts as idle, however few
// pages it faults in. A server sits idle most of its life in development
// and CI, and its first request alone maps about 5 MiB of the binary back
// (each fault maps the 64 KiB around it); giving them back once it is idle
// again costs the next request refaults from the page cache, not disk
// reads.
type IdleTrimmer struct {
	last    int64         // minor faults at the previous check
	lastCPU time.Duration // CPU time at the previous check
	busy    bool          // pages faulted in since the last trim
	trimmed bool          // the previous check trimmed
}

// idleFaults is the number of minor faults in one period below which the
// process counts as idle: a few from the runtime's own background work
// (heap growth, timers) do not make it busy.
const idleFaults = 8

// idleCPU is the CPU time in one period below which the process counts as
// idle: 2 % of a core over the command's period of 250 ms (an idle server
// uses well under that on its background tickers).
const idleCPU = 5 * time.Millisecond

// Check takes the process's minor fault count and CPU time now and reports
// whether to Trim now: an earlier period faulted pages in and this one was
// idle (fewer than idleFaults faults and less than idleCPU of CPU). The
// period after a trim does not count as busy: waking up to check faults in
// the code of the check itself, which would otherwise trim every other
// period for good.
func (t *IdleTrimmer) Check(faults int64, cpu time.Duration) bool {
	d, dcpu := faults-t.last, cpu-t.lastCPU
	t.last, t.lastCPU = faults, cpu
	if t.trimmed {
		t.trimmed = false
		return false
	}
	if d >= idleFaults {
		t.busy = true
	}
	if d >= idleFaults || dcpu >= idleCPU {
		return false
	}
	if t.busy {
		t.busy, t.trimmed = false, true
		return true
	}
	return false
}
