package integration

// The suite's child passes (TestSuiteWithCredentials, TestCoreSuiteOnEtcd)
// run this test binary again in a child process. Both are parallel tests,
// which Go starts only once every sequential test has finished: run from
// their tests alone, the signed pass would begin minutes into the package's
// run and the package would take the two passes one after the other. When
// the whole suite runs, TestMain starts them at once instead, beside the
// sequential tests (most of which wait on sockets, processes and timers
// rather than use a core), and their tests wait for them and report.

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// childPass is one child test process, started at most once.
type childPass struct {
	test string   // the test that reports it
	args []string // after -test.count=1 and -test.timeout
	env  []string // added to this process's environment
	bin  bool     // hand the child this process's binary (not in -short mode)

	once    sync.Once
	done    chan struct{} // closed when out, err and took are set
	started time.Time
	out     []byte
	err     error
	took    time.Duration
	waited  bool

	mu      sync.Mutex
	cmd     *exec.Cmd // nil until the child is started
	stopped bool      // stop was called: the child is not to be started
}

// childPasses are the suite's child passes. They are package state because
// TestMain starts them and their tests, later, collect them.
var childPasses = struct{ signed, core *childPass }{
	signed: &childPass{test: "TestSuiteWithCredentials", env: []string{signedPassEnv + "=1"}, bin: true,
		args: []string{"-test.skip=^(TestSuiteWithCredentials|TestBuildsForLaptops)$"}},
	core: &childPass{test: "TestCoreSuiteOnEtcd", env: []string{clusterPassEnv + "=1"},
		args: []string{"-test.run=" + coreSuite}},
}

// start runs the child pass unless it is already running or done; deadline
// is this process's own (ok false: none).
func (p *childPass) start(deadline time.Time, ok bool) {
	p.once.Do(func() {
		p.done = make(chan struct{})
		p.started = time.Now()
		go p.run(childTimeoutAt(deadline, ok))
	})
}

func (p *childPass) run(timeout string) {
	defer close(p.done)
	args := append([]string{"-test.count=1", timeout}, p.args...)
	env := append(os.Environ(), p.env...)
	if testing.Short() {
		args = append(args, "-test.short")
	} else if p.bin {
		// Share this process's binary rather than building another.
		bin, err := ddblocalBinary()
		if err != nil {
			p.err = err
			return
		}
		env = append(env, builtBinaryEnv+"="+bin)
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		p.err = errors.New("stopped before it started")
		return
	}
	p.cmd = cmd
	p.err = cmd.Start()
	p.mu.Unlock()
	if p.err == nil {
		p.err = cmd.Wait()
	}
	p.out, p.took = out.Bytes(), time.Since(p.started)
}

// wait starts the pass if TestMain did not, and returns its output, how
// long it took from its start, and its error.
func (p *childPass) wait(t *testing.T) ([]byte, time.Duration, error) {
	p.start(t.Deadline())
	<-p.done
	p.waited = true
	return p.out, p.took, p.err
}

// stop kills a pass that TestMain started but whose test did not run (it
// was filtered out more finely than selected tells), so that no child
// outlives the test process.
func (p *childPass) stop() {
	if p.done == nil || p.waited {
		return
	}
	p.mu.Lock()
	p.stopped = true
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	p.mu.Unlock()
	<-p.done
}

// startPassesEarly starts the child passes whose tests this run will run,
// as far as -test.run, -test.skip and -test.list tell at the top level.
func startPassesEarly() {
	if signedPass() || clusterPass() || flagValue("test.list") != "" {
		return
	}
	var deadline time.Time
	timeout, err := time.ParseDuration(flagValue("test.timeout"))
	if err == nil && timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for _, p := range []*childPass{childPasses.signed, childPasses.core} {
		if selected(p.test, flagValue("test.run"), flagValue("test.skip")) {
			p.start(deadline, !deadline.IsZero())
		}
	}
}

// stopPasses stops the passes nobody waited for.
func stopPasses() {
	childPasses.signed.stop()
	childPasses.core.stop()
}

// selected reports whether the top-level test name is run by the -test.run
// pattern run and not skipped by the -test.skip pattern skip. Only a
// pattern's first element is read: a pattern naming subtests selects its
// top-level test, and a skip naming subtests does not skip it.
func selected(name, run, skip string) bool {
	if run != "" {
		top, _, _ := strings.Cut(run, "/")
		if ok, err := regexp.MatchString(top, name); err != nil || !ok {
			return false
		}
	}
	if skip != "" && !strings.Contains(skip, "/") {
		if ok, err := regexp.MatchString(skip, name); err != nil || ok {
			return false
		}
	}
	return true
}

// flagValue is a testing flag's value, "" if it is not defined.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// TestSelectedPasses: which -run and -skip patterns make TestMain start a
// child pass early.
func TestSelectedPasses(t *testing.T) {
	for _, tt := range []struct {
		run, skip string
		want      bool
	}{
		{"", "", true},
		{"TestSuiteWithCredentials", "", true},
		{"^TestSuiteWith", "", true},
		{"TestSuiteWithCredentials/sub", "", true},
		{"TestPutGetDelete", "", false},
		{"^$", "", false},
		{"[", "", false},
		{"", "TestSuiteWithCredentials", false},
		{"", "^(TestSuiteWithCredentials|TestBuildsForLaptops)$", false},
		{"", "TestSuiteWithCredentials/sub", true},
		{"", "TestOther", true},
		{"Suite", "Credentials", false},
	} {
		if got := selected("TestSuiteWithCredentials", tt.run, tt.skip); got != tt.want {
			t.Errorf("selected with -run %q -skip %q = %v, want %v", tt.run, tt.skip, got, tt.want)
		}
	}
}
