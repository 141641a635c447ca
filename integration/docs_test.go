package integration

// The documentation's examples, run: every fenced block in README.md and
// docs/*.md whose info string says `runnable` (```sh runnable, ```go
// runnable, ...) is executed, in order, against one fresh in-memory server
// per file, with "localhost:8000" in the block pointing at that server. A
// block followed directly by a ```text output block must print exactly
// that. Shell blocks run with bash -euo pipefail, the built binary as
// `ddblocal` on PATH and Debian's AWS CLI v2 as `aws`; python blocks with
// Debian's python3 (boto3); js blocks as ES modules beside
// integration/sdk/js's node_modules; go blocks, whole programs, with
// `go run` in a scratch module using this module's go.mod and go.sum.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// docBlock is one runnable fenced block of a Markdown file.
type docBlock struct {
	Lang   string // first word of the info string: sh, go, python, js
	Line   int    // line of the opening fence
	Code   string
	Output string // the following ```text output block, if any
	Expect bool   // whether Output was given
}

// docBlocks returns the runnable blocks of a Markdown text, in order. A
// fence is three or more backquotes at the start of a line; only backquote
// fences are recognised (the documentation uses no others).
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
		case slices.Contains(info, "runnable"):
			blocks = append(blocks, *cur)
			last = len(blocks) - 1
		case slices.Contains(info, "output") && last >= 0:
			blocks[last].Output, blocks[last].Expect = cur.Code, true
			last = -1
		case slices.Contains(info, "output"):
			return nil, fmt.Errorf("line %d: an output block must follow a runnable block", cur.Line)
		default:
			last = -1
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
		"```go\nnot run\n```\n```python runnable\nprint(1)\n```\ntext\n```text output\n1\n```\n"
	_, err := docBlocks(md)
	if err == nil || !strings.Contains(err.Error(), "line 16: an output block must follow") {
		t.Fatalf("got error %v, want the misplaced output block at line 16", err)
	}
	got, err := docBlocks(strings.TrimSuffix(md, "text\n```text output\n1\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []docBlock{
		{Lang: "sh", Line: 2, Code: "echo a\n", Output: "a\n", Expect: true},
		{Lang: "python", Line: 12, Code: "print(1)\n"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := docBlocks("```sh runnable\necho\n"); err == nil {
		t.Fatal("an unclosed fence: got no error")
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
	for _, f := range docFiles(t) {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(string(md))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(blocks) == 0 {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			r := newDocRunner(t, blocks)
			for _, b := range blocks {
				r.run(t, f, b)
			}
		})
	}
}

// docRunner runs one file's blocks against its server.
type docRunner struct {
	url  string
	env  []string
	bin  string // directory put first on PATH
	repo string // the module root
}

func newDocRunner(t *testing.T, blocks []docBlock) *docRunner {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	r := &docRunner{repo: repo, bin: toolDir(t)}
	for _, b := range blocks {
		r.needLang(t, b.Lang)
	}
	if err := os.Symlink(binaryPath(t), filepath.Join(r.bin, "ddblocal")); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	r.url = p.URL
	r.env = testEnv(t, "PATH="+r.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_PAGER=",
		"AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1",
		"AWS_ENDPOINT_URL_DYNAMODB="+p.URL, "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=readonly")
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

// blockTimeout bounds one example (a go block compiles a program).
const blockTimeout = 2 * time.Minute

// run executes one block and checks its exit status and, if given, output.
func (r *docRunner) run(t *testing.T, file string, b docBlock) {
	t.Helper()
	code := docsPort.ReplaceAllString(b.Code, strings.TrimPrefix(r.url, "http://"))
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := r.command(ctx, t, b.Lang, code)
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	where := fmt.Sprintf("%s:%d (%s)", filepath.Base(file), b.Line, b.Lang)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s\nthe block:\n%s", where, err, stdout.String(), stderr.String(), code)
	}
	t.Logf("%s ran in %s", where, time.Since(start).Round(time.Millisecond))
	if b.Expect && stdout.String() != b.Output {
		t.Errorf("%s printed\n%s\nthe documentation says\n%s", where, stdout.String(), b.Output)
	}
}

// command returns the command that runs code in lang.
func (r *docRunner) command(ctx context.Context, t *testing.T, lang, code string) *exec.Cmd {
	switch lang {
	case "python":
		cmd := exec.CommandContext(ctx, debianPython, "-")
		cmd.Stdin = strings.NewReader(code)
		return cmd
	case "js":
		cmd := exec.CommandContext(ctx, "node", "--input-type=module", "-")
		cmd.Dir = filepath.Join(r.repo, "integration", "sdk", "js")
		cmd.Stdin = strings.NewReader(code)
		return cmd
	case "go":
		dir := r.goModule(t, code)
		cmd := exec.CommandContext(ctx, "go", "run", ".")
		cmd.Dir = dir
		return cmd
	default:
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", code)
		cmd.Dir = t.TempDir()
		return cmd
	}
}

// goModule writes a go block into a scratch module that requires what this
// module requires, so it builds offline from the module cache.
func (r *docRunner) goModule(t *testing.T, code string) string {
	dir := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(r.repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module docexample"))
	sum, err := os.ReadFile(filepath.Join(r.repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": mod, "go.sum": sum, "main.go": []byte(code)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
