package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// Cluster mode (-cluster N -ddblocal PATH): one etcd member in a child
// process (this program with serveEtcdEnv set, running etcd's embedded
// server as the store's tests do: one member, no fsync) and N ddblocal
// front-ends started as `PATH --store etcd://MEMBER/bench/ -port P`. The
// workloads then run against every front-end at once (worker i sends to
// front-end i mod N), the server figures are the front-ends' together, and
// the etcd workload measures the member itself with transactions of a
// PutItem's size, so that one command shows ddblocal's throughput beside
// etcd's.

// serveEtcdEnv, set to 1 in the environment, makes this program run an
// etcd member instead of workloads: startEtcd's child.
const serveEtcdEnv = "DDBLOCAL_BENCH_SERVE_ETCD"

// serveEtcd runs one etcd member with its data under dir, writes its
// client URL as one line to out, and serves until ctx ends.
func serveEtcd(ctx context.Context, out io.Writer, dir string) error {
	c, err := etcdtest.Start(dir, 1)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintln(out, c.Endpoints()[0])
	<-ctx.Done()
	return nil
}

// cluster is the etcd member and front-ends of cluster mode.
type cluster struct {
	etcdURL  string
	etcdPID  string
	etcd     *exec.Cmd
	etcdDir  string
	fronts   []*runningServer
	urls     string // the front-ends' URLs, comma-separated
	pids     string // their process IDs, comma-separated
	etcdConn *clientv3.Client
}

// startCluster starts the etcd member and n front-ends of binary.
func startCluster(ctx context.Context, n int, binary string) (*cluster, error) {
	c := &cluster{}
	if err := c.startEtcd(); err != nil {
		return nil, err
	}
	host := strings.TrimPrefix(c.etcdURL, "http://")
	var urls, pids []string
	for i := range n {
		s, err := startServer(ctx, serverSpec{name: fmt.Sprintf("front-end%d", i+1), path: binary,
			args: []string{"-store", "etcd://" + host + "/bench/", "-port", "{port}"}})
		if err != nil {
			c.stop()
			return nil, err
		}
		c.fronts = append(c.fronts, s)
		urls, pids = append(urls, s.url), append(pids, s.pid)
	}
	c.urls, c.pids = strings.Join(urls, ","), strings.Join(pids, ",")
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{c.etcdURL}, DialTimeout: startTimeout})
	if err != nil {
		c.stop()
		return nil, err
	}
	c.etcdConn = cli
	return c, nil
}

// startEtcd runs the member in a child process, so that its CPU time is
// read like a server's.
func (c *cluster) startEtcd() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if c.etcdDir, err = os.MkdirTemp("", "bench-etcd-"); err != nil {
		return err
	}
	c.etcd = exec.Command(self, c.etcdDir)
	c.etcd.Env = append(os.Environ(), serveEtcdEnv+"=1")
	c.etcd.Stderr = os.Stderr
	stdout, err := c.etcd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.etcd.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		c.stop()
		return fmt.Errorf("etcd member did not start: %w", err)
	}
	c.etcdURL, c.etcdPID = strings.TrimSpace(line), strconv.Itoa(c.etcd.Process.Pid)
	return nil
}

// stop kills the front-ends and the member and removes their data.
func (c *cluster) stop() {
	for _, s := range c.fronts {
		s.stop()
	}
	if c.etcdConn != nil {
		_ = c.etcdConn.Close()
	}
	if c.etcd != nil && c.etcd.Process != nil {
		_ = c.etcd.Process.Kill()
		_ = c.etcd.Wait()
	}
	if c.etcdDir != "" {
		_ = os.RemoveAll(c.etcdDir)
	}
}

// etcdOps returns the per-worker operations of the etcd workload: each
// worker writes keys of its own (no transaction conflicts) in transactions
// shaped like a PutItem's commit over etcd: compares on the item, the
// table's counters and a fresh commit marker, and puts of an item of about
// the put workload's size, 16 bytes of counters and the marker.
func (c *cluster) etcdOps(keys keyspace, seed uint64) func(worker int) op {
	p := fmt.Sprintf("benchetcd/%x/", seed)
	return func(id int) op {
		r := rand.New(rand.NewPCG(seed, uint64(id)))
		item, stats := fmt.Sprint(p, "item", id), fmt.Sprint(p, "stats", id)
		val := randomValue(r, keys.valueSize+60) // the key, f, names and encoding
		var last int64
		n := 0
		return func(ctx context.Context) (int, error) {
			n++
			marker := fmt.Sprint(p, "x", id, "/", n)
			resp, err := c.etcdConn.Txn(ctx).
				If(clientv3.Compare(clientv3.ModRevision(item), "=", last), clientv3.Compare(clientv3.ModRevision(stats), "=", last),
					clientv3.Compare(clientv3.CreateRevision(marker), "=", 0)).
				Then(clientv3.OpPut(item, val), clientv3.OpPut(stats, "0123456789abcdef"), clientv3.OpPut(marker, "")).Commit()
			if err != nil {
				return 0, err
			}
			if !resp.Succeeded {
				return 0, fmt.Errorf("etcd transaction %d of worker %d failed its compares", n, id)
			}
			last = resp.Header.Revision
			return 1, nil
		}
	}
}

// measureEtcd runs the etcd workload against the member.
func (b *bench) measureEtcd(ctx context.Context) measurement {
	w := b.workersFor(b.cluster.urls)
	w.close() // only its key shape and seed are used
	return measure(ctx, "etcd", b.cluster.etcdURL, b.cfg.concurrency, b.cluster.etcdPID,
		time.Now().Add(b.cfg.duration), b.cluster.etcdOps(w.keys, w.seed))
}
