package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
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
