package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"
)

// config holds everything the command line decides.
type config struct {
	endpoint      string
	region        string
	table         string
	concurrency   int
	duration      time.Duration
	items         int
	partitionSize int
	valueSize     int
	pid           int
	ceiling       bool
	cpuProfile    string
	stream        string // setup's table gets a stream of this view type ("" = none)
	workloads     []string
	servers       serverFlags   // comparison mode: servers started and measured in turn
	rounds        int           // comparison mode: rounds over all servers
	idle          time.Duration // comparison mode: wait after start before reading idle RSS
}

// workloadNames lists the accepted WORKLOAD arguments in the order of the usage text.
var workloadNames = []string{"setup", "put", "get", "query", "scan", "batchwrite", "mixed", "ceiling"}

const usageText = `usage: go run ./bench [flags] WORKLOAD...
WORKLOAD: setup | put | get | query | scan | batchwrite | mixed | ceiling
Workloads run one after another in the order given; -ceiling appends a run of the
ceiling workload (a trivial net/http handler answering {}, run as a child process so
its CPU per request is reported like the server's) with the same -c and -d.

Comparison mode: two or more -server flags start each server in turn, on a free
port with a fresh directory, for -rounds rounds (the order rotates every round),
run the workloads against it, kill it, and print per metric the median and range
over the rounds and each round's ratio to the first server, paired by round:
  go run ./bench -rounds 5 -ceiling \
    -server 'before=/tmp/ddblocal-old -in-memory' \
    -server 'after=./ddblocal -in-memory' setup get put query scan
{port} and {dir} in a -server command line become the port and the directory;
"-port {port}" is appended when {port} is absent.
flags:
`

// parseConfig reads flags and workload names from args (without the program name).
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.endpoint, "endpoint", "http://localhost:8000", "DynamoDB endpoint URL")
	fs.StringVar(&c.region, "region", "us-east-1", "region used for SigV4 signing")
	fs.StringVar(&c.table, "table", "bench", "table name")
	fs.IntVar(&c.concurrency, "c", 16, "concurrent workers (and idle connections kept)")
	fs.DurationVar(&c.duration, "d", 10*time.Second, "duration of each timed workload")
	fs.IntVar(&c.items, "items", 20000, "items loaded by setup (and assumed by the other workloads)")
	fs.IntVar(&c.partitionSize, "partition-size", 100, "items per partition key")
	fs.IntVar(&c.valueSize, "value-size", 200, "bytes in attribute v")
	fs.IntVar(&c.pid, "pid", 0, "server process ID: report its CPU time per op (utime+stime from /proc/PID/stat, USER_HZ=100) and VmRSS")
	fs.BoolVar(&c.ceiling, "ceiling", false, "after the workloads, run the ceiling workload (GetItem against a trivial handler answering {}, in a child process)")
	fs.StringVar(&c.stream, "stream", "", "setup enables a stream of this view type (KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES) on the table")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file")
	fs.Var(&c.servers, "server", "comparison mode: `NAME=COMMAND [ARG...]` of a server to start and measure (repeat; the first is the reference)")
	fs.IntVar(&c.rounds, "rounds", 5, "comparison mode: rounds over all servers")
	fs.DurationVar(&c.idle, "idle", time.Second, "comparison mode: wait after a server's first answer before reading its idle RSS")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.workloads = fs.Args()
	if c.ceiling && len(c.servers) == 0 {
		c.workloads = append(c.workloads, "ceiling")
	}
	if err := c.validate(); err != nil {
		fs.Usage()
		return c, err
	}
	return c, nil
}

func (c config) validate() error {
	if len(c.workloads) == 0 && (len(c.servers) == 0 || !c.ceiling) {
		return errors.New("no workload given")
	}
	for _, w := range c.workloads {
		if !slices.Contains(workloadNames, w) {
			return fmt.Errorf("unknown workload %q", w)
		}
	}
	switch {
	case c.concurrency < 1:
		return errors.New("-c must be at least 1")
	case c.duration <= 0:
		return errors.New("-d must be positive")
	case c.items < 1:
		return errors.New("-items must be at least 1")
	case c.partitionSize < 1:
		return errors.New("-partition-size must be at least 1")
	case c.valueSize < 0:
		return errors.New("-value-size must not be negative")
	case len(c.servers) == 1:
		return errors.New("a comparison needs at least two -server flags")
	case len(c.servers) > 0 && c.rounds < 1:
		return errors.New("-rounds must be at least 1")
	case len(c.servers) > 0 && slices.Contains(c.workloads, "ceiling"):
		return errors.New("in a comparison, -ceiling adds the ceiling server; it is not a workload")
	}
	return nil
}
