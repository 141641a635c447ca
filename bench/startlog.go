package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"time"
)

// startLog takes a started server's stderr: it keeps the end of it for
// error messages (tailBuffer) and reads, line by line, what the server says
// about its own start:
//
//   - the Go runtime's GODEBUG=inittrace=1 lines ("init PKG @T ms, C ms
//     clock, B bytes, A allocs"), one per package whose initialisation did
//     any work, in the order they ran;
//   - ddblocal's "ddblocal listening" log line, whose startup field is the
//     time from the start of its main function to listening.
//
// Safe for one writer (exec's copying goroutine) and readers at any time.
type startLog struct {
	tail tailBuffer

	mu      sync.Mutex
	partial []byte // an unfinished line
	inits   []initLine
	startup time.Duration // ddblocal's startup field; 0 if not seen
}

// initLine is one line of GODEBUG=inittrace=1.
type initLine struct {
	pkg    string
	at     float64 // ms since the runtime started, when this init began
	clock  float64 // ms this init took
	bytes  int64   // heap allocated by it
	allocs int64
}

func (l *startLog) Write(p []byte) (int, error) {
	_, _ = l.tail.Write(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.parseLine(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	// Keep the buffer from growing without bound on a server that writes
	// one very long line.
	if len(l.partial) > tailBytes {
		l.partial = l.partial[:0]
	}
	return len(p), nil
}

// parseLine records line if it is an inittrace line or ddblocal's listening
// line; any other line is ignored.
func (l *startLog) parseLine(line string) {
	if in, ok := parseInitLine(line); ok {
		l.inits = append(l.inits, in)
		return
	}
	if !strings.Contains(line, "ddblocal listening") {
		return
	}
	_, rest, ok := strings.Cut(line, " startup=")
	if !ok {
		return
	}
	field, _, _ := strings.Cut(rest, " ")
	if d, err := time.ParseDuration(field); err == nil {
		l.startup = d
	}
}

// parseInitLine reads one line of GODEBUG=inittrace=1, which the runtime
// writes as "init PKG @T ms, C ms clock, B bytes, A allocs".
func parseInitLine(line string) (initLine, bool) {
	var in initLine
	if !strings.HasPrefix(line, "init ") {
		return in, false
	}
	n, err := fmt.Sscanf(line, "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &in.pkg, &in.at, &in.clock, &in.bytes, &in.allocs)
	return in, err == nil && n == 5
}

// initSummary is what a server's inittrace lines add up to.
type initSummary struct {
	packages int     // packages whose initialisation did work
	clock    float64 // ms, summed over them
	bytes    int64   // allocated, summed
	mainAt   float64 // ms from the runtime's start to the end of the last init: when main began
}

// summary adds up the inittrace lines seen; ok is false when there were none.
func (l *startLog) summary() (s initSummary, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, in := range l.inits {
		s.packages++
		s.clock += in.clock
		s.bytes += in.bytes
		s.mainAt = max(s.mainAt, in.at+in.clock)
	}
	return s, len(l.inits) > 0
}

// initsByPackage returns each package's init clock (ms), for the per-package
// table of the start mode.
func (l *startLog) initsByPackage() map[string]float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := make(map[string]float64, len(l.inits))
	for _, in := range l.inits {
		m[in.pkg] += in.clock
	}
	return m
}

// startupField returns ddblocal's startup field (main to listening), false
// if the server wrote none.
func (l *startLog) startupField() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.startup, l.startup > 0
}
