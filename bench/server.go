package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
	cmd       *exec.Cmd
	dir       string
	url       string
	pid       string
	startDur  time.Duration // from exec to the first answered request
	listenDur time.Duration // from exec to its port accepting a connection
	log       startLog      // its stderr: the end of it for errors, what it says of its start
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
	listening, err := awaitAnswer(ctx, s.url, t0.Add(startTimeout))
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w; its stderr:\n%s", spec.name, err, s.log.tail.tail())
	}
	s.startDur = time.Since(t0)
	s.listenDur = listening.Sub(t0)
	return s, nil
}

// startPoll is the pause between two connection attempts while a server
// starts. It is a nanosleep of the polling thread, not a Go timer: a timer
// under a millisecond sleeps a whole millisecond when this process has
// nothing else to run (the runtime's netpoll wait counts in milliseconds).
const startPoll = 100 * time.Microsecond

// awaitAnswer connects to url's port until the connection is accepted (the
// server is listening), then sends ListTables over that connection until
// some HTTP answer comes back. It returns when the port first accepted.
func awaitAnswer(ctx context.Context, url string, deadline time.Time) (listening time.Time, err error) {
	c := newWireClient(url, "us-east-1")
	defer c.close()
	for {
		nc, err := net.DialTimeout("tcp", c.addr, time.Until(deadline))
		if err == nil {
			listening = time.Now()
			c.release(&wireConn{c: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)})
			break
		}
		if err := startWaitErr(ctx, deadline, err); err != nil {
			return listening, err
		}
		pause(startPoll)
	}
	for {
		err := c.call(ctx, "ListTables", []byte("{}"), nil)
		var apiErr *apiError
		if err == nil || errors.As(err, &apiErr) {
			return listening, nil
		}
		if err := startWaitErr(ctx, deadline, err); err != nil {
			return listening, err
		}
		pause(startPoll)
	}
}

// startWaitErr returns the error that ends a wait for a starting server
// whose last attempt failed with err, or nil to try again.
func startWaitErr(ctx context.Context, deadline time.Time, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if time.Now().After(deadline) {
		return fmt.Errorf("no answer within %s: %w", startTimeout, err)
	}
	return nil
}

// pause sleeps d in the calling thread (see startPoll).
func pause(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	_ = syscall.Nanosleep(&ts, nil)
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
