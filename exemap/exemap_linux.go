package exemap

import (
	"os"
	"syscall"
	"time"
)

// mapsBufSize bounds the /proc/self/maps text read: a Go server has a few
// dozen mappings of about 80 bytes a line, and the executable's come first.
const mapsBufSize = 64 << 10

// dropReadOnly applies MADV_DONTNEED to the executable's private read-only
// mappings (text and rodata).
func dropReadOnly() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	buf := make([]byte, mapsBufSize)
	n := readMaps(buf)
	for _, m := range readOnlyMappings(buf[:n], exe) {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED)
	}
}

// readMaps reads /proc/self/maps into buf and returns the bytes read (0 on
// any error).
func readMaps(buf []byte) int {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err != nil {
			return 0
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n
}

// usage returns the process's minor page faults and CPU time so far.
func usage() (int64, time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return ru.Minflt, cpu, true
}
