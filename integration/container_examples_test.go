package integration

// The CI recipes in examples/, reproduced: each file is parsed, its
// ddblocal service is started with podman as the file defines it (the
// image name, a placeholder for the user's registry, is replaced by the
// image under test), and the steps that talk to it run against it with the
// file's environment, its endpoint pointed at the mapped port.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"go.yaml.in/yaml/v3"
)

// readYAML decodes an examples/ file into v.
func readYAML(t *testing.T, name string, v any) {
	data, err := os.ReadFile(filepath.Join("..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("examples/%s: %v", name, err)
	}
}

// envList turns a map of variables into KEY=VALUE pairs, with endpoint
// (as written in the file, e.g. "localhost:8000") replaced by hostPort.
func envList(vars map[string]string, endpoint, hostPort string) []string {
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+strings.ReplaceAll(v, endpoint, hostPort))
	}
	return env
}

// runSteps runs the shell steps that mention endpoint, in order, with env
// and endpoint replaced by the container's address; it fails the test when
// none does (the file no longer talks to ddblocal the way this expects).
func runSteps(t *testing.T, c *container, steps []string, endpoint string, env []string) {
	hostPort := strings.TrimPrefix(c.url(t), "http://")
	bin := toolDir(t)
	ran := 0
	for _, step := range steps {
		if !strings.Contains(step, endpoint) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", strings.ReplaceAll(step, endpoint, hostPort))
		cmd.Env = append(testEnv(t, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_PAGER="), env...)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("step %q: %v\n%s", step, err, out)
		}
		ran++
	}
	if ran == 0 {
		t.Fatalf("no step talks to %s", endpoint)
	}
}

func testContainerExamples(t *testing.T, e *engine, img string) {
	needRuntime(t, "AWS CLI v2", "apt-get install awscli", awsCLI() != "")
	t.Run("github-actions", func(t *testing.T) { testGitHubActions(t, e, img) })
	t.Run("gitlab-ci", func(t *testing.T) { testGitLabCI(t, e, img) })
	t.Run("compose", func(t *testing.T) { testCompose(t, e, img) })
}

func testGitHubActions(t *testing.T, e *engine, img string) {
	var wf struct {
		Jobs map[string]struct {
			Services map[string]struct {
				Image string
				Ports []string
				Env   map[string]string
			}
			Env   map[string]string
			Steps []struct{ Run string }
		}
	}
	readYAML(t, "github-actions.yml", &wf)
	job := wf.Jobs["test"]
	svc := job.Services["dynamodb"]
	if len(svc.Ports) != 1 || svc.Ports[0] != "8000:8000" {
		t.Fatalf("service dynamodb publishes %q, want [8000:8000] (the steps use localhost:8000)", svc.Ports)
	}
	var opts []string
	for _, kv := range envList(svc.Env, "", "") {
		opts = append(opts, "-e", kv)
	}
	c := runContainer(t, e, "gha", "8000", opts, img)
	var steps []string
	for _, s := range job.Steps {
		steps = append(steps, s.Run)
	}
	runSteps(t, c, steps, "localhost:8000", envList(job.Env, "localhost:8000", strings.TrimPrefix(c.url(t), "http://")))
	if n := len(tableNames(t, c)); n != 1 {
		t.Fatalf("after the workflow's steps: %d tables, want 1", n)
	}
}

func testGitLabCI(t *testing.T, e *engine, img string) {
	var ci map[string]struct {
		Services []struct {
			Alias     string
			Variables map[string]string
		}
		Variables map[string]string
		Script    []string
	}
	readYAML(t, "gitlab-ci.yml", &ci)
	job := ci["test"]
	if len(job.Services) != 1 || job.Services[0].Alias == "" {
		t.Fatalf("job test: services %+v, want one with an alias", job.Services)
	}
	var opts []string
	for _, kv := range envList(job.Services[0].Variables, "", "") {
		opts = append(opts, "-e", kv)
	}
	c := runContainer(t, e, "gitlab", "8000", opts, img)
	endpoint := job.Services[0].Alias + ":8000"
	runSteps(t, c, job.Script, endpoint, envList(job.Variables, endpoint, strings.TrimPrefix(c.url(t), "http://")))
}

func testCompose(t *testing.T, e *engine, img string) {
	type service struct {
		Volumes     []string
		Environment map[string]string
		Ports       []string
		DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
	}
	var f struct{ Services map[string]service }
	readYAML(t, "compose/docker-compose.yml", &f)
	db, app := f.Services["dynamodb"], f.Services["app"]
	if got := app.DependsOn["dynamodb"].Condition; got != "service_healthy" {
		t.Errorf("app depends on dynamodb with condition %q, want service_healthy (the image's HEALTHCHECK)", got)
	}
	if got := app.Environment["AWS_ENDPOINT_URL_DYNAMODB"]; got != "http://dynamodb:8000" {
		t.Errorf("app's AWS_ENDPOINT_URL_DYNAMODB is %q, want http://dynamodb:8000", got)
	}
	vol := e.name + "-compose"
	e.cleanup(t, "volume", "rm", "-f", vol)
	dir, err := filepath.Abs(filepath.Join("..", "examples", "compose"))
	if err != nil {
		t.Fatal(err)
	}
	var opts []string
	for _, v := range db.Volumes {
		src, rest, _ := strings.Cut(v, ":")
		if strings.HasPrefix(src, "./") {
			src = filepath.Join(dir, src)
		} else {
			src = vol
		}
		opts = append(opts, "-v", src+":"+rest)
	}
	for _, kv := range envList(db.Environment, "", "") {
		opts = append(opts, "-e", kv)
	}
	c := runContainer(t, e, "compose", "8000", opts, img)
	if got := countUsers(t, c.client(t), "u#"); got != 2 {
		t.Fatalf("the compose file's dynamodb seeded %d users from ./init, want 2", got)
	}
}

// tableNames lists the container's tables in us-east-1.
func tableNames(t *testing.T, c *container) []string {
	out, err := c.client(t).ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(100)})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}
