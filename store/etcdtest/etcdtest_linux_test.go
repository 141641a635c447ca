package etcdtest

import (
	"context"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// takenPort returns a loopback port bound (not listening, without
// SO_REUSEADDR) by a socket open until the test ends, as a client's
// connection holds its local port: etcd cannot bind it, and nothing
// answers there.
func takenPort(t *testing.T) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}

// TestStartRetriesTakenPort: a port that another process takes between
// being found free and the member binding it makes the start pick fresh
// ports (TestLinearizableCluster once failed on "bind: address already in
// use"), for the client port and the peer port alike, in a cluster of one
// and of three (whose other two members elect a leader meanwhile).
func TestStartRetriesTakenPort(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		taken int // which port() call returns the taken port: 0 client, 1 peer, ...
	}{
		{"client port", 1, 0},
		{"peer port", 1, 1},
		{"third member", 3, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			busy := takenPort(t)
			calls := 0
			port := func() (int, error) {
				calls++
				if calls-1 == tc.taken {
					return busy, nil
				}
				return freePort()
			}
			c, err := startWith(t.TempDir(), tc.n, nil, port)
			if err != nil {
				t.Fatalf("start with port %d taken: %v", tc.taken, err)
			}
			defer c.Close()
			if calls != 4*tc.n {
				t.Errorf("%d ports picked, want %d (one fresh attempt)", calls, 4*tc.n)
			}
			cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := cli.Put(ctx, "k", "v"); err != nil {
				t.Fatalf("put after the retried start: %v", err)
			}
		})
	}
}
