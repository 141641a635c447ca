package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ddblocal/ddblocal/fixtures"
)

// runInit loads --init files into a running server (or DynamoDB itself):
// the same loader as --init and ddbtest.WithInit, through the SDK.
func runInit(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, ep := endpointCommand("ddblocal init", "Usage: ddblocal init [flags] PATH...   (templates, CreateTable JSON, .jsonl files, S3 export folders or folders of them)", getenv, stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("init: want at least one PATH")
	}
	c, err := ep.client(ctx, getenv)
	if err != nil {
		return err
	}
	if err := fixtures.LoadPaths(ctx, c, fs.Args()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loaded %d path(s)\n", fs.NArg())
	return nil
}
