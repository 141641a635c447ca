package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"

	"github.com/ddblocal/ddblocal/sdkhttp"
)

// command is one subcommand of the binary: `ddblocal NAME ARGS...`.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error
}

// commands lists the subcommands; with none, the binary serves (run).
func commands() map[string]command {
	return map[string]command{
		"export":      {"write a table as DynamoDB-JSON lines", runExport},
		"import":      {"load DynamoDB-JSON lines into a table with BatchWriteItem", runImport},
		"init":        {"create tables and load items from --init files into a running server", runInit},
		"mcp":         {"serve MCP tools for coding agents over stdio (docs/mcp.md)", runMCP},
		"healthcheck": {"exit 0 when a server answers (the Docker HEALTHCHECK)", runHealthcheck},
		"version":     {"print the version and exit", runVersion},
	}
}

// dispatch runs the subcommand named by args[0], or serves when args[0] is
// a flag or absent.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		if c, ok := commands()[args[0]]; ok {
			err := c.run(ctx, args[1:], getenv, stdout, stderr)
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if args[0] == "help" {
			return run(ctx, []string{"--help"}, getenv, stderr)
		}
		return fmt.Errorf("unknown command %q (see ddblocal --help)", args[0])
	}
	return run(ctx, args, getenv, stderr)
}

// usageCommands is the subcommand part of `ddblocal --help`.
func usageCommands(w io.Writer) {
	fmt.Fprintf(w, "Usage:\n  ddblocal [flags]              serve DynamoDB's API (default :8000)\n")
	cs := commands()
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  ddblocal %-20s %s\n", n+" [flags]", cs[n].summary)
	}
	fmt.Fprintf(w, "\nRun `ddblocal COMMAND --help` for a command's flags.\n\nFlags of the server:\n")
}

// The helpers every subcommand shares.

// parseSubcommand parses a subcommand's flags, refusing stray arguments.
func parseSubcommand(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// endpointFlags are the flags export and import share to reach an endpoint.
type endpointFlags struct {
	endpoint, region string
	// logger, when set, takes the SDK's log lines (a progress bar clears
	// its line for them); nil leaves the SDK's default, standard error.
	logger logging.Logger
}

// endpointCommand makes the flag set of a subcommand that reaches an
// endpoint; a non-empty usage line replaces the default usage header.
func endpointCommand(name, usage string, getenv func(string) string, stderr io.Writer) (*flag.FlagSet, *endpointFlags) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprintln(stderr, usage)
			fs.PrintDefaults()
		}
	}
	ep := &endpointFlags{}
	ep.register(fs, getenv)
	return fs, ep
}

func (e *endpointFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&e.endpoint, "endpoint", getenv("AWS_ENDPOINT_URL_DYNAMODB"), "DynamoDB endpoint, e.g. http://localhost:8000; empty means AWS itself [AWS_ENDPOINT_URL_DYNAMODB]")
	fs.StringVar(&e.region, "region", "", "AWS region (default from the AWS config, else us-east-1)")
}

// client builds an SDK client the way the AWS CLI would: the default
// credential chain and region. Against a loopback endpoint with no access
// key in the environment it signs with dummy credentials, which ddblocal
// accepts, so a fresh machine needs no AWS setup.
func (e *endpointFlags) client(ctx context.Context, getenv func(string) string) (*dynamodb.Client, error) {
	var opts []func(*awsconfig.LoadOptions) error
	if e.region != "" {
		opts = append(opts, awsconfig.WithRegion(e.region))
	}
	if isLoopback(e.endpoint) && getenv("AWS_ACCESS_KEY_ID") == "" && getenv("AWS_PROFILE") == "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if e.endpoint != "" {
			o.BaseEndpoint = aws.String(e.endpoint)
		}
		o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient)
		if e.logger != nil {
			o.Logger = e.logger
		}
	}), nil
}

// isLoopback reports whether endpoint names this machine.
func isLoopback(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
