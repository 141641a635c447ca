//go:build linux

package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair with Linux's three ioctls on
// /dev/ptmx (unlock, number, open /dev/pts/N), through golang.org/x/sys,
// which the module already requires: no pty library is needed for this.
// A machine without pseudo-terminals fails the test; it does not skip it.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("numbering the pseudo-terminal: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal's other end: %v", err)
	}
	return m, s
}

// runOnTerminal runs the binary with args and its stderr on a
// pseudo-terminal, and returns what the terminal showed (its line
// discipline's "\r\n" read back as "\n").
func runOnTerminal(t *testing.T, args ...string) string {
	t.Helper()
	m, s := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*exitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binaryPath(t), args...)
	cmd.Env = testEnv(t, "AWS_ACCESS_KEY_ID="+testKey, "AWS_SECRET_ACCESS_KEY="+testSecret, "AWS_REGION=us-east-1")
	cmd.Stderr = s
	var shown bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&shown, m); close(done) }() // ends with EIO once no one holds s
	err := cmd.Run()
	s.Close()
	select {
	case <-done:
	case <-time.After(exitTimeout):
		t.Fatalf("the terminal was not released")
	}
	if err != nil {
		t.Fatalf("ddblocal %s: %v\n%q", strings.Join(args, " "), err, shown.String())
	}
	return strings.ReplaceAll(shown.String(), "\r\n", "\n")
}

// TestBinaryProgressBar: `ddblocal export` and `ddblocal import` draw a
// progress bar when stderr is a terminal (drawn in place after a carriage
// return: percent, bar, count of the known total, rate, elapsed and left;
// cleared at the end), then leave one summary line; on a pipe they write
// plain log lines and no bar.
func TestBinaryProgressBar(t *testing.T) {
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	c := p.client()
	const n = 300
	createTable(t, c, "Things", true)
	createTable(t, c, "Copy", true)
	for i := range n {
		if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("Things"), Item: roundTripItem(i)}); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "things.jsonl")
	for _, verb := range []string{"exported", "imported"} {
		args := []string{"export", "--endpoint", p.URL, "--table", "Things", "--out", file}
		if verb == "imported" {
			args = []string{"import", "--endpoint", p.URL, "--table", "Copy", file}
		}
		shown := runOnTerminal(t, args...)
		summary := regexp.MustCompile(fmt.Sprintf(`\rddblocal: %s %d items in [0-9.]+[mµ]?s\n$`, verb, n)) // after the cleared bar
		bar := regexp.MustCompile(fmt.Sprintf(`\r%s +\d+%% \|[^\n|]*\| \(\d+/%d, [0-9.]+ items/(s|min|hr)\) \[\w+:\w+\]\r +\r`, verb, n))
		if !summary.MatchString(shown) || !bar.MatchString(shown) || strings.Contains(shown, "items/s)\n") {
			t.Errorf("%s on a terminal: want a bar and one summary line, got %q", verb, shown)
		}
		code, _, stderr := runCommand(t, nil, args...)
		logLine := regexp.MustCompile(fmt.Sprintf(`(?m)^ddblocal: %s %d(/%d)? items \([0-9]+ items/s\)$`, verb, n, n))
		if code != 0 || !logLine.MatchString(stderr) || strings.Contains(stderr, "\r") || strings.Contains(stderr, " items in ") {
			t.Errorf("%s on a pipe: want log lines and no bar, got exit %d, %q", verb, code, stderr)
		}
	}
}
