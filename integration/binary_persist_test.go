package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// gracefulExitLimit is how quickly an idle server must exit after SIGTERM;
// container runtimes escalate to SIGKILL after 10 s.
const gracefulExitLimit = 3 * time.Second

// TestBinaryRestart stops the server with SIGTERM and checks that a new
// process on the same file serves the same tables and items.
func TestBinaryRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "restart.db")
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", dbFile}

	p := startBinary(t, dir, nil, args...)
	c := p.client()
	createTable(t, c, "Restart", false)
	const items = 25
	for i := range items {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String("Restart"),
			Item:      map[string]types.AttributeValue{"pk": s(fmt.Sprintf("k%02d", i)), "v": n(strconv.Itoa(i))},
		})
		if err != nil {
			t.Fatalf("PutItem %d: %v", i, err)
		}
	}
	code, took := p.stop()
	if code != 0 || took > gracefulExitLimit {
		t.Fatalf("after SIGTERM: got exit code %d after %s, want 0 within %s", code, took, gracefulExitLimit)
	}

	p = startBinary(t, dir, nil, args...)
	c = p.client()
	lt, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lt.TableNames, []string{"Restart"}; !slices.Equal(got, want) {
		t.Fatalf("ListTables after restart: got %v, want %v", got, want)
	}
	dt, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Restart")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dt.Table.TableStatus, types.TableStatusActive; got != want {
		t.Errorf("TableStatus after restart: got %s, want %s", got, want)
	}
	for i := range items {
		key := fmt.Sprintf("k%02d", i)
		got, err := getV(c, "Restart", key)
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.Itoa(i); got != want {
			t.Errorf("item %s after restart: got v=%q, want %q", key, got, want)
		}
	}
	p.stopOK()
}

// getV reads item pk=key with a strongly consistent GetItem and returns its
// number attribute v, or "" when the item is missing. It returns rather than
// fails so that verifying goroutines can call it.
func getV(c *dynamodb.Client, tableName, key string) (string, error) {
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(tableName),
		Key:            map[string]types.AttributeValue{"pk": s(key)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", fmt.Errorf("GetItem %s: %w", key, err)
	}
	v, ok := out.Item["v"].(*types.AttributeValueMemberN)
	if !ok {
		return "", nil
	}
	return v.Value, nil
}

// TestBinaryCrash writes from several goroutines, SIGKILLs the server in the
// middle of the stream, and checks that every acknowledged PutItem survived:
// DESIGN's data contract ("an acknowledged write is never lost"), with
// either --sync (background, the default: acknowledged once written to
// the log; always: once fdatasynced).
func TestBinaryCrash(t *testing.T) {
	for _, mode := range []string{"background", "always"} {
		t.Run(mode, func(t *testing.T) { crashWhileWriting(t, "--sync", mode) })
	}
}

func crashWhileWriting(t *testing.T, flags ...string) {
	ctx := context.Background()
	dir := t.TempDir()
	args := append([]string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "crash.db")}, flags...)
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	createTable(t, c, "Crash", false)

	const writers = 4
	var (
		killed atomic.Bool // set before SIGKILL: later errors are expected
		wg     sync.WaitGroup
		acked  [writers][]string // acked[w] is only touched by writer w until wg.Wait
		errs   = make(chan error, writers)
	)
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				key := fmt.Sprintf("w%d-%06d", w, i)
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
					TableName: aws.String("Crash"),
					Item:      map[string]types.AttributeValue{"pk": s(key), "v": n(strconv.Itoa(i)), "pad": s("crash-test-payload")},
				})
				if err != nil {
					if !killed.Load() {
						errs <- fmt.Errorf("PutItem %s before the kill: %w", key, err)
					}
					return
				}
				acked[w] = append(acked[w], key)
			}
		})
	}
	// The writers' goroutines exit when a PutItem fails, which the kill
	// guarantees; a writer that failed early has already reported why.
	select {
	case err := <-errs:
		killed.Store(true)
		p.kill()
		wg.Wait()
		t.Fatal(err)
	case <-time.After(time.Second):
	}
	killed.Store(true)
	p.kill()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	total := 0
	for _, keys := range acked {
		total += len(keys)
	}
	t.Logf("%d PutItem calls acknowledged before SIGKILL", total)
	if total == 0 {
		t.Fatal("no PutItem was acknowledged before the kill")
	}

	p = startBinary(t, dir, nil, args...)
	checkAcked(t, p.client(), acked[:], total)
	p.stopOK()
}

// checkAcked reads back every key a writer had acknowledged (acked[w][i]
// was written with v=i) and fails if any is missing or stale.
func checkAcked(t *testing.T, c *dynamodb.Client, acked [][]string, total int) {
	t.Helper()
	var missing atomic.Int64
	var rg sync.WaitGroup
	for w := range acked {
		rg.Go(func() {
			for i, key := range acked[w] {
				got, err := getV(c, "Crash", key)
				if err != nil {
					t.Error(err)
					return
				}
				if want := strconv.Itoa(i); got != want {
					if missing.Add(1) <= 10 { // the count below says the rest
						t.Errorf("acknowledged item %s after SIGKILL and restart: got v=%q, want %q", key, got, want)
					}
				}
			}
		})
	}
	rg.Wait()
	if m := missing.Load(); m > 0 {
		t.Fatalf("%d of %d acknowledged items lost", m, total)
	}
}
