package integration

// The documentation's examples, run: every fenced block in README.md and
// docs/*.md whose info string says `runnable` (```sh runnable, ```go
// runnable, ...) is executed, in order, against one fresh in-memory server
// per file, with "localhost:8000" in the block pointing at that server. A
// block followed directly by a ```text output block must print exactly
// that. Shell blocks run with bash -euo pipefail, the built binary as
// `ddblocal` on PATH (and as ./ddblocal), Debian's AWS CLI v2 as `aws`, and
// whatever they leave running is killed when they end; python blocks with
// Debian's python3 (boto3); js blocks as ES modules beside
// integration/sdk/js's node_modules; go blocks, whole programs, with `go
// run` (`runnable test`: a whole _test.go file, with `go test`) in a scratch
// module that requires what this module requires and this module itself.
//
// `runnable own-server`: a shell block that starts its own server, on a
// port of its own that localhost:8000, --port 8000 and DDBLOCAL_PORT name.
// `runnable serves`: each command line starts a server, which must answer
// its health route and then exit 0 on SIGTERM. A block with `file=PATH`
// (```yaml file=testdata/template.yaml) is written at PATH in the working
// folder of every later block. A code block (sh, go, python, js, ...) that
// says neither runnable nor not-runnable fails the test: an example is run
// or its page says why it cannot be.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// docBlock is one fenced block of a Markdown file that the test uses: a
// runnable block, or a file= block whose text later blocks find on disk.
type docBlock struct {
	Lang   string // first word of the info string: sh, go, python, js
	Line   int    // line of the opening fence
	Mode   string // a runnable block's way of running: "", "test", "serves" or "own-server"
	File   string // a file= block's path, relative to the blocks' working directory
	Code   string
	Output string // the following ```text output block, if any
	Expect bool   // whether Output was given
}

// codeLangs are the info strings of blocks a reader would run: each such
// block must say runnable (and is run) or not-runnable (and its page says
// why), so that no new example escapes the test unnoticed.
var codeLangs = []string{"sh", "bash", "shell", "console", "go", "python", "py", "js", "javascript", "ts", "typescript"}

// runModes are the words after runnable that change how a block runs.
var runModes = []string{"test", "serves", "own-server"}

// docBlockOf returns the block a closed fence makes, and whether the
// test uses it; an error for a code block that is neither runnable nor
// not-runnable.
func docBlockOf(b docBlock, info []string) (docBlock, bool, error) {
	for _, w := range info {
		if f, ok := strings.CutPrefix(w, "file="); ok {
			b.File = f
			return b, true, nil
		}
	}
	switch {
	case slices.Contains(info, "runnable"):
		for _, m := range runModes {
			if slices.Contains(info, m) {
				b.Mode = m
			}
		}
		return b, true, nil
	case slices.Contains(info, "not-runnable"), !slices.Contains(codeLangs, b.Lang):
		return b, false, nil
	}
	return b, false, fmt.Errorf("line %d: a ```%s block must say runnable (integration/docs_test.go runs it) "+
		"or not-runnable (and the page says why it cannot run)", b.Line, b.Lang)
}

// docBlocks returns the runnable and file= blocks of a Markdown text, in
// order. A fence is three or more backquotes at the start of a line; only
// backquote fences are recognised (the documentation uses no others).
func docBlocks(md string) ([]docBlock, error) {
	var blocks []docBlock
	var cur *docBlock // the open fence's block, nil outside one
	var body strings.Builder
	var info []string
	last := -1 // index in blocks of the previous runnable block, while nothing but blank lines followed it
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur == nil {
			rest, ok := strings.CutPrefix(line, "```")
			if !ok {
				if strings.TrimSpace(line) != "" {
					last = -1
				}
				continue
			}
			info = strings.Fields(rest)
			cur = &docBlock{Line: n}
			if len(info) > 0 {
				cur.Lang = info[0]
			}
			body.Reset()
			continue
		}
		if strings.TrimSpace(line) != "```" {
			body.WriteString(line + "\n")
			continue
		}
		cur.Code = body.String()
		switch {
		case slices.Contains(info, "output") && last >= 0:
			blocks[last].Output, blocks[last].Expect = cur.Code, true
			last = -1
		case slices.Contains(info, "output"):
			return nil, fmt.Errorf("line %d: an output block must follow a runnable block", cur.Line)
		default:
			b, use, err := docBlockOf(*cur, info)
			if err != nil {
				return nil, err
			}
			last = -1
			if use {
				blocks = append(blocks, b)
				if b.File == "" {
					last = len(blocks) - 1
				}
			}
		}
		cur = nil
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: fence never closed", cur.Line)
	}
	return blocks, sc.Err()
}

