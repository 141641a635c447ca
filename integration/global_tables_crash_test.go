package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/store/etcdtest"
	"github.com/ddblocal/ddblocal/table"
)

// TestBinaryGlobalTableCrash writes in two Regions of a global table while
// replication lags, SIGKILLs the server, restarts it: every acknowledged
// write is in both Regions after settle, and an item both Regions wrote is
// the same in both.
func TestBinaryGlobalTableCrash(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "gt.db"), "--replication-lag", "random:0-200ms"}
	p := startBinary(t, dir, nil, args...)
	srv := &server{URL: p.URL}
	us := srv.client("us-east-1")
	createTable(t, us, "glob", false)
	addReplica(t, us, "glob", "eu-west-1")
	postSettle(t, p.URL)

	regions := []string{"us-east-1", "eu-west-1"}
	var killed atomic.Bool
	var wg sync.WaitGroup
	acked := make([][]string, len(regions)) // acked[r] is only touched by writer r until wg.Wait
	for r, region := range regions {
		c := srv.client(region)
		wg.Go(func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("%s-%05d", region, i)
				if i%10 == 0 {
					key = fmt.Sprintf("shared-%d", i/10%5) // both Regions write these
				}
				_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
					Item: map[string]types.AttributeValue{"pk": s(key), "v": s(region)}})
				if err != nil {
					if !killed.Load() {
						t.Errorf("PutItem %s in %s before the kill: %v", key, region, err)
					}
					return
				}
				if i%10 != 0 {
					acked[r] = append(acked[r], key)
				}
			}
		})
	}
	time.Sleep(time.Second)
	killed.Store(true)
	p.kill()
	wg.Wait()

	p = startBinary(t, dir, nil, args...)
	srv = &server{URL: p.URL}
	postSettle(t, p.URL)
	for r, region := range regions {
		for _, other := range regions {
			c := srv.client(other)
			missing := 0
			for _, key := range acked[r] {
				if value(t, c, "glob", key) != region {
					missing++
				}
			}
			if missing > 0 {
				t.Errorf("%d of %d writes acknowledged in %s are missing in %s after SIGKILL and restart", missing, len(acked[r]), region, other)
			}
		}
		t.Logf("%s: %d writes acknowledged before SIGKILL", region, len(acked[r]))
	}
	for i := range 5 {
		key := fmt.Sprintf("shared-%d", i)
		if a, b := value(t, srv.client("us-east-1"), "glob", key), value(t, srv.client("eu-west-1"), "glob", key); a != b {
			t.Errorf("%s: us-east-1 has %q, eu-west-1 %q: the replicas did not converge", key, a, b)
		}
	}
	p.stopOK()
}

func postSettle(t testing.TB, url string) {
	t.Helper()
	resp, err := http.Post(url+"/_ddblocal/settle", "application/json", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("settle: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestClusterGlobalTable: two front-ends share an etcd store; a global
// table made through one replicates writes made through the other, and
// goes on replicating once the first is gone (its links' owner moves).
func TestClusterGlobalTable(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for an etcd lease to end")
	}
	if signedPass() || clusterPass() {
		t.Skip("run once, in the unsigned pass")
	}
	t.Parallel()
	c := etcdtest.StartT(t, 1)
	start := func() (*server, func()) {
		db, err := store.Open(store.Options{Etcd: &store.EtcdOptions{Endpoints: c.Endpoints(), Prefix: "gt/", DialTimeout: etcdDial}})
		if err != nil {
			t.Fatal(err)
		}
		svc := table.New(db, table.Options{})
		ts := httptest.NewServer(api.NewHandler(api.Config{Addr: "localhost:8000", Admin: admin.Handler(admin.Config{Settle: svc.Settle})}, api.Operations(svc)))
		var once sync.Once
		stop := func() {
			once.Do(func() {
				ts.Close()
				svc.Close()
				db.Close()
			})
		}
		t.Cleanup(stop)
		return &server{URL: ts.URL, svc: svc}, stop
	}
	fa, stopA := start()
	fb, _ := start()
	createTable(t, fa.client("us-east-1"), "glob", false)
	addReplica(t, fa.client("us-east-1"), "glob", "eu-west-1")
	put(t, fb.client("us-east-1"), "glob", "a", "via-b")
	put(t, fb.client("eu-west-1"), "glob", "b", "via-b")
	postSettle(t, fb.URL)
	if a, b := value(t, fb.client("eu-west-1"), "glob", "a"), value(t, fb.client("us-east-1"), "glob", "b"); a != "via-b" || b != "via-b" {
		t.Fatalf("with both front-ends: eu-west-1 a=%q, us-east-1 b=%q, want via-b", a, b)
	}
	stopA()
	put(t, fb.client("us-east-1"), "glob", "c", "after")
	postSettle(t, fb.URL) // waits for front-end a's claims to lapse
	if got := value(t, fb.client("eu-west-1"), "glob", "c"); got != "after" {
		t.Errorf("after front-end a is gone: eu-west-1 c=%q, want after", got)
	}
}

// TestBinaryClusterGlobalTableKill: two ddblocal processes share an etcd
// store; a global table's links run in the first, which is killed (kill
// -9, its claims left to expire) while a write it acknowledged still waits
// for the replication lag. The second takes the links over: that write
// and the ones made through the second reach every replica.
func TestBinaryClusterGlobalTableKill(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for an etcd lease to end")
	}
	if signedPass() || clusterPass() {
		t.Skip("run once, in the unsigned pass")
	}
	t.Parallel()
	c := etcdtest.StartT(t, 1)
	args := []string{"--port", "0", "--store", "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/gtk",
		"--etcd-timeout", etcdDial.String(), "--replication-lag", "2s"}
	dir := t.TempDir()
	pa := startBinary(t, dir, nil, args...)
	pb := startBinary(t, dir, nil, args...)
	a, b := &server{URL: pa.URL}, &server{URL: pb.URL}
	createTable(t, a.client("us-east-1"), "glob", false)
	addReplica(t, a.client("us-east-1"), "glob", "eu-west-1")
	put(t, a.client("us-east-1"), "glob", "via-a", "1") // front-end a starts the links
	pa.kill()
	put(t, b.client("us-east-1"), "glob", "via-b", "2")
	put(t, b.client("eu-west-1"), "glob", "from-eu", "3")
	postSettle(t, pb.URL) // waits for a's claims to expire
	for _, region := range []string{"us-east-1", "eu-west-1"} {
		for pk, want := range map[string]string{"via-a": "1", "via-b": "2", "from-eu": "3"} {
			if got := value(t, b.client(region), "glob", pk); got != want {
				t.Errorf("%s after front-end a was killed: %s=%q, want %q", region, pk, got, want)
			}
		}
	}
	pb.stopOK()
}
