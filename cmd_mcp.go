package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ddblocal/ddblocal/mcp"
	"github.com/ddblocal/ddblocal/server"
)

// runMCP serves ddblocal's MCP tools (package mcp) over stdio, or over
// streamable HTTP with --http. Without --endpoint the tools work on an
// in-memory server started in this process, gone when it exits.
func runMCP(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ddblocal mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	endpoint := fs.String("endpoint", getenv("DDBLOCAL_MCP_ENDPOINT"), "a running ddblocal (or DynamoDB-compatible endpoint) the tools use; empty starts an in-memory one [DDBLOCAL_MCP_ENDPOINT]")
	region := fs.String("region", orEnv(getenv("AWS_REGION"), "us-east-1"), "region the tools sign requests for; tables are per region [AWS_REGION]")
	env := newEnvVars(getenv)
	readOnly := env.bool("MCP_READ_ONLY")
	fs.Var(newBoolValue(&readOnly), "read-only", "leave out the tools that write; PartiQL runs SELECT only [DDBLOCAL_MCP_READ_ONLY]")
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	if err := parseSubcommand(fs, args); err != nil {
		return err
	}
	if err := env.err(); err != nil {
		return err
	}
	if err := checkMCPEndpoint(fs, *endpoint); err != nil {
		return err
	}
	url := *endpoint
	if url == "" {
		srv, err := server.Start(ctx, server.Options{InMemory: true, Host: "127.0.0.1"})
		if err != nil {
			return fmt.Errorf("mcp: start the in-memory server: %w", err)
		}
		defer srv.Close()
		url = srv.URL()
		fmt.Fprintf(stderr, "ddblocal mcp: tools use an in-memory server at %s\n", url)
	}
	creds := aws.Credentials{AccessKeyID: orEnv(getenv("AWS_ACCESS_KEY_ID"), "ddblocal"), SecretAccessKey: orEnv(getenv("AWS_SECRET_ACCESS_KEY"), "ddblocal"),
		SessionToken: getenv("AWS_SESSION_TOKEN")}
	s := mcp.New(mcp.Options{Endpoint: &mcp.Endpoint{URL: url, Region: *region, Credentials: creds}, ReadOnly: readOnly, Version: versionString()})
	if *httpAddr != "" {
		return serveMCPHTTP(ctx, s, *httpAddr, stderr)
	}
	err := s.Run(ctx, &sdk.IOTransport{Reader: os.Stdin, Writer: nopWriteCloser{stdout}})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// checkMCPEndpoint refuses an endpoint that is no http(s) URL, naming
// --endpoint, or DDBLOCAL_MCP_ENDPOINT when only the variable gave it.
func checkMCPEndpoint(fs *flag.FlagSet, endpoint string) error {
	if endpoint == "" {
		return nil
	}
	err := checkEndpoint(endpoint)
	if err == nil {
		return nil
	}
	name := "DDBLOCAL_MCP_ENDPOINT"
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "endpoint" {
			name = "--endpoint"
		}
	})
	return fmt.Errorf("invalid %s %q: %v", name, endpoint, err)
}

// serveMCPHTTP serves s over streamable HTTP until ctx ends.
func serveMCPHTTP(ctx context.Context, s *sdk.Server, addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	hs := &http.Server{Handler: h}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	fmt.Fprintf(stderr, "ddblocal mcp: streamable HTTP on http://%s\n", ln.Addr())
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func orEnv(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// nopWriteCloser leaves the command's stdout open when the transport ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