func TestDocBlocks(t *testing.T) {
	md := "# t\n```sh runnable\necho a\n```\n\n```text output\na\n```\n" +
		"```go not-runnable\nnot run\n```\n```python runnable\nprint(1)\n```\ntext\n```text output\n1\n```\n"
	_, err := docBlocks(md)
	if err == nil || !strings.Contains(err.Error(), "line 16: an output block must follow") {
		t.Fatalf("got error %v, want the misplaced output block at line 16", err)
	}
	md = strings.TrimSuffix(md, "text\n```text output\n1\n```\n") +
		"```yaml file=t/a.yaml\nk: v\n```\n```go runnable test\npackage x\n```\n```sh runnable serves\nddblocal\n```\n" +
		"```json\n{}\n```\n```\nplain\n```\n"
	got, err := docBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	want := []docBlock{
		{Lang: "sh", Line: 2, Code: "echo a\n", Output: "a\n", Expect: true},
		{Lang: "python", Line: 12, Code: "print(1)\n"},
		{Lang: "yaml", Line: 15, File: "t/a.yaml", Code: "k: v\n"},
		{Lang: "go", Line: 18, Mode: "test", Code: "package x\n"},
		{Lang: "sh", Line: 21, Mode: "serves", Code: "ddblocal\n"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := docBlocks("```sh runnable\necho\n"); err == nil {
		t.Fatal("an unclosed fence: got no error")
	}
	if _, err := docBlocks("x\n```js\nf()\n```\n"); err == nil || !strings.Contains(err.Error(), "line 2: a ```js block must say runnable") {
		t.Fatalf("a code block marked neither runnable nor not-runnable: got error %v", err)
	}
}

// docFiles are the Markdown files whose examples are run.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "README.md")}, files...)
}

// docsPort is the port the documentation's examples are written against.
var docsPort = regexp.MustCompile(`localhost:8000\b`)

func TestDocsRunnable(t *testing.T) {
	if signedPass() {
		t.Skip("the examples use dummy credentials; the unsigned pass ran them")
	}
	t.Parallel()
	// One subtest per page, which reads its page itself: a page that does
	// not parse, or whose block fails, fails alone, and every other page
	// still runs and reports.
	for _, f := range docFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			md, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := docBlocks(string(md))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(blocks) == 0 {
				return // nothing to run: every code block on it says not-runnable
			}
			r := newDocRunner(t, blocks)
			for _, b := range blocks {
				r.run(t, f, b)
			}
		})
	}
}

// docRunner runs one file's blocks against its server.
type docRunner struct {
	url   string
	env   []string
	bin   string // directory put first on PATH
	repo  string // the module root
	files []docBlock
}

func newDocRunner(t *testing.T, blocks []docBlock) *docRunner {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	r := &docRunner{repo: repo, bin: toolDir(t)}
	for _, b := range blocks {
		if b.File == "" {
			r.needLang(t, b.Lang)
		}
	}
	if err := os.Symlink(binaryPath(t), filepath.Join(r.bin, "ddblocal")); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	r.url = p.URL
	// CGO_ENABLED=0 and -trimpath as binaryPath builds: a go block reuses
	// the packages that build compiled.
	r.env = testEnv(t, "PATH="+r.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_PAGER=",
		"AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1",
		"AWS_ENDPOINT_URL_DYNAMODB="+p.URL, "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=readonly -trimpath", "CGO_ENABLED=0")
	return r
}

