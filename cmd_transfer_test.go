package main

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go/logging"
)

// syncBuffer is a bytes.Buffer that the bar's own goroutine may write
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressLogf: an SDK log line given to a progress lands on a line of
// its own: on a terminal the bar is cleared first (carriage return, blanks,
// carriage return) and drawn again after it; on a pipe it is one more line.
func TestProgressLogf(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(*syncBuffer) progress
		want *regexp.Regexp
	}{
		{"bar", func(b *syncBuffer) progress { return newBarProgress(b, "exported") },
			regexp.MustCompile(`^\rexported +\d+% \|[^\n]*\r +\rddblocal: SDK WARN failed to discard: use of closed network connection\n[\r ]*\rexported +\d+% \|[^\n]*$`)},
		{"log", func(b *syncBuffer) progress {
			return &logProgress{w: b, verb: "exported", start: time.Now(), last: time.Now(), every: time.Hour}
		}, regexp.MustCompile(`^ddblocal: SDK WARN failed to discard: use of closed network connection\n$`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b syncBuffer
			p := c.make(&b)
			p.SetTotal(100)
			p.Add(10)
			p.Logf(logging.Warn, "failed to discard: %v\n", "use of closed network connection")
			time.Sleep(150 * time.Millisecond) // past the bar's redraw throttle
			p.Add(10)
			if got := b.String(); !c.want.MatchString(got) {
				t.Errorf("got %q, want it to match %s", got, c.want)
			}
		})
	}
}

// TestClientLogsThroughProgress: the subcommands' SDK client logs through
// the logger the command sets (its progress), else the SDK's default.
func TestClientLogsThroughProgress(t *testing.T) {
	p := newBarProgress(&strings.Builder{}, "imported")
	for _, logger := range []logging.Logger{p, nil} {
		e := &endpointFlags{endpoint: "http://127.0.0.1:8000", region: "us-east-1", logger: logger}
		c, err := e.client(t.Context(), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Options().Logger; (logger != nil && got != logger) || got == nil {
			t.Errorf("logger %T: the client logs to %T", logger, got)
		}
	}
}
