package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicksPerSecond is USER_HZ, the unit of utime and stime in
// /proc/PID/stat (what `getconf CLK_TCK` prints). Linux fixes it at 100 for
// user space on every architecture, independent of the kernel's CONFIG_HZ, so
// it is a constant here rather than a sysconf call (which would need cgo).
const clockTicksPerSecond = 100

// procCPU returns the CPU time (user + system) consumed so far by process pid,
// read from /proc/PID/stat. pid "self" is allowed.
func procCPU(pid string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU extracts utime+stime from a /proc/PID/stat line. The command
// name (field 2) is parenthesised and may itself contain spaces or ')', so
// fields are counted from the last ')'.
func parseStatCPU(line string) (time.Duration, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0, errors.New("procstat: no ')' in stat line")
	}
	// rest[0] is field 3 (state); utime is field 14, stime field 15.
	rest := strings.Fields(line[end+1:])
	if len(rest) < 13 {
		return 0, fmt.Errorf("procstat: stat line has %d fields after comm, want at least 13", len(rest))
	}
	utime, err := strconv.ParseUint(rest[11], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("procstat: utime: %w", err)
	}
	stime, err := strconv.ParseUint(rest[12], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("procstat: stime: %w", err)
	}
	return ticksToDuration(utime + stime), nil
}

func ticksToDuration(ticks uint64) time.Duration {
	return time.Duration(ticks) * (time.Second / clockTicksPerSecond)
}

// procRSS returns the resident set size in bytes of process pid, from the
// VmRSS line of /proc/PID/status.
func procRSS(pid string) (int64, error) {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseStatusRSS(bufio.NewScanner(f))
}

// parseStatusRSS finds "VmRSS:   12345 kB" among the lines of a
// /proc/PID/status file and returns it in bytes.
func parseStatusRSS(sc *bufio.Scanner) (int64, error) {
	for sc.Scan() {
		value, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("procstat: unexpected VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procstat: VmRSS: %w", err)
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("procstat: no VmRSS line (kernel thread or exited process?)")
}
