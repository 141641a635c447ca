// Package etcdtest starts etcd members inside a test process (etcd's
// server/v3/embed), so that cluster mode is tested without Docker. Only test
// files and the bench command (its -cluster mode) import it: the ddblocal
// binary never contains an etcd server.
package etcdtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Limits the members run with: large enough for ddblocal (store.RequiredTxnOps,
// store.RequiredRequestBytes).
const (
	MaxTxnOps       = 4096
	MaxRequestBytes = 16 << 20
)

// Cluster is a set of embedded etcd members.
type Cluster struct {
	Members []*Member
}

// Member is one embedded etcd member.
type Member struct {
	Name      string
	ClientURL string
	cfg       *embed.Config
	etcd      *embed.Etcd
}

// Endpoints returns the client URLs of the running members.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		if m.etcd != nil {
			eps = append(eps, m.ClientURL)
		}
	}
	return eps
}

// freePort returns a TCP port nobody listens on at the moment, below the
// kernel's range of ephemeral ports: one from that range (what listening
// on port 0 gives) may be given to another process's connection or
// listener before the member binds it, as TestLinearizableCluster once
// found ("bind: address already in use"). Below it, only another process
// choosing ports this way can take it; StartWith then tries fresh ones.
func freePort() (int, error) {
	lo := ephemeralStart()
	for range 100 {
		p := lo - 1 - rand.IntN(min(lo-1024, 20000))
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		return p, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ephemeralStart returns the first port of the kernel's ephemeral range
// (Linux's ip_local_port_range; 32768, its default, elsewhere).
func ephemeralStart() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 2048 {
				lo = n
			}
		}
	}
	return lo
}

// Config is a member's configuration, for StartWith's adjust.
type Config = embed.Config

// Start starts an n-member cluster on free ports with its data under dir,
// and waits until every member is ready. The caller must Close it.
func Start(dir string, n int) (*Cluster, error) { return StartWith(dir, n, nil) }

// StartWith is Start with adjust (when not nil) applied to each member's
// configuration before it starts.
//
// A port found free may be taken by another process before the member
// binds it (nothing can hand etcd's embedded server a listener): a start
// that fails on an address in use is repeated on fresh ports and a fresh
// data directory, up to bindAttempts times.
func StartWith(dir string, n int, adjust func(*Config)) (*Cluster, error) {
	return startWith(dir, n, adjust, freePort)
}

// startWith is StartWith taking each port from port.
func startWith(dir string, n int, adjust func(*Config), port func() (int, error)) (*Cluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := startOnce(dir, n, adjust, port)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || attempt == bindAttempts {
			return c, err
		}
		for i := range n {
			if err := os.RemoveAll(memberDir(dir, i)); err != nil {
				return nil, err
			}
		}
	}
}

// bindAttempts bounds how many times StartWith picks fresh ports.
const bindAttempts = 5

func memberDir(dir string, i int) string { return fmt.Sprintf("%s/m%d", dir, i) }

// startOnce starts the members on ports from port (free a moment ago).
func startOnce(dir string, n int, adjust func(*Config), port func() (int, error)) (*Cluster, error) {
	c := &Cluster{}
	var initial []string
	for i := range n {
		cp, err := port()
		if err != nil {
			return nil, err
		}
		pp, err := port()
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("m%d", i)
		cfg := embed.NewConfig()
		cfg.Name = name
		cfg.Dir = memberDir(dir, i)
		cu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", cp))
		pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", pp))
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
		cfg.MaxTxnOps = MaxTxnOps
		cfg.MaxRequestBytes = MaxRequestBytes
		cfg.LogLevel = "error"
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		// Faster leader elections than the default 100/1000 ms, but slow
		// enough that a busy CI machine does not miss heartbeats.
		cfg.TickMs, cfg.ElectionMs = 50, 500
		cfg.UnsafeNoFsync = true
		if adjust != nil {
			adjust(cfg)
		}
		c.Members = append(c.Members, &Member{Name: name, ClientURL: cu.String(), cfg: cfg})
		initial = append(initial, fmt.Sprintf("%s=%s", name, pu))
	}
	for _, m := range c.Members {
		m.cfg.InitialCluster = strings.Join(initial, ",")
		m.cfg.InitialClusterToken = "ddblocal-test"
	}
	// Members of a new cluster wait for each other: start them together.
	// (One that failed to bind leaves the others waiting for it: a
	// majority still elects a leader and is closed below; a member never
	// ready cannot be closed, etcd's Close waiting for it to serve.)
	errs := make(chan error, n)
	for _, m := range c.Members {
		go func() { errs <- m.start() }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && (first == nil || errors.Is(err, syscall.EADDRINUSE)) {
			first = err
		}
	}
	if first != nil {
		c.Close()
		return nil, first
	}
	return c, nil
}

func (m *Member) start() error {
	e, err := embed.StartEtcd(m.cfg)
	if err != nil {
		return fmt.Errorf("etcdtest: start %s: %w", m.Name, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return fmt.Errorf("etcdtest: %s not ready after 30s", m.Name)
	}
	m.etcd = e
	return nil
}

// Stop stops member m (as a crash would, from its peers' point of view).
func (m *Member) Stop() {
	if m.etcd != nil {
		m.etcd.Close()
		m.etcd = nil
	}
}

// IsLeader reports whether m is running and leads the cluster.
func (m *Member) IsLeader() bool {
	return m.etcd != nil && m.etcd.Server.Leader() == m.etcd.Server.MemberID()
}

// Close stops every member.
func (c *Cluster) Close() {
	for _, m := range c.Members {
		m.Stop()
	}
}

// Shared starts one member for a whole test binary: call it from TestMain
// with the tests' exit code function. It returns the member's endpoints and
// a function that stops it and removes its data.
func Shared() (endpoints []string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "etcdtest")
	if err != nil {
		return nil, nil, err
	}
	c, err := Start(dir, 1)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	return c.Endpoints(), func() { c.Close(); _ = os.RemoveAll(dir) }, nil
}

// StartT starts an n-member cluster for one test, closed when it ends.
func StartT(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := Start(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
