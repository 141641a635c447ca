package integration

// The npm packages (npm/), tested as a user gets them: built from this
// repository by npm/scripts/build.mjs (the binaries cross-compiled, each
// platform its own package), packed with `npm pack`, installed from the
// tarballs into a copy of the scratch project npm/test, whose Jest and
// Vitest suites then run against servers the presets start. .ci/run
// installs node and the scratch project's dependencies (npm ci) and sets
// DDBLOCAL_CI=1, under which anything missing fails the test.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// npmTimeout bounds the whole test, including a first `npm ci` of the
// scratch project's Jest, Vitest and SDK on a machine without them.
const npmTimeout = 12 * time.Minute

// npmPlatforms is what the test builds: this machine's platform, which is
// all the install needs, unless DDBLOCAL_NPM_PLATFORMS says otherwise
// ("all", or a list such as linux-x64,win32-arm64). .ci/run cross-compiles
// and packs all six after the tests: on a cold build cache each
// cross-compile takes minutes, too long for every landing's test run.
func npmPlatforms() string {
	if p := os.Getenv("DDBLOCAL_NPM_PLATFORMS"); p != "" {
		return p
	}
	return "host"
}

func TestNPMPackages(t *testing.T) {
	binaryPath(t) // skips in -short mode, as the other process tests do
	if signedPass() {
		t.Skip("the unsigned pass ran the npm suites")
	}
	out, err := exec.Command("node", "--version").Output()
	major, verr := nodeMajor(string(out))
	needRuntime(t, "node 20 or later", "apt-get install nodejs npm", err == nil && verr == nil && major >= 20)
	_, err = exec.LookPath("npm")
	needRuntime(t, "npm", "apt-get install npm", err == nil)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), npmTimeout)
	defer cancel()
	if _, err := os.Stat(filepath.Join(root, "npm/test/node_modules/vitest")); err != nil {
		// .ci/run installs them; a bare `go test` (the landing train) does it here.
		step(ctx, t, filepath.Join(root, "npm/test"), "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	}
	dist := t.TempDir()
	version := fmt.Sprintf("0.0.0-test.%d", time.Now().Unix())
	step(ctx, t, root, "node", "npm/scripts/build.mjs", "--out", dist, "--version", version, "--platforms", npmPlatforms())
	proj := scratchProject(ctx, t, root, dist, version)
	step(ctx, t, proj, "npm", "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error")

	installed, err := os.ReadDir(filepath.Join(proj, "node_modules/@ddblocal"))
	if err != nil {
		t.Fatal(err)
	}
	if len(installed) != 1 || installed[0].Name() != hostPlatform() {
		t.Errorf("installed platform packages %v, want only %s: npm chooses the optional dependency by os and cpu", installed, hostPlatform())
	}
	// What `npx ddblocal` runs: the bin the package declares.
	if got := step(ctx, t, proj, "node_modules/.bin/ddblocal", "version"); !strings.Contains(got, "ddblocal v"+version) {
		t.Errorf("ddblocal version: %q, want the packed version %s", got, version)
	}
	// Jest's and Vitest's runs overlap: much of each is process start-up.
	var wg sync.WaitGroup
	for _, scripts := range [][]string{{"test:jest", "test:jest-worker"}, {"test:vitest", "test:vitest-worker"}} {
		wg.Go(func() {
			for _, script := range scripts {
				out, err := run(ctx, proj, "npm", "run", "--silent", script)
				if err != nil {
					t.Errorf("npm run %s: %v\n%s", script, err, out)
					return
				}
				took, _, _ := strings.Cut(out, "\n")
				t.Logf("%s\n%s", took, lastLines(out, 5))
			}
		})
	}
	wg.Wait()
}

// hostPlatform is this machine's platform package suffix in npm's names.
func hostPlatform() string {
	out, err := exec.Command("node", "-p", "process.platform + '-' + process.arch").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// scratchProject copies npm/test into a temporary directory, hard-linking
// its installed node_modules (npm adds packages beside them and replaces,
// never rewrites, files), and points its package.json at the tarballs in
// dist: ddblocal as a dependency, each platform package through
// "overrides", so npm finds them without a registry.
func scratchProject(ctx context.Context, t *testing.T, root, dist, version string) string {
	t.Helper()
	proj := filepath.Join(t.TempDir(), "project")
	step(ctx, t, root, "cp", "-al", filepath.Join(root, "npm/test"), proj)
	// npm rewrites its lockfiles in place: give the copy its own files, or
	// the install would rewrite npm/test's through the hard links.
	for _, lock := range []string{"node_modules/.package-lock.json", "package-lock.json"} {
		lock = filepath.Join(proj, lock)
		data, err := os.ReadFile(lock)
		if err == nil {
			err = os.Remove(lock)
		}
		if err == nil {
			err = os.WriteFile(lock, data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var pkg map[string]any
	if err := readJSON(filepath.Join(proj, "package.json"), &pkg); err != nil {
		t.Fatal(err)
	}
	tarballs, err := filepath.Glob(filepath.Join(dist, "*.tgz"))
	if err != nil || len(tarballs) < 2 {
		t.Fatalf("tarballs in %s: %v (%v), want ddblocal and at least this platform's", dist, tarballs, err)
	}
	overrides := map[string]any{}
	for _, tb := range tarballs {
		name := strings.TrimSuffix(filepath.Base(tb), "-"+version+".tgz")
		if name == "ddblocal" {
			pkg["devDependencies"].(map[string]any)["ddblocal"] = "file:" + tb
		} else {
			overrides["@ddblocal/"+strings.TrimPrefix(name, "ddblocal-")] = "file:" + tb
		}
	}
	pkg["overrides"] = overrides
	data, err := json.MarshalIndent(pkg, "", "  ")
	if err == nil {
		err = os.Remove(filepath.Join(proj, "package.json"))
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(proj, "package.json"), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tarballs: %v", slices.Sorted(slices.Values(tarballNames(tarballs))))
	return proj
}

func tarballNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// step runs one command in dir, failing the test with its output if it
// fails, and returns the output; its duration is logged for the CI budget.
func step(ctx context.Context, t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := run(ctx, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	took, _, _ := strings.Cut(out, "\n")
	t.Log(took)
	return out
}

// run runs one command in dir and returns its output (stdout and stderr),
// with its duration appended to an error or reported on success.
func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(npmEnv(), "NODE_NO_WARNINGS=1", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
	out, err := cmd.CombinedOutput()
	took := fmt.Sprintf("%s %s: %.1f s", name, strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil {
		return string(out), fmt.Errorf("%w (%s)", err, took)
	}
	return took + "\n" + string(out), nil
}

// npmEnv is this process's environment without the AWS settings a
// developer's shell may hold, which would point the suites elsewhere.
func npmEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "DDBLOCAL_ENDPOINT=") {
			env = append(env, kv)
		}
	}
	return env
}