// toolDir returns a directory to put first on PATH in which `aws` is the
// AWS CLI v2 awsCLI finds (Debian's may come after a pip-installed v1).
func toolDir(t *testing.T) string {
	dir := t.TempDir()
	if aws := awsCLI(); aws != "" {
		p, err := exec.LookPath(aws)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(dir, "aws")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// needLang skips (or, in CI, fails) when a block's runtime is missing, and
// fails for a language the runner does not know.
func (r *docRunner) needLang(t *testing.T, lang string) {
	switch lang {
	case "sh":
		needRuntime(t, "AWS CLI v2", "apt-get install awscli", awsCLI() != "")
		_, err := exec.LookPath("jq")
		needRuntime(t, "jq", "apt-get install jq", err == nil)
	case "python":
		ok := exec.Command(debianPython, "-c", "import boto3").Run() == nil
		needRuntime(t, debianPython+" with boto3", "apt-get install python3-boto3", ok)
	case "js":
		_, err := os.Stat(filepath.Join(r.repo, "integration", "sdk", "js", "node_modules", "@aws-sdk", "lib-dynamodb"))
		needRuntime(t, "the JavaScript SDK v3", "cd integration/sdk/js && npm ci", err == nil)
	case "go":
	default:
		t.Fatalf("a runnable block in %q: the docs test runs sh, go, python and js blocks", lang)
	}
}

// blockTimeout bounds one example; goBlockTimeout one that compiles a
// program (the first one in a run compiles the server's packages).
const (
	blockTimeout   = 2 * time.Minute
	goBlockTimeout = 5 * time.Minute
)

// run executes one block and checks its exit status and, if given, output.
// A file= block is only kept, to be written into the later blocks' folders.
func (r *docRunner) run(t *testing.T, file string, b docBlock) {
	t.Helper()
	if b.File != "" {
		r.files = append(r.files, b)
		return
	}
	where := fmt.Sprintf("%s:%d (%s)", filepath.Base(file), b.Line, b.Lang)
	hostPort, env := strings.TrimPrefix(r.url, "http://"), r.env
	if b.Mode == "serves" || b.Mode == "own-server" {
		// The block's servers listen on a port of their own: localhost:8000,
		// --port 8000 and DDBLOCAL_PORT (which `ddblocal healthcheck` reads)
		// all say it.
		port := docFreePort(t)
		hostPort = "127.0.0.1:" + port
		env = append(slices.Clip(env), "DDBLOCAL_PORT="+port, "AWS_ENDPOINT_URL_DYNAMODB=http://"+hostPort)
	}
	code := docsPort.ReplaceAllString(b.Code, hostPort)
	code = strings.ReplaceAll(code, "--port 8000", "--port "+strings.Split(hostPort, ":")[1])
	if b.Mode == "serves" {
		r.serves(t, where, code, env, hostPort)
		return
	}
	timeout := blockTimeout
	if b.Lang == "go" {
		timeout = goBlockTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := r.command(ctx, t, b, code)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	killGroup(cmd)
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // a server the block started in the background held its output open
	}
	if err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s\nthe block:\n%s", where, err, stdout.String(), stderr.String(), code)
	}
	t.Logf("%s ran in %s", where, time.Since(start).Round(time.Millisecond))
	if b.Expect && stdout.String() != b.Output {
		t.Errorf("%s printed\n%s\nthe documentation says\n%s", where, stdout.String(), b.Output)
	}
}

// killGroup kills what a shell block left running in the background (its
// process group).
func killGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid && cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// serves runs each command line of a block as a server start: the server
// must answer its health check on hostPort, then stop cleanly (exit 0) on
// SIGTERM.
func (r *docRunner) serves(t *testing.T, where, code string, env []string, hostPort string) {
	t.Helper()
	for _, line := range strings.Split(code, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", line)
		cmd.Dir = r.workDir(t)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		start := time.Now()
		healthy, err, exited := waitDocHealth(hostPort, done)
		if !exited {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case err = <-done:
			case <-time.After(exitTimeout):
				killGroup(cmd)
				err = fmt.Errorf("still running %s after SIGTERM (%v)", exitTimeout, <-done)
			}
		}
		if !healthy || exited || err != nil {
			t.Fatalf("%s: %q: healthy %v, exited before SIGTERM %v, exit: %v; want healthy, then exit status 0 on SIGTERM; output:\n%s",
				where, line, healthy, exited, err, out.String())
		}
		t.Logf("%s: %q served and stopped in %s", where, line, time.Since(start).Round(time.Millisecond))
	}
}

// waitDocHealth polls hostPort's health route until it answers 200, the
// process ends (done; exited is then set, with its Wait error) or
// listenTimeout passes.
func waitDocHealth(hostPort string, done <-chan error) (healthy bool, err error, exited bool) {
	deadline := time.Now().Add(listenTimeout)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + hostPort + "/_ddblocal/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true, nil, false
			}
		}
		select {
		case err := <-done:
			return false, err, true
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false, nil, false
}

// docFreePort returns a TCP port that was free a moment ago on 127.0.0.1.
func docFreePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// workDir returns a fresh folder holding the file= blocks seen so far and
// the built binary as ./ddblocal (as a CI job that downloaded it has it).
func (r *docRunner) workDir(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range r.files {
		path := filepath.Join(dir, filepath.FromSlash(f.File))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(f.Code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(r.bin, "ddblocal"), filepath.Join(dir, "ddblocal")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// command returns the command that runs a block's code.
func (r *docRunner) command(ctx context.Context, t *testing.T, b docBlock, code string) *exec.Cmd {
	switch b.Lang {
	case "python":
		cmd := exec.CommandContext(ctx, debianPython, "-")
		cmd.Dir = r.workDir(t)
		cmd.Stdin = strings.NewReader(code)
		return cmd
	case "js":
		cmd := exec.CommandContext(ctx, "node", "--input-type=module", "-")
		cmd.Dir = filepath.Join(r.repo, "integration", "sdk", "js")
		cmd.Stdin = strings.NewReader(code)
		return cmd
	case "go":
		if b.Mode == "test" {
			return exec.CommandContext(ctx, "go", "-C", r.goModule(t, "example_test.go", code), "test", "-count=1", ".")
		}
		return exec.CommandContext(ctx, "go", "-C", r.goModule(t, "main.go", code), "run", ".")
	default:
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", code)
		cmd.Dir = r.workDir(t)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		// What the block started in the background inherits its output:
		// Run returns this long after bash exits, and killGroup ends the rest.
		cmd.WaitDelay = time.Second
		return cmd
	}
}

// goModule writes a go block as name into a scratch module that requires
// what this module requires, and this module itself from the repository
// (for ddbtest, clock, ...), so that it builds offline from the module
// cache.
func (r *docRunner) goModule(t *testing.T, name, code string) string {
	dir := r.workDir(t)
	mod, err := os.ReadFile(filepath.Join(r.repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	self := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	if self == nil {
		t.Fatal("go.mod names no module")
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module docexample"))
	mod = fmt.Appendf(mod, "\nrequire %s v0.0.0\n\nreplace %s => %s\n", self[1], self[1], r.repo)
	sum, err := os.ReadFile(filepath.Join(r.repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": mod, "go.sum": sum, name: []byte(code)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
