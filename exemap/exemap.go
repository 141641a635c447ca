// Package exemap gives back the pages of the executable that only start-up
// used.
//
// Go initialises every package of a binary at start, and a page fault on a
// file mapping maps the cached pages around the one touched too (Linux's
// fault-around, 64 KiB). For a 28 MB binary whose start runs the init code
// and reads the tables of some 230 packages (the etcd client's protobuf
// descriptors, the AWS SDK's schemas among them), that left about 19 MiB of
// the binary resident in an idle server, little of it used again. Trim
// drops the read-only mappings' pages (text and read-only data: never
// written, so nothing is lost): those a request needs come back from the
// page cache on first use. Anonymous memory (heap, stacks) is not touched.
package exemap

import "time"

// Trim drops the executable's read-only pages mapped so far. The command
// calls it each time an IdleTrimmer finds it idle after start-up or after
// work. Errors are ignored: it only saves memory, and is a no-op off Linux.
func Trim() { dropReadOnly() }

// Usage returns the process's minor page faults and CPU time so far, what
// IdleTrimmer takes; ok is false where they are not known (off Linux).
func Usage() (faults int64, cpu time.Duration, ok bool) { return usage() }
