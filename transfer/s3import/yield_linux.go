package s3import

import "syscall"

// osYield gives the thread's core to another thread waiting for it, if
// any (sched_yield(2)); it returns at once when none is.
func osYield() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
