package main

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/ddblocal/ddblocal/exemap"
)

// The garbage collector's headroom (GOGC, 100 % of the live heap by
// default) is capped at gcHeadroom bytes once the live heap is large: items
// live in pointer-free arenas and B-tree nodes (package store), which a
// collection neither scans nor marks entry by entry, so a large table costs
// the collector little per cycle, while doubling its memory for headroom
// costs a lot (500,000 items of 200 B: 620 bytes of RSS per item at GOGC
// 100). Small heaps keep Go's default, so the request path of a small table
// collects no more often than before. The floor of 7 % bounds how often a
// very large heap collects; below 340 MiB of live heap the headroom is the
// 24 MiB cap. An import of 1,000,000 items with a global index (live heap
// +320 MiB: the table and the index) so stays within issue 26's 64 MiB of
// working memory: 48-51 MiB, against 57-63 with a 32 MiB cap and a 10 %
// floor, in as much CPU (twelfth session; 16 MiB and 5 % gave 40-44 MiB
// with a quarter more collections). At its peak the heap is at its goal
// (live + headroom), beside the fill's transient data and the spans'
// fragmentation. A memory limit following the live heap
// (debug.SetMemoryLimit) was tried and gained nothing: the free spans the
// runtime kept were the heap's own headroom, reused each cycle, not the
// scavenger's margin.
const (
	gcHeadroom    = 24 << 20
	gcMinPercent  = 7
	gcMaxPercent  = 100
	gcCheckPeriod = 250 * time.Millisecond
)

// gcPercentFor returns the GOGC that gives a live heap of live bytes at
// most gcHeadroom of headroom, within [gcMinPercent, gcMaxPercent].
func gcPercentFor(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(min(gcMaxPercent, max(gcMinPercent, gcHeadroom*100/live)))
}

// capGCHeadroom sets GOGC from the live heap every gcCheckPeriod until ctx
// ends (then it returns). It does nothing when the environment sets GOGC:
// the user's choice wins.
func capGCHeadroom(ctx context.Context) {
	if os.Getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(gcCheckPeriod)
	defer t.Stop()
	last := gcMaxPercent
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if p := gcPercentFor(sample[0].Value.Uint64()); p != last {
			debug.SetGCPercent(p)
			last = p
		}
	}
}

// idleTrimPeriod is how often trimWhenIdle looks at the page faults: the
// first trim comes two periods after start (start-up is work, then a quiet
// period), or two after a first request that follows it at once, before
// a reading of idle RSS one second in.
const idleTrimPeriod = 250 * time.Millisecond

// trimWhenIdle gives the executable's pages back each time the server
// falls idle after start-up or after serving (exemap.IdleTrimmer), until
// ctx ends.
func trimWhenIdle(ctx context.Context) {
	var trimmer exemap.IdleTrimmer
	if _, _, ok := exemap.Usage(); !ok {
		return
	}
	t := time.NewTicker(idleTrimPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, cpu, _ := exemap.Usage(); trimmer.Check(n, cpu) {
			exemap.Trim()
		}
	}
}
