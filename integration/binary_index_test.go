package integration

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBinaryCrashIndexes kills the server (SIGKILL) while writers change a
// table with two GSIs, restarts it on the same file, and checks that every
// GSI equals its recomputation from the table: the appliers neither lose
// nor double an index update across the crash.
func TestBinaryCrashIndexes(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "crash.db")}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	createPropTable(t, c, "IxCrash", false)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The kill comes once killAfter writes are acknowledged (so the
	// appliers have a log to work through), not after a fixed time.
	const killAfter = 300
	var acked atomic.Int64
	reached := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 77))
			for ctx.Err() == nil {
				// Errors are expected once the server is killed.
				if propWrite(ctx, c, r, "IxCrash", 300, false) == nil && acked.Add(1) == killAfter {
					close(reached)
				}
			}
		}()
	}
	select {
	case <-reached:
	case <-time.After(time.Minute):
		t.Fatalf("only %d of %d writes acknowledged within a minute", acked.Load(), killAfter)
	}
	p.kill()
	cancel()
	wg.Wait()

	p = startBinary(t, dir, nil, args...)
	// The checks retry a connection closed under the client, as every
	// harness client does (closedConnRetryer): the SDK closes a request body
	// that net/http may still be reading when a fast server has already
	// answered, and the transport then drops the connection mid-response.
	c = p.client()
	checkIndexesMatch(t, c, "IxCrash", propModels(false))
	// The indexes keep following the table after the restart.
	r := rand.New(rand.NewPCG(99, 1))
	for range 100 {
		if err := propWrite(context.Background(), c, r, "IxCrash", 300, false); err != nil {
			t.Fatal(err)
		}
	}
	checkIndexesMatch(t, c, "IxCrash", propModels(false))
	t.Logf("%d writes acknowledged before SIGKILL", acked.Load())
	p.stopOK()
}
