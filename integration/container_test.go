package integration

// The container image, built from the repository's Dockerfile with podman
// (runc; nothing pulled: BINARY=prebuilt) and checked through the SDK as
// users run it: a non-root server on a mapped port, data kept in a named
// volume across stop/start and a new container, the image's HEALTHCHECK,
// a clean SIGTERM, --in-memory, DDBLOCAL_* variables and --init from a
// mounted folder; then the ddbcontainer module's tests through podman's
// Docker-compatible socket. .ci/run installs podman and runc; without them
// the test is skipped, and fails when DDBLOCAL_CI=1.

import (
	"context"
	"debug/elf"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxImageBytes is the size the image must stay under (issue 29).
const maxImageBytes = 30_000_000

// stopGrace is the grace period given to `podman stop` before SIGKILL.
const stopGrace = 10

// engine runs podman with a configuration of its own: runc (crun fails on
// some kernels' cgroup layout) and file limits a container may set where
// the engine's defaults exceed the machine's.
type engine struct {
	conf string // CONTAINERS_CONF
	name string // prefix of every container, volume and image this test makes
}

func newEngine(t *testing.T) *engine {
	_, err := exec.LookPath("podman")
	needRuntime(t, "podman", "apt-get install podman runc", err == nil)
	_, err = exec.LookPath("runc")
	needRuntime(t, "runc", "apt-get install runc", err == nil)
	e := &engine{conf: filepath.Join(t.TempDir(), "containers.conf"), name: fmt.Sprintf("ddblocal-it-%d", os.Getpid())}
	conf := "[containers]\ndefault_ulimits = [\"nofile=20000:20000\", \"nproc=4096:4096\"]\n[engine]\nruntime = \"runc\"\n"
	if err := os.WriteFile(e.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// run runs podman and returns its trimmed standard output.
func (e *engine) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "podman", args...)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+e.conf)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("podman %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// must runs podman and fails the test if it fails.
func (e *engine) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := e.run(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// logs returns a container's output (the server logs to stderr).
func (e *engine) logs(name string) string {
	cmd := exec.Command("podman", "logs", name)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+e.conf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("podman logs %s: %v\n%s", name, err, out)
	}
	return string(out)
}

// cleanup removes, at the end of t, what rmArgs names.
func (e *engine) cleanup(t *testing.T, rmArgs ...string) {
	t.Cleanup(func() { _, _ = e.run(rmArgs...) })
}

// buildContext lays out the Dockerfile's BINARY=prebuilt context: the
// repository's Dockerfile, and prebuilt/linux-ARCH/ per architecture with
// the static binary, container/passwd and group, the host's CA bundle
// (Debian's ca-certificates) and the empty data and tmp folders.
func buildContext(t *testing.T, bins map[string]string) string {
	ctx := t.TempDir()
	copies := map[string]string{"Dockerfile": "../Dockerfile"}
	for arch, bin := range bins {
		dir := "prebuilt/linux-" + arch + "/"
		for _, sub := range []string{"root/etc/ssl/certs", "owned/data", "owned/tmp"} {
			if err := os.MkdirAll(filepath.Join(ctx, dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		copies[dir+"root/ddblocal"] = bin
		copies[dir+"root/etc/passwd"] = "../container/passwd"
		copies[dir+"root/etc/group"] = "../container/group"
		copies[dir+"root/etc/ssl/certs/ca-certificates.crt"] = "/etc/ssl/certs/ca-certificates.crt"
	}
	for dst, src := range copies {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(dst, "/ddblocal") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(ctx, dst), data, mode); err != nil {
			t.Fatal(err)
		}
	}
	return ctx
}

// crossBinary builds the server for linux/arch into dir as binaryPath
// builds it.
func crossBinary(dir, arch string) (string, error) {
	out := filepath.Join(dir, "ddblocal-"+arch)
	cmd := exec.Command("go", "build", "-tags", "grpcnotrace", "-trimpath", "-ldflags", "-s -w", "-o", out, ".")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build for linux/%s: %v\n%s", arch, err, b)
	}
	return out, nil
}

// elfMachine is the architecture a binary was built for, in GOARCH terms.
func elfMachine(t *testing.T, path string) string {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
}

func TestContainerImage(t *testing.T) {
	if signedPass() {
		t.Skip("the container checks run once, in the unsigned pass")
	}
	t.Parallel()
	e := newEngine(t)
	native := runtime.GOARCH
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[native]
	if other == "" {
		t.Skipf("images are built for amd64 and arm64; this machine is %s", native)
	}
	start := time.Now()
	// The other architecture's binary is a full cross-compilation (minutes
	// on a loaded machine with a cold cache): it runs while the native
	// image is built and checked, and its image is built and checked
	// beside the other checks.
	type built struct {
		bin string
		err error
	}
	cross, compiled := make(chan built, 1), make(chan struct{})
	crossDir := t.TempDir()
	t.Cleanup(func() { <-compiled }) // before crossDir is removed
	go func() {
		defer close(compiled)
		bin, err := crossBinary(crossDir, other)
		cross <- built{bin, err}
	}()
	img := "localhost/" + e.name + ":" + native
	// Every image the builds make, intermediate ones included, carries the
	// label, so that they can all be removed at the end.
	label := "ddblocal.integration=" + e.name
	t.Cleanup(func() {
		if ids, err := e.run("images", "-a", "-q", "--filter", "label="+label); err == nil && ids != "" {
			_, _ = e.run(append([]string{"rmi", "-f"}, strings.Fields(ids)...)...)
		}
	})
	buildImage(t, e, label, native, binaryPath(t))
	checkImageConfig(t, e, img)
	// The checks share nothing but the image, and mostly wait on podman.
	checks := map[string]func(*testing.T, *engine, string){"volume": testContainerVolume,
		"memory-env-init": testContainerMemoryEnvInit, "examples": testContainerExamples, "testcontainers": testContainerModule}
	t.Run("checks", func(t *testing.T) {
		for name, check := range checks {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				check(t, e, img)
			})
		}
		t.Run("linux-"+other, func(t *testing.T) {
			t.Parallel()
			b := <-cross
			if b.err != nil {
				t.Fatal(b.err)
			}
			t.Logf("cross-compiled linux/%s in %s", other, time.Since(start).Round(time.Millisecond))
			buildImage(t, e, label, other, b.bin)
		})
	})
	t.Logf("container checks took %s", time.Since(start).Round(time.Millisecond))
}

// buildImage builds the image for linux/arch from bin (BINARY=prebuilt)
// and checks the binary's and the image's architecture.
func buildImage(t *testing.T, e *engine, label, arch, bin string) {
	if got := elfMachine(t, bin); got != arch {
		t.Fatalf("the %s binary is built for %q", arch, got)
	}
	tag := "localhost/" + e.name + ":" + arch
	began := time.Now()
	e.must(t, "build", "--format", "docker", "--label", label, "--build-arg", "BINARY=prebuilt", "--platform", "linux/"+arch,
		"-t", tag, buildContext(t, map[string]string{arch: bin}))
	if got := e.must(t, "image", "inspect", "--format", "{{.Architecture}}", tag); got != arch {
		t.Fatalf("image %s: architecture %q, want %q", tag, got, arch)
	}
	t.Logf("built linux/%s in %s", arch, time.Since(began).Round(time.Millisecond))
}

// checkImageConfig checks the image's size, user and HEALTHCHECK.
func checkImageConfig(t *testing.T, e *engine, img string) {
	size, err := strconv.ParseInt(e.must(t, "image", "inspect", "--format", "{{.Size}}", img), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("image size: %d bytes (%.1f MB)", size, float64(size)/1e6)
	if size >= maxImageBytes {
		t.Errorf("image is %d bytes, want under %d", size, maxImageBytes)
	}
	if got := e.must(t, "image", "inspect", "--format", "{{.Config.User}}", img); got != "65532:65532" {
		t.Errorf("image user %q, want 65532:65532", got)
	}
	if got := e.must(t, "image", "inspect", "--format", "{{.Config.Healthcheck.Test}}", img); got != "[CMD /ddblocal healthcheck]" {
		t.Errorf("image HEALTHCHECK %q, want [CMD /ddblocal healthcheck] (built without --format docker?)", got)
	}
}

// container is one running container of the test.
type container struct {
	e    *engine
	name string
	port string // the container port that is published
}

// runContainer starts a container publishing port on a free loopback port
// of the host, with extra options before the image and args after it.
func runContainer(t *testing.T, e *engine, name, port string, opts []string, img string, args ...string) *container {
	c := &container{e: e, name: e.name + "-" + name, port: port}
	e.cleanup(t, "rm", "-f", "-v", "-t", "0", c.name)
	all := append([]string{"run", "-d", "--name", c.name, "-p", "127.0.0.1::" + port}, opts...)
	e.must(t, append(append(all, img), args...)...)
	c.waitHealthy(t)
	return c
}

// url is the server's address on the host (it may change on restart).
func (c *container) url(t *testing.T) string {
	hostPort := c.e.must(t, "port", c.name, c.port)
	if _, _, err := net.SplitHostPort(hostPort); err != nil {
		t.Fatalf("podman port %s %s: %q", c.name, c.port, hostPort)
	}
	return "http://" + hostPort
}

// waitHealthy runs the image's HEALTHCHECK until it passes (podman runs
// health checks from systemd timers, which a CI machine may not have, so
// the test runs them itself).
func (c *container) waitHealthy(t *testing.T) {
	deadline := time.Now().Add(listenTimeout)
	for {
		_, err := c.e.run("healthcheck", "run", c.name)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became healthy: %v\nlogs:\n%s", c.name, err, c.e.logs(c.name))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// client is an SDK client for the container.
func (c *container) client(t *testing.T) *dynamodb.Client {
	return (&server{URL: c.url(t)}).client("us-east-1")
}

// stop sends SIGTERM (podman stop) and checks the server exits 0 within
// the grace period, logging its shutdown.
func (c *container) stop(t *testing.T) {
	began := time.Now()
	c.e.must(t, "stop", "-t", strconv.Itoa(stopGrace), c.name)
	took := time.Since(began)
	code := c.e.must(t, "inspect", "--format", "{{.State.ExitCode}}", c.name)
	logs := c.e.logs(c.name)
	if code != "0" || took >= stopGrace*time.Second || !strings.Contains(logs, "shutting down") {
		t.Fatalf("podman stop: exit code %s after %s (grace %ds), want 0 and a clean shutdown; logs:\n%s", code, took, stopGrace, logs)
	}
	t.Logf("%s stopped on SIGTERM in %s", c.name, took.Round(time.Millisecond))
}

// stopWhileWriting puts items (keys prefix00000, prefix00001, ...) one
// after another and stops the container (SIGTERM, as stop checks) while
// they arrive; it returns the keys whose writes were acknowledged, all of
// which the server must keep.
func (c *container) stopWhileWriting(t *testing.T, db *dynamodb.Client, prefix string) []string {
	var acked []string
	var werr error
	writing, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			key := fmt.Sprintf("%s%05d", prefix, i)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, werr = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Users"),
				Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: key}}})
			cancel()
			if werr != nil {
				return
			}
			acked = append(acked, key)
			if i == 9 {
				close(writing)
			}
		}
	}()
	select {
	case <-writing:
	case <-done:
		t.Fatalf("writes failed before the stop: %v", werr)
	}
	c.stop(t)
	<-done
	if len(acked) <= 10 {
		t.Fatalf("no write was acknowledged between the first ten and the stop (%v): the stop did not meet writes in flight", werr)
	}
	return acked
}

