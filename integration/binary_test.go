package integration

// This file runs the shipped binary as a separate process: it is built once
// per test run, exactly as the Dockerfile builds it, and started, signalled
// and killed like users and container runtimes do.

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Process-test time limits: generous for a loaded 2-core CI machine, but
// bounded so a hung server fails the test instead of the whole run.
const (
	listenTimeout = 15 * time.Second
	exitTimeout   = 10 * time.Second
)

// ddblocalBinary builds the server once per test run and returns its path.
// It is lazy so that running only the in-process tests never pays for a build.
var ddblocalBinary = func() (string, error) {
	b, err := shippedBuild()
	return b.path, err
}

// shippedBuild is that build, with what its link reported
// (TestMethodPruning).
var shippedBuild = sync.OnceValues(buildBinary)

// TestMain starts the child passes the run selects beside its own tests
// (passes_test.go), and removes the binary built by ddblocalBinary after
// the run.
func TestMain(m *testing.M) {
	flag.Parse()
	startPassesEarly()
	code := m.Run()
	stopPasses()
	_ = os.RemoveAll(binaryDir())
	os.Exit(code)
}

// binaryDir is where this test process builds the binary; the pid keeps
// concurrent test runs from overwriting each other's executable.
func binaryDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("ddblocal-bintest-%d", os.Getpid()))
}

// built is the binary buildBinary built: its path, and the reachable
// functions the linker's dependency dump marks <ReflectMethod> (nil when
// the binary was built by the parent of the signed pass).
type built struct {
	path           string
	reflectMethods []string
}

