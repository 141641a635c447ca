package integration

import (
	"context"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
	var acked atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 77))
			for ctx.Err() == nil {
				// Errors are expected once the server is killed.
				if propWrite(ctx, c, r, "IxCrash", 300, false) == nil {
					acked.Add(1)
				}
			}
		}()
	}
	time.Sleep(time.Second)
	p.kill()
	cancel()
	wg.Wait()
	if acked.Load() < 50 {
		t.Fatalf("only %d writes acknowledged before the kill; the test needs a stream", acked.Load())
	}

	p = startBinary(t, dir, nil, args...)
	// The checks read through a plain net/http transport: with the SDK's
	// default transport, about one large Scan in 40 against the binary fails
	// with "use of closed network connection" while reading a 200 body, an
	// open issue reported separately that is not about indexes.
	c = dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(p.URL), Region: "us-east-1", RetryMaxAttempts: 1,
		Credentials: p.client().Options().Credentials, HTTPClient: &http.Client{Transport: &http.Transport{}}})
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