// start starts a stopped container again and waits until it is healthy.
func (c *container) start(t *testing.T) {
	c.e.must(t, "start", c.name)
	c.waitHealthy(t)
}

// uid is the user id the container's server process runs as on the host.
func (c *container) uid(t *testing.T) string {
	pid := c.e.must(t, "inspect", "--format", "{{.State.Pid}}", c.name)
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			return f[1]
		}
	}
	t.Fatalf("no Uid in /proc/%s/status", pid)
	return ""
}

const containerItems = 50

// putUsers creates table Users (when create is set) and puts n items.
func putUsers(t *testing.T, db *dynamodb.Client, create bool, prefix string, n int) {
	ctx := context.Background()
	if create {
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("Users"), BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Users"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("%s%03d", prefix, i)}}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// countUsers returns how many items table Users holds whose key starts
// with prefix (strongly consistent).
func countUsers(t *testing.T, db *dynamodb.Client, prefix string) int {
	out, err := db.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("Users"), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("begins_with(pk, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: prefix}}})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

// usersWithPrefix returns the keys of table Users that start with prefix
// (a strongly consistent scan, every page).
func usersWithPrefix(t *testing.T, db *dynamodb.Client, prefix string) map[string]bool {
	keys := map[string]bool{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String("Users"), ConsistentRead: aws.Bool(true),
		FilterExpression:          aws.String("begins_with(pk, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: prefix}}})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range out.Items {
			if k, ok := item["pk"].(*types.AttributeValueMemberS); ok {
				keys[k.Value] = true
			}
		}
	}
	return keys
}

func testContainerVolume(t *testing.T, e *engine, img string) {
	vol := e.name + "-data"
	e.cleanup(t, "volume", "rm", "-f", vol)
	e.must(t, "volume", "create", vol)
	c := runContainer(t, e, "vol-1", "8000", []string{"-v", vol + ":/data"}, img)
	if uid := c.uid(t); uid != "65532" {
		t.Errorf("the server runs as uid %s, want 65532 (non-root)", uid)
	}
	putUsers(t, c.client(t), true, "u", containerItems)
	acked := c.stopWhileWriting(t, c.client(t), "w")
	c.start(t)
	if got := countUsers(t, c.client(t), "u"); got != containerItems {
		t.Fatalf("after stop and start: %d items, want %d", got, containerItems)
	}
	kept := usersWithPrefix(t, c.client(t), "w")
	for _, k := range acked {
		if !kept[k] {
			t.Fatalf("item %s, acknowledged before SIGTERM stopped the server, is lost (%d of %d acknowledged writes kept)",
				k, len(kept), len(acked))
		}
	}
	t.Logf("all %d writes acknowledged while the container stopped were kept", len(acked))
	putUsers(t, c.client(t), false, "v", containerItems)
	c.stop(t)
	c2 := runContainer(t, e, "vol-2", "8000", []string{"-v", vol + ":/data"}, img)
	db := c2.client(t)
	if got := countUsers(t, db, "u") + countUsers(t, db, "v"); got != 2*containerItems {
		t.Fatalf("a new container on the volume: %d items, want %d", got, 2*containerItems)
	}
	c2.stop(t)
}

func testContainerMemoryEnvInit(t *testing.T, e *engine, img string) {
	dir := t.TempDir()
	def := `{"TableName":"Users","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`
	for name, data := range map[string]string{"users.json": def, "Users.jsonl": `{"pk":"seed1"}` + "\n" + `{"pk":"seed2"}` + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil { // readable by the container's user
		t.Fatal(err)
	}
	opts := []string{"-v", dir + ":/init:ro", "-e", "DDBLOCAL_INIT=/init", "-e", "DDBLOCAL_PORT=9000"}
	c := runContainer(t, e, "mem", "9000", opts, img, "--in-memory") // healthy: the check followed DDBLOCAL_PORT
	db := c.client(t)
	if got := countUsers(t, db, "seed"); got != 2 {
		t.Fatalf("--init from the mounted folder: %d seeded items, want 2", got)
	}
	putUsers(t, db, false, "mem", 3)
	c.stop(t)
	checkBadEnv(t, e, img)
	c.start(t)
	db = c.client(t)
	if seeded, written := countUsers(t, db, "seed"), countUsers(t, db, "mem"); seeded != 2 || written != 0 {
		t.Fatalf("--in-memory after a restart: %d seeded and %d written items, want 2 (seeded again) and 0", seeded, written)
	}
	c.stop(t)
}

// checkBadEnv checks that a container given a variable the server cannot
// read exits 1 at once, naming it, instead of serving on a default.
func checkBadEnv(t *testing.T, e *engine, img string) {
	name := e.name + "-badenv"
	e.cleanup(t, "rm", "-f", "-v", "-t", "0", name)
	_, err := e.run("run", "--name", name, "-e", "DDBLOCAL_PORT=80OO", img, "--in-memory")
	code := e.must(t, "inspect", "--format", "{{.State.ExitCode}}", name)
	want := `invalid DDBLOCAL_PORT "80OO": want a whole number from 0 to 65535`
	if logs := e.logs(name); err == nil || code != "1" || !strings.Contains(logs, want) {
		t.Errorf("DDBLOCAL_PORT=80OO: exit code %s (%v), logs:\n%s\nwant exit code 1 and %q", code, err, logs, want)
	}
}

// testContainerModule runs the ddbcontainer module's tests (a module of
// its own, so `go test ./...` here does not reach it) against podman's
// Docker-compatible API. Testcontainers' reaper container (ryuk) would be
// pulled from a registry: it is turned off, and the test removes its
// container itself.
func testContainerModule(t *testing.T, e *engine, img string) {
	sock := filepath.Join(t.TempDir(), "podman.sock")
	ctx, cancel := context.WithCancel(context.Background())
	svc := exec.CommandContext(ctx, "podman", "system", "service", "--time=0", "unix://"+sock)
	svc.Env = append(os.Environ(), "CONTAINERS_CONF="+e.conf)
	var svcLog strings.Builder
	svc.Stderr = &svcLog
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = svc.Wait() })
	deadline := time.Now().Add(listenTimeout)
	for {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("podman system service did not listen on %s:\n%s", sock, svcLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	began := time.Now()
	cmd := exec.Command("go", "test", "-count=1", "./...")
	cmd.Dir = filepath.Join("..", "ddbcontainer")
	cmd.Env = append(os.Environ(), "DOCKER_HOST=unix://"+sock, "TESTCONTAINERS_RYUK_DISABLED=true",
		"DDBCONTAINER_IMAGE="+img, "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in ddbcontainer: %v\n%s", err, out)
	}
	t.Logf("ddbcontainer's tests passed through the podman socket in %s", time.Since(began).Round(time.Millisecond))
}
