package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
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
	stream        string               // setup's table gets a stream of this view type ("" = none)
	gsi           bool                 // setup's table gets a global secondary index
	serverTables  map[string]tableSpec // comparison mode: a server's own table features
	workloads     []string
	servers       serverFlags   // comparison mode: servers started and measured in turn
	rounds        int           // comparison mode: rounds over all servers
	idle          time.Duration // comparison mode: wait after start before reading idle RSS
	cluster       int           // cluster mode: front-ends to start over one etcd member
	ddblocal      string        // cluster mode: the front-ends' binary
	starts        int           // start mode: rounds of starting each server
	inittrace     bool          // start mode: the servers run with GODEBUG=inittrace=1
}

// workloadNames lists the accepted WORKLOAD arguments in the order of the usage text.
var workloadNames = []string{"setup", "put", "get", "query", "scan", "batchwrite", "mixed", "ceiling", "etcd"}

const usageText = `usage: go run ./bench [flags] WORKLOAD...
WORKLOAD: setup | put | get | query | scan | batchwrite | mixed | ceiling | etcd
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
-server-table NAME=stream:NEW_AND_OLD_IMAGES,gsi gives server NAME's table a stream
and a global index (the same binary twice measures what a feature costs when on).

Cluster mode: -cluster N starts one etcd member (embedded, no fsync, in a child
process) and N front-ends of -ddblocal PATH with --store on it, and runs the
workloads against all of them, worker i sending to front-end i mod N (-endpoint
also takes a comma-separated list); server figures are the front-ends' summed,
the etcd member's CPU is reported beside them, and the etcd workload measures
the member itself with PutItem-sized transactions, each worker on its own keys:
  go run ./bench -cluster 2 -ddblocal ./ddblocal -d 5s setup get put etcd

Start mode: -starts N with one or more -server flags starts each server N times
(rotating), and measures each start: exec to the port accepting a connection and
to the first answered ListTables (polled every 100 µs), the CPU time and minor
page faults to that answer (the server is killed at once and read by wait4), and
with -inittrace the Go runtime's per-package initialisation and ddblocal's own
main-to-listening time. No workload is run. A trivial net/http server to compare
with: go build -o /tmp/trivial ./bench/testdata/trivial
  go run ./bench -starts 15 -inittrace -server 'trivial=/tmp/trivial' \
    -server 'mem=./ddblocal -in-memory' -server 'durable=./ddblocal -db-path {dir}/d.db'
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
	fs.BoolVar(&c.gsi, "gsi", false, "setup creates the table with one global secondary index (gsi1: sk HASH, pk RANGE, projection ALL)")
	c.serverTables = map[string]tableSpec{}
	fs.Func("server-table", "comparison mode: `NAME=FEATURES` the table of server NAME gets instead of -stream and -gsi: a comma list of stream:VIEW and gsi, or none (repeat)", func(v string) error {
		name, spec, err := parseTableSpec(v)
		c.serverTables[name] = spec
		return err
	})
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file")
	fs.Var(&c.servers, "server", "comparison mode: `NAME=COMMAND [ARG...]` of a server to start and measure (repeat; the first is the reference)")
	fs.IntVar(&c.rounds, "rounds", 5, "comparison mode: rounds over all servers")
	fs.DurationVar(&c.idle, "idle", time.Second, "comparison mode: wait after a server's first answer before reading its idle RSS")
	fs.IntVar(&c.cluster, "cluster", 0, "cluster mode: start one etcd member and this many front-ends of -ddblocal on it")
	fs.StringVar(&c.ddblocal, "ddblocal", "", "cluster mode: `PATH` of the ddblocal binary the front-ends run")
	fs.IntVar(&c.starts, "starts", 0, "start mode: start each -server this many times and measure only its start")
	fs.BoolVar(&c.inittrace, "inittrace", false, "start mode: run the servers with GODEBUG=inittrace=1 and report where their package initialisation goes")
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
	if c.starts != 0 || c.inittrace {
		return c.validateStarts()
	}
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
	for name := range c.serverTables {
		if !slices.ContainsFunc(c.servers, func(s serverSpec) bool { return s.name == name }) {
			return fmt.Errorf("-server-table %s: no -server of that name", name)
		}
	}
	return c.validateCluster()
}

// validateStarts checks the flags of start mode.
func (c config) validateStarts() error {
	switch {
	case c.starts < 1:
		return errors.New("-starts must be at least 1 (and -inittrace goes with it)")
	case len(c.servers) == 0:
		return errors.New("-starts needs at least one -server")
	case len(c.workloads) > 0 || c.ceiling || c.cluster > 0:
		return errors.New("-starts runs no workload: no WORKLOAD, -ceiling or -cluster")
	}
	return nil
}

// validateCluster checks the flags of cluster mode.
func (c config) validateCluster() error {
	switch {
	case c.cluster < 0:
		return errors.New("-cluster must not be negative")
	case c.cluster > 0 && c.ddblocal == "":
		return errors.New("-cluster needs -ddblocal PATH")
	case c.cluster > 0 && len(c.servers) > 0:
		return errors.New("-cluster and -server do not go together")
	case c.cluster == 0 && slices.Contains(c.workloads, "etcd"):
		return errors.New("the etcd workload needs -cluster")
	}
	return nil
}

// tableSpec is what setup's table has besides its key: a stream of view
// type stream ("" none) and one global secondary index.
type tableSpec struct {
	stream string
	gsi    bool
}

// tableFor returns the table features of server name: its -server-table,
// else -stream and -gsi.
func (c config) tableFor(name string) tableSpec {
	if spec, ok := c.serverTables[name]; ok {
		return spec
	}
	return tableSpec{stream: c.stream, gsi: c.gsi}
}

// parseTableSpec reads a -server-table value: NAME=FEATURES.
func parseTableSpec(v string) (string, tableSpec, error) {
	name, features, ok := strings.Cut(v, "=")
	var spec tableSpec
	if !ok || name == "" {
		return name, spec, fmt.Errorf("-server-table %q: want NAME=FEATURES", v)
	}
	for _, f := range strings.Split(features, ",") {
		switch view, isStream := strings.CutPrefix(f, "stream:"); {
		case f == "gsi":
			spec.gsi = true
		case f == "none":
		case isStream && view != "":
			spec.stream = view
		default:
			return name, spec, fmt.Errorf("-server-table %q: unknown feature %q (want stream:VIEW, gsi or none)", v, f)
		}
	}
	return name, spec, nil
}
