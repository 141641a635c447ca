// Command bench drives any DynamoDB-compatible endpoint (ddblocal, DynamoDB
// Local, dynalite, ...) with SigV4-signed requests from aws-sdk-go-v2 and
// reports throughput, latency percentiles and, given -pid, the server's CPU
// time per operation and resident memory.
//
//	go run ./bench [flags] WORKLOAD...
//	WORKLOAD: setup | put | get | query | scan | batchwrite | mixed | ceiling | etcd
//
// Run `go run ./bench -h` for the flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch {
	case os.Getenv(serveCeilingEnv) == "1":
		err = serveCeiling(ctx, os.Stdout, ceilingAddr(os.Args))
	case os.Getenv(serveEtcdEnv) == "1" && len(os.Args) == 2:
		err = serveEtcd(ctx, os.Stdout, os.Args[1])
	default:
		err = run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	}
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run parses args and runs the workloads in order, writing one block per
// workload to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	b := &bench{cfg: cfg, out: stdout}
	defer b.close()
	if cfg.starts > 0 {
		return b.starts(ctx)
	}
	if len(cfg.servers) > 0 {
		return b.compare(ctx)
	}
	if cfg.cluster > 0 {
		if b.cluster, err = startCluster(ctx, cfg.cluster, cfg.ddblocal); err != nil {
			return err
		}
		b.cfg.endpoint = b.cluster.urls
		fmt.Fprintf(stdout, "== cluster: etcd member %s (pid %s), front-ends %s (pids %s)\n\n", b.cluster.etcdURL, b.cluster.etcdPID, b.cluster.urls, b.cluster.pids)
	}
	for _, name := range cfg.workloads {
		if err := b.runWorkload(ctx, name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// bench runs workloads against the configured endpoint and, on demand,
// against the ceiling server (a child process).
type bench struct {
	cfg         config
	out         io.Writer
	stopCeiling func()
	ceilingURL  string
	ceilingPID  int
	cluster     *cluster // -cluster's member and front-ends; nil without
}

func (b *bench) close() {
	if b.stopCeiling != nil {
		b.stopCeiling()
	}
	if b.cluster != nil {
		b.cluster.stop()
	}
}

// workersFor returns the workers for endpoint (several, comma-separated,
// are used in turn by the workers), with a fresh seed so that a put after a
// batchwrite in the same run writes different keys.
func (b *bench) workersFor(endpoint string) workers {
	w := workers{
		table: b.cfg.table,
		keys:  keyspace{items: b.cfg.items, partitionSize: b.cfg.partitionSize, valueSize: b.cfg.valueSize},
		seed:  newSeed(),
	}
	for e := range strings.SplitSeq(endpoint, ",") {
		w.clients = append(w.clients, newWireClient(e, b.cfg.region))
	}
	w.client = w.clients[0]
	return w
}

func (b *bench) runWorkload(ctx context.Context, name string) error {
	endpoint, pid := b.cfg.endpoint, ""
	switch {
	case b.cfg.pid > 0:
		pid = strconv.Itoa(b.cfg.pid)
	case b.cluster != nil:
		pid = b.cluster.pids
	}
	if name == "etcd" {
		report(b.out, b.measureEtcd(ctx))
		return nil
	}
	if name == "ceiling" {
		if b.stopCeiling == nil {
			url, cpid, stop, err := startCeiling()
			if err != nil {
				return err
			}
			b.ceilingURL, b.ceilingPID, b.stopCeiling = url, cpid, stop
		}
		// The ceiling server is a child process: report its figures, not
		// those of the server given by -pid.
		endpoint, pid = b.ceilingURL, strconv.Itoa(b.ceilingPID)
	}
	etcd0, etcdErr := b.etcdCPU()
	m, err := b.measureWorkload(ctx, name, endpoint, pid, b.cfg.tableFor(""), b.out)
	if etcd1, err := b.etcdCPU(); etcdErr == nil && err == nil {
		m.etcdCPU = etcd1 - etcd0
	}
	if m.endpoint != "" { // measured, even if it failed
		report(b.out, m)
	}
	return err
}

// measureWorkload runs workload name against endpoint (server process pid,
// "" for none) and returns its figures; setup creates the table as tbl says
// and writes its table line to out.
func (b *bench) measureWorkload(ctx context.Context, name, endpoint, pid string, tbl tableSpec, out io.Writer) (measurement, error) {
	w := b.workersFor(endpoint)
	defer w.close()
	if name != "setup" {
		return measure(ctx, name, endpoint, b.cfg.concurrency, pid, time.Now().Add(b.cfg.duration), w.newOp(name)), nil
	}
	t0 := time.Now()
	first, _, _ := strings.Cut(endpoint, ",")
	if err := recreateTable(ctx, newClient(first, b.cfg.region), b.cfg.table, tbl); err != nil {
		return measurement{name: name, serverCPU: -1, serverRSS: -1, clientCPU: -1, etcdCPU: -1}, err
	}
	fmt.Fprintf(out, "== setup: table %s recreated in %s\n", b.cfg.table, time.Since(t0).Round(time.Millisecond))
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := measure(loadCtx, name, endpoint, b.cfg.concurrency, pid, time.Time{}, w.loadOps(cancel))
	if m.summary.errors > 0 {
		return m, fmt.Errorf("load failed: %w", m.summary.firstErr)
	}
	return m, nil
}

// measure runs one workload and takes the CPU and memory figures around it.
// pid "" means no server figures; the client's own CPU is always read.
func measure(ctx context.Context, name, endpoint string, c int, pid string, deadline time.Time, newOp func(int) op) measurement {
	m := measurement{name: name, endpoint: endpoint, c: c, serverCPU: -1, serverRSS: -1, clientCPU: -1, etcdCPU: -1}
	server0, serverErr := cpuOf(pid)
	client0, clientErr := procCPU("self")
	m.summary = runWorkers(ctx, c, deadline, newOp)
	server1, err := cpuOf(pid)
	if serverErr == nil && err == nil {
		m.serverCPU = server1 - server0
	} else if pid != "" {
		m.procErr = errors.Join(serverErr, err)
	}
	if client1, err := procCPU("self"); clientErr == nil && err == nil {
		m.clientCPU = client1 - client0
	}
	if pid != "" {
		if rss, err := rssOf(pid); err == nil {
			m.serverRSS = rss
		}
	}
	return m
}

// etcdCPU is the cluster's etcd member's CPU time so far; an error without
// a cluster.
func (b *bench) etcdCPU() (time.Duration, error) {
	if b.cluster == nil {
		return 0, errors.New("no cluster")
	}
	return procCPU(b.cluster.etcdPID)
}

// cpuOf is procCPU, failing for the empty pid (no server to watch); pids
// (comma-separated) are summed.
func cpuOf(pids string) (time.Duration, error) {
	if pids == "" {
		return 0, errors.New("no pid")
	}
	var sum time.Duration
	for pid := range strings.SplitSeq(pids, ",") {
		cpu, err := procCPU(pid)
		if err != nil {
			return 0, err
		}
		sum += cpu
	}
	return sum, nil
}

// rssOf is procRSS summed over pids (comma-separated).
func rssOf(pids string) (int64, error) {
	var sum int64
	for pid := range strings.SplitSeq(pids, ",") {
		rss, err := procRSS(pid)
		if err != nil {
			return 0, err
		}
		sum += rss
	}
	return sum, nil
}
