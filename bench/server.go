package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serverSpec is one server of a comparison: a name for the report and the
// command line that starts it. In args, {port} becomes the port the server
// must listen on and {dir} a fresh empty directory for its data; without
// {port}, "-port {port}" is appended (ddblocal's and DynamoDB Local's flag).
type serverSpec struct {
	name string
	path string
	args []string
	env  []string // added to this program's environment
	// ceiling marks the ceiling handler, which runs only the ceiling workload.
	ceiling bool
}

// parseServerSpec reads "NAME=COMMAND ARG..." (fields split on spaces).
func parseServerSpec(s string) (serverSpec, error) {
	name, cmdline, ok := strings.Cut(s, "=")
	fields := strings.Fields(cmdline)
	if !ok || strings.TrimSpace(name) == "" || len(fields) == 0 {
		return serverSpec{}, fmt.Errorf("-server %q: want NAME=COMMAND [ARG...]", s)
	}
	spec := serverSpec{name: strings.TrimSpace(name), path: fields[0], args: fields[1:]}
	if !strings.Contains(cmdline, "{port}") {
		spec.args = append(spec.args, "-port", "{port}")
	}
	return spec, nil
}

// serverFlags collects repeated -server flags.
type serverFlags []serverSpec

func (f *serverFlags) String() string {
	names := make([]string, len(*f))
	for i, s := range *f {
		names[i] = s.name
	}
	return strings.Join(names, ",")
}

func (f *serverFlags) Set(s string) error {
	spec, err := parseServerSpec(s)
	if err != nil {
		return err
	}
	*f = append(*f, spec)
	return nil
}

// runningServer is a started server process.
type runningServer struct {
	cmd      *exec.Cmd
	dir      string
	url      string
	pid      string
	startDur time.Duration // from exec to the first answered request
	log      tailBuffer    // the end of its stderr, for errors
}

// tailBuffer keeps the last tailBytes written to it; safe for one writer
// (exec's copying goroutine) and readers after the process has exited.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// startTimeout bounds how long a server may take to answer its first request.
const startTimeout = 20 * time.Second

// startServer starts spec on a free port of 127.0.0.1 and waits until it
// answers a request (any HTTP answer, even an error, counts: the server is
// up). The time measured includes exec and the dynamic loader, which is what
// a user starting the binary waits for.
func startServer(ctx context.Context, spec serverSpec) (*runningServer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-"+spec.name+"-")
	if err != nil {
		return nil, err
	}
	args := make([]string, len(spec.args))
	for i, a := range spec.args {
		args[i] = strings.NewReplacer("{port}", strconv.Itoa(port), "{dir}", dir).Replace(a)
	}
	cmd := exec.Command(spec.path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), spec.env...)
	s := &runningServer{cmd: cmd, dir: dir, url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	cmd.Stderr = &s.log
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", spec.name, err)
	}
	s.pid = strconv.Itoa(cmd.Process.Pid)
	if err := awaitAnswer(ctx, s.url, t0.Add(startTimeout)); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w; its stderr:\n%s", spec.name, err, s.log.tail())
	}
	s.startDur = time.Since(t0)
	return s, nil
}

// awaitAnswer sends ListTables to url until some HTTP answer comes back,
// polling every 200 µs while the port refuses connections.
func awaitAnswer(ctx context.Context, url string, deadline time.Time) error {
	for {
		c := newWireClient(url, "us-east-1")
		err := c.call(ctx, "ListTables", []byte("{}"), nil)
		c.close()
		var apiErr *apiError
		if err == nil || errors.As(err, &apiErr) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %s: %w", startTimeout, err)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// stop kills the server (SIGKILL: nothing it does on exit is measured) and
// removes its directory.
func (s *runningServer) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	_ = os.RemoveAll(s.dir)
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