// buildBinary builds the module root with the flags the Dockerfile uses,
// and -dumpdep, which makes the linker list every edge of its reachability
// walk on stderr (15.6 MB, scanned as it streams for TestMethodPruning; the
// link took 0.9-1.5 s with it or without it at load 12). `go test` puts its own GOROOT/bin first on PATH, so "go" is the
// same toolchain that is running the tests.
func buildBinary() (built, error) {
	if bin := os.Getenv(builtBinaryEnv); bin != "" {
		return built{path: bin}, nil // built by the parent of the signed pass
	}
	root, err := filepath.Abs("..")
	if err != nil {
		return built{}, err
	}
	if err := os.MkdirAll(binaryDir(), 0o755); err != nil {
		return built{}, err
	}
	b := built{path: filepath.Join(binaryDir(), "ddblocal")}
	cmd := exec.Command("go", "build", "-tags", "grpcnotrace", "-trimpath", "-ldflags", "-s -w -dumpdep", "-o", b.path, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	// exec copies stdout in a goroutine of its own: the scan writes what is
	// not the dump to another buffer.
	var stdout, other bytes.Buffer
	cmd.Stdout = &stdout
	out, err := cmd.StderrPipe()
	if err != nil {
		return built{}, err
	}
	if err := cmd.Start(); err != nil {
		return built{}, err
	}
	b.reflectMethods = scanDumpDep(out, &other)
	if err := cmd.Wait(); err != nil {
		return built{}, fmt.Errorf("go build: %v\n%s%s", err, stdout.Bytes(), other.Bytes())
	}
	return b, nil
}

// scanDumpDep reads the linker's dependency dump ("from -> to" lines, each
// symbol followed by its marks, a symbol listed as "to" when it is first
// reached) and returns, sorted, every reachable symbol marked
// <ReflectMethod>, with the one that reached it: a function that looks a
// method up by reflection with a name the compiler cannot see
// (reflect.Value.Method, MethodByName with a computed name), which makes
// the linker keep every exported method of every reachable type. Lines
// that are not the dump go to other.
func scanDumpDep(r io.Reader, other *bytes.Buffer) []string {
	var found []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		from, to, isDep := strings.Cut(line, " -> ")
		if !isDep {
			other.WriteString(line + "\n")
			continue
		}
		if strings.HasSuffix(to, "<ReflectMethod>") {
			found = append(found, symbolName(to)+" (reached from "+symbolName(from)+")")
		}
	}
	_, _ = io.Copy(io.Discard, r)
	// Package reflect's own come last: they are reached because pruning is
	// off, and the culprit is elsewhere.
	slices.SortFunc(found, func(a, b string) int {
		if ra, rb := strings.HasPrefix(a, "reflect."), strings.HasPrefix(b, "reflect."); ra != rb {
			if ra {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	return found
}

// symbolName is a dump entry's symbol without its marks.
func symbolName(entry string) string {
	if i := strings.LastIndex(entry, " <"); i >= 0 && strings.HasSuffix(entry, ">") {
		return entry[:i]
	}
	return entry
}

// binaryPath returns the built binary, skipping in -short mode.
func binaryPath(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("process tests build and run the binary; skipped in -short mode")
	}
	bin, err := ddblocalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// listeningLine matches main.go's start-up log line and captures the port
// (addr is host:port, and the host may be "[::]" when no --host is given).
var listeningLine = regexp.MustCompile(`msg="ddblocal listening" addr="?\S*:(\d+)"?`)

// stderrLog collects a child's stderr and announces the port from the
// start-up line once it has been written.
type stderrLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	port  string
	ready chan struct{} // closed when port is set
}

// Write implements io.Writer; exec.Cmd copies the child's stderr into it.
func (l *stderrLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.port == "" {
		if m := listeningLine.FindSubmatch(l.buf.Bytes()); m != nil {
			l.port = string(m[1])
			close(l.ready)
		}
	}
	return len(p), nil
}

// String returns everything written so far.
func (l *stderrLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// proc is one running ddblocal process.
type proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	log  *stderrLog
	Port string // the port it listens on
	URL  string // http://127.0.0.1:Port

	done    chan struct{} // closed when the process has exited and waitErr is set
	waitErr error
}

// testEnv is the environment for a child process: the test's own minus any
// DDBLOCAL_* setting of the developer's shell, plus extra, with TMPDIR
// pointing at a per-test directory so that an in-memory store's scratch
// file never outlives the test, even after SIGKILL.
func testEnv(t testing.TB, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DDBLOCAL_") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	env = append(env, "TMPDIR="+t.TempDir())
	return append(env, extra...)
}

// startBinary starts ddblocal with args in the working directory dir and
// waits until it has logged its listening address. env is the complete
// environment (nil means testEnv(t)); a non-nil empty env really is empty.
// The process is killed at the end of the test if it is still running.
func startBinary(t testing.TB, dir string, env []string, args ...string) *proc {
	t.Helper()
	if env == nil {
		env = testEnv(t)
	}
	if signedPass() && !slices.Contains(args, "--credentials") &&
		!slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "DDBLOCAL_CREDENTIALS=") }) {
		args = append(args, "--credentials", testKey+":"+testSecret)
	}
	p := &proc{t: t, log: &stderrLog{ready: make(chan struct{})}, done: make(chan struct{})}
	p.cmd = exec.Command(binaryPath(t), args...)
	p.cmd.Dir = dir
	p.cmd.Env = env
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Wait returns once the process has exited and its stderr has been
		// copied, so the log is complete when done is closed.
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("ddblocal %s stderr:\n%s", strings.Join(args, " "), p.log.String())
		}
	})
	select {
	case <-p.log.ready:
	case <-p.done:
		t.Fatalf("ddblocal %s exited before listening (%v):\n%s", strings.Join(args, " "), p.waitErr, p.log.String())
	case <-time.After(listenTimeout):
		t.Fatalf("ddblocal %s did not log its address within %s:\n%s", strings.Join(args, " "), listenTimeout, p.log.String())
	}
	p.Port = p.log.port
	p.URL = "http://" + net.JoinHostPort("127.0.0.1", p.Port)
	return p
}

// client returns an SDK client for the process (no retries, us-east-1).
func (p *proc) client() *dynamodb.Client {
	return (&server{URL: p.URL}).client("us-east-1")
}

// wait waits for the process to exit and returns its exit code (-1 when a
// signal ended it); it fails the test if that takes longer than exitTimeout.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(exitTimeout):
		p.t.Fatalf("ddblocal did not exit within %s:\n%s", exitTimeout, p.log.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// stop sends SIGTERM and returns the exit code and how long the exit took.
func (p *proc) stop() (code int, took time.Duration) {
	p.t.Helper()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	code = p.wait()
	return code, time.Since(start)
}

// stopOK stops the process gracefully and fails the test unless it exits 0.
func (p *proc) stopOK() {
	p.t.Helper()
	if code, took := p.stop(); code != 0 {
		p.t.Fatalf("after SIGTERM: got exit code %d after %s, want 0:\n%s", code, took, p.log.String())
	}
}

// kill sends SIGKILL, as the OOM killer or `docker kill` does, and waits.
func (p *proc) kill() {
	p.t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		p.t.Fatal(err)
	}
	p.wait()
}

// runBinary runs ddblocal to completion (for flag errors) and returns its
// exit code and stderr.
func runBinary(t testing.TB, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binaryPath(t), args...)
	cmd.Dir = dir
	cmd.Env = testEnv(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(exitTimeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("ddblocal %s did not exit within %s:\n%s", strings.Join(args, " "), exitTimeout, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}
