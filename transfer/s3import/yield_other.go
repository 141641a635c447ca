//go:build !linux

package s3import

// osYield does nothing where sched_yield(2) is not called: the Go
// scheduler's yield (Pause) alone.
func osYield() {}
