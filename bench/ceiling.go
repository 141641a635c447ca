package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
)

// ceilingHandler is the cheapest possible "DynamoDB": it reads the request
// body and answers {} with DynamoDB's content type. Running the get workload
// against it measures what this client, HTTP stack and machine can do at
// best, which bounds every real server measured from the same machine.
func ceilingHandler(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_, _ = io.WriteString(w, "{}")
}

// serveCeilingEnv, set to 1 in the environment, makes this program serve the
// ceiling handler instead of running workloads: startCeiling's child.
const serveCeilingEnv = "DDBLOCAL_BENCH_SERVE_CEILING"

// serveCeiling serves ceilingHandler on addr (127.0.0.1:0 picks a free
// port), writes its URL as one line to out, and serves until ctx ends. It is
// what the child process started by startCeiling or a comparison runs.
func serveCeiling(ctx context.Context, out io.Writer, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(ceilingHandler)}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	fmt.Fprintf(out, "http://%s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startCeiling runs the ceiling server in a child process (this program with
// serveCeilingEnv set), so that its CPU time can be read like any server's. It
// returns the server's URL and PID and a function that stops it.
func startCeiling() (url string, pid int, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), serveCeilingEnv+"=1")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", 0, nil, fmt.Errorf("ceiling server did not start: %w", err)
	}
	return strings.TrimSpace(line), cmd.Process.Pid, stop, nil
}

// ceilingAddr is where the ceiling child listens: its first argument, as a
// comparison passes it, or a free port of 127.0.0.1.
func ceilingAddr(args []string) string {
	if len(args) > 1 {
		return args[1]
	}
	return "127.0.0.1:0"
}

// ceilingSpec is the ceiling handler as a server of a comparison: this
// program, serving it on the port the comparison picks.
func ceilingSpec() (serverSpec, error) {
	self, err := os.Executable()
	if err != nil {
		return serverSpec{}, err
	}
	return serverSpec{name: "ceiling", path: self, args: []string{"127.0.0.1:{port}"}, env: []string{serveCeilingEnv + "=1"}, ceiling: true}, nil
}
