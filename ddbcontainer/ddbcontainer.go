// Package ddbcontainer starts ddblocal's container image through
// Testcontainers (github.com/testcontainers/testcontainers-go), for test
// suites that already manage their dependencies as containers. Go tests
// that need nothing else are faster with ddbtest, which runs the server in
// the test process.
//
// It is a module of its own so that testcontainers-go and the Docker
// client it brings stay out of ddblocal's module graph: a project that
// imports ddbtest or builds the server does not download them.
package ddbcontainer

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Port is the port the image serves on.
const Port = "8000/tcp"

// Container is a running ddblocal container.
type Container struct {
	*testcontainers.DockerContainer
}

// Run starts image (built from ddblocal's Dockerfile, e.g. "ddblocal:latest")
// and returns once GET /_ddblocal/health answers 200 on its mapped port.
// opts are testcontainers-go's customizers and this package's With
// functions, applied in order. The caller terminates the container
// (testcontainers.CleanupContainer(t, c) in a test). On error the returned
// Container may be non-nil and must then be terminated too.
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	all := append([]testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(Port),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/_ddblocal/health").WithPort(Port)),
	}, opts...)
	c, err := testcontainers.Run(ctx, image, all...)
	if c == nil {
		return nil, err
	}
	if err != nil {
		return &Container{c}, fmt.Errorf("ddbcontainer: %w", err)
	}
	return &Container{c}, nil
}

// WithInMemory makes the server keep nothing after it stops (--in-memory)
// instead of persisting to the image's /data volume.
func WithInMemory() testcontainers.CustomizeRequestOption {
	return testcontainers.WithCmd("--in-memory")
}

// WithInit creates tables and loads items from the folder hostDir
// (CloudFormation or SAM templates, CreateTable JSON, .jsonl items) before
// the server answers: its files are copied into the container under /init
// (copies, not a bind mount, so a remote engine works too) and
// DDBLOCAL_INIT names it. A folder that cannot be read fails Run.
func WithInit(hostDir string) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		var files []testcontainers.ContainerFile
		err := filepath.WalkDir(hostDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, err := filepath.Rel(hostDir, p)
			files = append(files, testcontainers.ContainerFile{HostFilePath: p,
				ContainerFilePath: path.Join(initDir, filepath.ToSlash(rel)), FileMode: 0o644})
			return err
		})
		if err != nil {
			return fmt.Errorf("ddbcontainer: init folder: %w", err)
		}
		if err := testcontainers.WithFiles(files...)(req); err != nil {
			return err
		}
		return testcontainers.WithEnv(map[string]string{"DDBLOCAL_INIT": initDir})(req)
	}
}

// initDir is where WithInit puts its files in the container.
const initDir = "/init"

// URL returns the server's URL as seen from the test's host, e.g.
// "http://localhost:32771".
func (c *Container) URL(ctx context.Context) (string, error) {
	return c.PortEndpoint(ctx, Port, "http")
}

// Client returns a DynamoDB client for the container, in region
// us-east-1 with dummy credentials (any are accepted unless the server runs
// with --credentials), changed by fns. Its HTTP client, the SDK's or one
// fns gave, sends request bodies that only Read and Close (readOnlyBodies),
// so the SDK's early close of a body cannot drop a connection under a
// response on a loaded machine (a warning or a retried "use of closed
// network connection").
func (c *Container) Client(ctx context.Context, fns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	endpoint, err := c.URL(ctx)
	if err != nil {
		return nil, err
	}
	return newClient(endpoint, fns), nil
}

// newClient is Client's client for endpoint.
func newClient(endpoint string, fns []func(*dynamodb.Options)) *dynamodb.Client {
	fns = append(fns[:len(fns):len(fns)], func(o *dynamodb.Options) { o.HTTPClient = readOnly(o.HTTPClient) })
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, fns...)
}
