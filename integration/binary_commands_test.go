package integration

// The binary's subcommands (healthcheck, export, import, version, --help)
// and --init, run as users and the Dockerfile run them.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// runCommand runs the binary to completion with env (nil: testEnv with
// the suite's key, which export and import sign with) and returns its exit
// code, stdout and stderr.
func runCommand(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	if env == nil {
		env = testEnv(t, "AWS_ACCESS_KEY_ID="+testKey, "AWS_SECRET_ACCESS_KEY="+testSecret, "AWS_REGION=us-east-1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*exitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binaryPath(t), args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ddblocal %s did not finish: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestBinaryHealthcheck runs `ddblocal healthcheck` as the Dockerfile's
// HEALTHCHECK does: with only DDBLOCAL_PORT set, and with --endpoint.
func TestBinaryHealthcheck(t *testing.T) {
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	tests := []struct {
		name string
		env  []string
		args []string
	}{
		{"endpoint", nil, []string{"healthcheck", "--endpoint", p.URL}},
		{"DDBLOCAL_PORT, empty environment otherwise", []string{"DDBLOCAL_PORT=" + p.Port}, []string{"healthcheck"}},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCommand(t, tt.env, tt.args...)
		if code != 0 || !strings.HasPrefix(stdout, "healthy: ") {
			t.Errorf("%s: got exit %d, stdout %q, stderr %q; want 0, healthy", tt.name, code, stdout, stderr)
		}
	}
	// Over HTTPS, as the image's HEALTHCHECK runs when DDBLOCAL_TLS_* is set.
	tp := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0", "--tls-self-signed")
	code, stdout, stderr := runCommand(t, []string{"DDBLOCAL_PORT=" + tp.Port, "DDBLOCAL_TLS_SELF_SIGNED=true"}, "healthcheck")
	if code != 0 || stdout != "healthy: https://localhost:"+tp.Port+"\n" {
		t.Errorf("TLS: got exit %d, stdout %q, stderr %q; want 0, healthy over https", code, stdout, stderr)
	}
	tp.stopOK()
	p.stopOK()
	code, _, stderr = runCommand(t, nil, "healthcheck", "--endpoint", p.URL, "--timeout", "2s")
	if code != 1 || !strings.Contains(stderr, "connection refused") {
		t.Errorf("stopped server: got exit %d, stderr %q; want 1, connection refused", code, stderr)
	}
}

func TestBinaryVersionHelp(t *testing.T) {
	code, stdout, _ := runCommand(t, nil, "version")
	if code != 0 || !regexp.MustCompile(`^ddblocal \S+.* \(go1\.\d+`).MatchString(stdout) {
		t.Errorf("version: got exit %d, %q", code, stdout)
	}
	code, _, stderr := runCommand(t, nil, "--help")
	if code != 0 {
		t.Errorf("--help: got exit %d, want 0", code)
	}
	for _, want := range []string{"ddblocal export", "ddblocal import", "ddblocal init", "ddblocal healthcheck", "ddblocal version",
		"-init value", "-init-region", "-port", "-in-memory", "-eventual-lag"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--help lacks %q:\n%s", want, stderr)
		}
	}
	for _, cmd := range []string{"export", "import", "init", "healthcheck"} {
		if code, _, stderr := runCommand(t, nil, cmd, "--help"); code != 0 || !strings.Contains(stderr, "-endpoint") {
			t.Errorf("%s --help: got exit %d, %q", cmd, code, stderr)
		}
	}
	if code, _, stderr := runCommand(t, nil, "frobnicate"); code != 1 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: got exit %d, %q", code, stderr)
	}
}

// TestBinaryInit starts a persistent server with --init, then with
// DDBLOCAL_INIT (the second start finds the tables and changes nothing), then with a definition that
// conflicts with the stored table.
func TestBinaryInit(t *testing.T) {
	fixtures, err := filepath.Abs("../fixtures/testdata/sam")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for round := range 2 {
		// The second start names the folder in DDBLOCAL_INIT instead.
		env, args := []string(nil), []string{"--port", "0", "--init", fixtures}
		if round == 1 {
			env, args = testEnv(t, "DDBLOCAL_INIT="+fixtures), args[:2]
		}
		p := startBinary(t, dir, env, args...)
		c := p.client()
		out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := out.TableNames, []string{"ddblocal-events-test", "users-test"}; !slices.Equal(got, want) {
			t.Errorf("start %d: got tables %v, want %v", round+1, got, want)
		}
		scan, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("users-test")})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := scan.Count, int32(2); got != want {
			t.Errorf("start %d: got %d users, want %d", round+1, got, want)
		}
		p.stopOK()
	}
	conflict := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(conflict, []byte(`{"TableName": "users-test",
  "AttributeDefinitions": [{"AttributeName": "userId", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "userId", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCommand(t, testEnv(t, "DDBLOCAL_DB_PATH="+filepath.Join(dir, "ddblocal.db")), "--port", "0", "--init", conflict)
	want := conflict + ":1: table users-test exists with a different definition: key schema is userId S HASH, the definition says userId N HASH"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("conflict: got exit %d, stderr %q; want 1, %q", code, stderr, want)
	}
}

// TestBinaryInitCommand loads fixtures into a running server with
// `ddblocal init`, twice (the second changes nothing), then reports a bad
// item line by file and line.
func TestBinaryInitCommand(t *testing.T) {
	p := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	for round := range 2 {
		code, stdout, stderr := runCommand(t, nil, "init", "--endpoint", p.URL, "../fixtures/testdata/cli")
		if code != 0 || stdout != "loaded 1 path(s)\n" {
			t.Fatalf("init %d: got exit %d, %q, %q", round+1, code, stdout, stderr)
		}
		out, err := p.client().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("Sessions")})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := out.Count, int32(2); got != want {
			t.Errorf("init %d: got %d items, want %d", round+1, got, want)
		}
	}
	bad := filepath.Join(t.TempDir(), "Sessions.jsonl")
	if err := os.WriteFile(bad, []byte("{\"sid\":\"s9\"}\n{\"sid\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCommand(t, nil, "init", "--endpoint", p.URL, bad)
	if want := bad + ":2: not a JSON object"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("bad line: got exit %d, %q; want 1, %q", code, stderr, want)
	}
}

// TestBinaryExportImport exports a table with the binary and imports the
// file into another server: the tables are equal.
func TestBinaryExportImport(t *testing.T) {
	a := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	b := startBinary(t, t.TempDir(), nil, "--in-memory", "--port", "0")
	ctx := context.Background()
	ca, cb := a.client(), b.client()
	createTable(t, ca, "Things", true)
	createTable(t, cb, "Things", true)
	for i := range 300 {
		item := map[string]types.AttributeValue{"pk": s(string(rune('a' + i%7))), "sk": s(time.Duration(i).String()),
			"n": n("1.5e" + string(rune('0'+i%10))), "b": &types.AttributeValueMemberB{Value: []byte{byte(i), 0}},
			"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberNULL{Value: true}}}}},
			"ss": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}, "ns": &types.AttributeValueMemberNS{Value: []string{"1", "2"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}}}
		if _, err := ca.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Things"), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "Things.jsonl")
	code, _, stderr := runCommand(t, nil, "export", "--endpoint", a.URL, "--table", "Things", "--out", file, "--segments", "3")
	if code != 0 || !strings.Contains(stderr, "exported 300/300 items") {
		t.Fatalf("export: got exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCommand(t, nil, "import", "--endpoint", b.URL, file)
	if code != 0 || !strings.Contains(stderr, "imported 300/300 items") {
		t.Fatalf("import: got exit %d, stderr %q", code, stderr)
	}
	want, got := exportLines(t, a.URL), exportLines(t, b.URL)
	if len(want) != 300 || !slices.Equal(got, want) {
		t.Errorf("after export and import: got %d lines, want the %d exported", len(got), len(want))
	}
}

// exportLines exports Things from url to stdout and returns the lines sorted.
func exportLines(t *testing.T, url string) []string {
	t.Helper()
	code, stdout, stderr := runCommand(t, nil, "export", "--endpoint", url, "--table", "Things")
	if code != 0 {
		t.Fatalf("export: got exit %d, %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	slices.Sort(lines)
	return lines
}
