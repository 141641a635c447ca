package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseInitLine(t *testing.T) {
	tests := []struct {
		line string
		want initLine
		ok   bool
	}{
		{"init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs", initLine{"internal/bytealg", 0.008, 0, 0, 0}, true},
		{"init github.com/cockroachdb/apd/v3 @12.5 ms, 3.1 ms clock, 565312 bytes, 1290 allocs",
			initLine{"github.com/cockroachdb/apd/v3", 12.5, 3.1, 565312, 1290}, true},
		{"init failed: no such table", initLine{}, false},
		{"time=2026-12-06 level=INFO msg=\"ddblocal listening\"", initLine{}, false},
		{"init x @1 ms, 2 ms clock, 3 bytes", initLine{}, false},
	}
	for _, tt := range tests {
		got, ok := parseInitLine(tt.line)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseInitLine(%q) = %+v, %v, want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// TestStartLog feeds a server's stderr in pieces that split lines: the
// inittrace lines add up, ddblocal's startup field is read, other lines
// are ignored, and the tail keeps everything for error messages.
func TestStartLog(t *testing.T) {
	text := "init runtime @0.01 ms, 0.02 ms clock, 100 bytes, 1 allocs\n" +
		"init github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas @5.5 ms, 3.25 ms clock, 587000 bytes, 900 allocs\n" +
		"some other line\n" +
		"init go.etcd.io/etcd/client/v3 @9 ms, 1.5 ms clock, 2000 bytes, 10 allocs\n" +
		`time=2026-12-06T03:30:00.000Z level=INFO msg="ddblocal listening" addr=127.0.0.1:8000 store=in-memory tls=false startup=2.345ms` + "\n" +
		"init late @1 ms, unfinished"
	for _, chunk := range []int{1, 7, 64, len(text)} {
		var l startLog
		if _, ok := l.summary(); ok {
			t.Fatal("summary of an empty log reports lines")
		}
		for i := 0; i < len(text); i += chunk {
			_, _ = l.Write([]byte(text[i:min(i+chunk, len(text))]))
		}
		s, ok := l.summary()
		want := initSummary{packages: 3, clock: 0.02 + 3.25 + 1.5, bytes: 100 + 587000 + 2000, mainAt: 10.5}
		if !ok || s.packages != want.packages || s.bytes != want.bytes ||
			!near(s.clock, want.clock) || !near(s.mainAt, want.mainAt) {
			t.Errorf("chunk %d: summary = %+v, %v, want %+v", chunk, s, ok, want)
		}
		if d, ok := l.startupField(); !ok || d != 2345*time.Microsecond {
			t.Errorf("chunk %d: startup = %v, %v, want 2.345ms", chunk, d, ok)
		}
		if got := l.initsByPackage()["go.etcd.io/etcd/client/v3"]; got != 1.5 {
			t.Errorf("chunk %d: etcd client's init = %v, want 1.5", chunk, got)
		}
		if !strings.HasSuffix(l.tail.tail(), "unfinished") {
			t.Errorf("chunk %d: tail %q lacks the last bytes", chunk, l.tail.tail())
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestInitGroup(t *testing.T) {
	tests := map[string]string{
		"runtime":    "std",
		"net/http":   "std",
		"crypto/tls": "std",
		"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas": "github.com/aws/aws-sdk-go-v2",
		"github.com/cockroachdb/apd/v3":                         "github.com/cockroachdb/apd",
		"go.etcd.io/etcd/client/v3":                             "go.etcd.io/etcd",
		"google.golang.org/grpc/internal/transport":             "google.golang.org/grpc",
		"golang.org/x/net/http2":                                "golang.org/x/net",
		"go.uber.org/zap":                                       "go.uber.org/zap",
		"example.com":                                           "example.com",
	}
	for pkg, want := range tests {
		if got := initGroup(pkg); got != want {
			t.Errorf("initGroup(%q) = %q, want %q", pkg, got, want)
		}
	}
}

func TestStartsConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{name: "one server", args: []string{"-starts", "3", "-server", "a=x"}},
		{name: "two servers with inittrace", args: []string{"-starts", "3", "-inittrace", "-server", "a=x", "-server", "b=y"}},
		{name: "no server", args: []string{"-starts", "3"}, wantErr: true},
		{name: "a workload", args: []string{"-starts", "3", "-server", "a=x", "get"}, wantErr: true},
		{name: "ceiling", args: []string{"-starts", "3", "-server", "a=x", "-ceiling"}, wantErr: true},
		{name: "negative", args: []string{"-starts", "-1", "-server", "a=x"}, wantErr: true},
		{name: "inittrace alone", args: []string{"-inittrace", "-server", "a=x", "-server", "b=y", "get"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseConfig(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

// TestStartsEndToEnd builds the trivial server and measures its starts
// beside this test binary serving the ceiling handler, with inittrace: each
// start's line shows the port listening no later than the first answer, CPU
// time and page faults from wait4 and both binaries' inits, and the table
// and the init groups are written.
func TestStartsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the trivial server; skipped in -short mode")
	}
	t.Setenv(serveCeilingEnv, "1") // this binary, started, serves the ceiling handler
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	trivial := filepath.Join(t.TempDir(), "trivial")
	build := exec.Command("go", "build", "-o", trivial, "./testdata/trivial")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out, errOut bytes.Buffer
	args := []string{"-starts", "2", "-inittrace", "-server", "trivial=" + trivial, "-server", "self=" + self + " 127.0.0.1:{port}"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, args, &out, &errOut); err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, errOut.String())
	}
	text := out.String()
	line := regexp.MustCompile(`(?m)^round \d (\w+) +listen ([\d.]+)ms answer ([\d.]+)ms cpu [\d.]+ms \(user [\d.]+ sys [\d.]+\) faults [1-9]\d* rss [\d.]+MiB \| inits [1-9]\d* [\d.]+ms main at [\d.]+ms$`)
	lines := line.FindAllStringSubmatch(text, -1)
	seen := map[string]int{}
	for _, m := range lines {
		seen[m[1]]++
		listen, _ := strconv.ParseFloat(m[2], 64)
		answer, _ := strconv.ParseFloat(m[3], 64)
		if listen <= 0 || listen > answer {
			t.Errorf("listening at %v ms and answering at %v ms: %s", listen, answer, m[0])
		}
	}
	if seen["trivial"] != 2 || seen["self"] != 2 {
		t.Errorf("round lines per server %v, want 2 each:\n%s", seen, text)
	}
	for _, want := range []string{
		"\nmetric ", "self/trivial", "\nexec to listening ms ", "\nexec to first answer ms ", "\nCPU ms (user+sys) ",
		"\nminor faults ", "\nRSS at first answer MiB ", "\ninits' clock, summed ms ", "\nruntime start to main ms ",
		"\n== trivial: init clock by group", "\n== self: init clock by group", "\n  std ", "the 12 largest packages",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
