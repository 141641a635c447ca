package integration

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/admin"
	"github.com/ddblocal/ddblocal/api"
	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/table"
)

// startDurable serves the durable store at path as server.Start does; stop
// closes it (a restart is stop, then startDurable on the same path).
func startDurable(t *testing.T, path string, opts table.Options) (srv *server, stop func()) {
	t.Helper()
	db, err := store.Open(store.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	svc := table.New(db, opts)
	v := testVerifier()
	cfg := api.Config{Addr: "localhost:8000", Verifier: v, Admin: admin.Handler(admin.Config{Settle: svc.Settle, Verifier: v})}
	ts := httptest.NewServer(api.NewHandler(cfg, api.Operations(svc)))
	var stopped bool
	stop = func() {
		if !stopped {
			stopped = true
			ts.Close()
			svc.Close()
			_ = db.Close()
		}
	}
	t.Cleanup(stop)
	return &server{URL: ts.URL, svc: svc}, stop
}

// TestEventualConsistencyAfterRestart: eventually consistent reads right
// after a restart lag as they did before it, after a clean stop and after
// a crash (the files copied while the server runs: acknowledged writes are
// in the write-ahead log, nothing is checkpointed). Writes made just
// before the restart are still invisible to them (the history of recent
// changes is rebuilt from the persisted change log), and visible once the
// lag has passed; strong reads see them at once.
func TestEventualConsistencyAfterRestart(t *testing.T) {
	t.Parallel()
	for _, crash := range []bool{false, true} {
		name := "clean stop"
		if crash {
			name = "crash"
		}
		t.Run(name, func(t *testing.T) { testEventualAfterRestart(t, crash) })
	}
}

func testEventualAfterRestart(t *testing.T, crash bool) {
	const lag = 2 * time.Second
	path := filepath.Join(t.TempDir(), "db")
	clock := newFakeClock()
	opts := table.Options{Now: clock.Now, EventualLag: lagOf(lag)}
	srv, stop := startDurable(t, path, opts)
	c := srv.client("us-east-1")
	createGSITable(t, c, "Lagged")
	ctx := context.Background()
	put := func(c *dynamodb.Client, v string) {
		t.Helper()
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Lagged"),
			Item: map[string]types.AttributeValue{"pk": s("p"), "sk": s("s"), "g": s("G"), "v": s(v)}}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(c *dynamodb.Client, step string, want views) {
		t.Helper()
		if got := readViews(t, c, "Lagged"); got != want {
			t.Errorf("%s: got %+v, want %+v", step, got, want)
		}
	}
	clock.Advance(time.Second)
	put(c, "v1")
	clock.Advance(lag)
	check(c, "v1 after the lag", all("v1", "v1"))
	clock.Advance(time.Second)
	put(c, "v2")
	clock.Advance(lag / 4)
	check(c, "before the restart", all("v1", "v2"))

	if crash {
		path = copyDir(t, filepath.Dir(path), "db")
	}
	stop()
	clock.Advance(lag / 4)
	srv, _ = startDurable(t, path, opts)
	c = srv.client("us-east-1")
	check(c, "right after the restart", all("v1", "v2"))
	put(c, "v3")
	check(c, "a write after the restart", all("v1", "v3"))
	clock.Advance(lag / 2)
	check(c, "the lag passed for v2", all("v2", "v3"))
	clock.Advance(lag / 2)
	check(c, "the lag passed for v3", all("v3", "v3"))
}

// copyDir copies the files of dir (as a crash leaves them: the server is
// running) into a new directory and returns the path of name in it.
func copyDir(t *testing.T, dir, name string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue // the spare's temporary file, renamed meanwhile
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dst, name)
}
