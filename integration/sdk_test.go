package integration

// The other SDKs people use most, run against the built binary: Python
// boto3 (Debian's python3-boto3), the AWS CLI v2 (Debian's awscli) and the
// JavaScript SDK v3 (integration/sdk/js, from npm). .ci/run installs them
// and sets DDBLOCAL_CI=1, under which a missing runtime fails the test;
// elsewhere it is skipped with a message saying how to install it.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sdkTimeout bounds one suite (the AWS CLI starts a Python process per
// call, about a second each on a loaded 2-core machine).
const sdkTimeout = 4 * time.Minute

// needRuntime skips (or, in CI, fails) when a suite's runtime is missing.
func needRuntime(t *testing.T, what, install string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("DDBLOCAL_CI") == "1" {
		t.Fatalf("%s is missing, and DDBLOCAL_CI=1 says this run must test it: %s", what, install)
	}
	t.Skipf("SKIPPED, NOT TESTED: %s is missing (%s); .ci/run installs it", what, install)
}

// runSuite starts the binary verifying signatures with the suite's key,
// runs cmd against it with the environment a user would set, and fails the
// test with the suite's output if it fails.
func runSuite(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	if signedPass() {
		t.Skip("the SDK suites always run against a verifying server; the unsigned pass ran them")
	}
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0", "--credentials", testKey+":"+testSecret)
	ctx, cancel := context.WithTimeout(context.Background(), sdkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(testEnv(t), "DDBLOCAL_ENDPOINT="+p.URL, "AWS_ACCESS_KEY_ID="+testKey, "AWS_SECRET_ACCESS_KEY="+testSecret,
		"AWS_REGION=us-east-1", "AWS_DEFAULT_REGION=us-east-1", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
		"PYTHONWARNINGS=ignore::ResourceWarning")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s", lastLines(string(out), 3))
	p.stopOK()
}

// nodeMajor returns the major version in `node --version`'s output
// ("v20.20.2").
func nodeMajor(out string) (int, error) {
	v, ok := strings.CutPrefix(strings.TrimSpace(out), "v")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if !ok || err != nil {
		return 0, fmt.Errorf("not a node version: %q", out)
	}
	return n, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// debianPython is Debian's interpreter, which python3-boto3 installs into;
// a python3 earlier on PATH (pyenv) would not see that package.
const debianPython = "/usr/bin/python3"

func TestSDKPython(t *testing.T) {
	ok := exec.Command(debianPython, "-c", "import boto3").Run() == nil
	needRuntime(t, debianPython+" with boto3", "apt-get install python3-boto3", ok)
	runSuite(t, "sdk/python", debianPython, "-m", "unittest", "-v", "test_boto3")
}

// awsCLI finds AWS CLI v2: Debian's at /usr/bin/aws first (a pip-installed
// v1 may come earlier on PATH), then whatever PATH has.
func awsCLI() string {
	for _, c := range []string{"/usr/bin/aws", "aws"} {
		out, err := exec.Command(c, "--version").CombinedOutput()
		if err == nil && strings.HasPrefix(string(out), "aws-cli/2.") {
			return c
		}
	}
	return ""
}

func TestSDKCLI(t *testing.T) {
	aws := awsCLI()
	needRuntime(t, "AWS CLI v2", "apt-get install awscli", aws != "")
	t.Setenv("AWS", aws)
	runSuite(t, "sdk/cli", "bash", "test_cli.sh")
}

// minNode is the oldest node the JavaScript SDK v3 supports (its
// packages' engines field).
const minNode = 20

func TestSDKJavaScript(t *testing.T) {
	_, nodeErr := exec.LookPath("node")
	needRuntime(t, "node", "apt-get install nodejs (20 or later)", nodeErr == nil)
	out, err := exec.Command("node", "--version").Output()
	major, perr := nodeMajor(string(out))
	if err != nil || perr != nil {
		t.Fatalf("node --version: %v %v (output %q)", err, perr, out)
	}
	needRuntime(t, fmt.Sprintf("node %d or later (this node is %s)", minNode, strings.TrimSpace(string(out))),
		fmt.Sprintf("install node %d or later, e.g. from deb.nodesource.com/node_%d.x", minNode, minNode), major >= minNode)
	_, err = os.Stat(filepath.Join("sdk", "js", "node_modules", "@aws-sdk", "lib-dynamodb"))
	needRuntime(t, "the JavaScript SDK v3", "cd integration/sdk/js && npm ci", err == nil)
	runSuite(t, "sdk/js", "node", "--test")
}

// TestNodeMajor checks the parser of `node --version`.
func TestNodeMajor(t *testing.T) {
	tests := []struct {
		out     string
		want    int
		wantErr bool
	}{
		{"v20.20.2\n", 20, false},
		{"v18.19.0", 18, false},
		{"v22.0.0-nightly20240425\n", 22, false},
		{"v9.11.2", 9, false},
		{"20.1.0", 0, true},
		{"v", 0, true},
		{"vX.1.0", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := nodeMajor(tt.out)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("nodeMajor(%q): got %d, %v, want %d (error %v)", tt.out, got, err, tt.want, tt.wantErr)
		}
	}
}
