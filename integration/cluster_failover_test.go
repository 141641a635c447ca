package integration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// ackLog records the writes a writer saw acknowledged.
type ackLog struct {
	mu      sync.Mutex
	acks    map[string]string // pk → g
	lastErr error             // the last failed attempt's, for a stalled test's message
}

func (l *ackLog) failed(err error) {
	l.mu.Lock()
	l.lastErr = err
	l.mu.Unlock()
}

func (l *ackLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%d acknowledged, last error %v", len(l.acks), l.lastErr)
}

func (l *ackLog) add(pk, g string) {
	l.mu.Lock()
	l.acks[pk] = g
	l.mu.Unlock()
}

func (l *ackLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acks)
}

// writeUntil puts items w-0, w-1, ... through c until stop is closed,
// retrying each (the same item) until it is acknowledged:
// errors are expected while etcd elects a leader or a front-end dies.
func writeUntil(c *dynamodb.Client, w string, stop <-chan struct{}, acks *ackLog) {
	for i := 0; ; i++ {
		pk, g := fmt.Sprintf("%s-%d", w, i), fmt.Sprintf("g%d", i%4)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("failover"),
				Item: map[string]types.AttributeValue{"pk": s(pk), "sk": s("x"), "g": s(g)}})
			cancel()
			if err == nil {
				acks.add(pk, g)
				// A steady stream rather than a flood: the index the test
				// waits for must catch up after the failover.
				time.Sleep(5 * time.Millisecond)
				break
			}
			acks.failed(err)
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// scanFailover returns every item of table "failover" (or its index) through c, consistently: pk → g.
func scanFailover(t *testing.T, c *dynamodb.Client, index string) map[string]string {
	t.Helper()
	got := map[string]string{}
	in := &dynamodb.ScanInput{TableName: aws.String("failover"), ConsistentRead: aws.Bool(index == "")}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	for {
		out, err := c.Scan(context.Background(), in)
		if err != nil {
			t.Fatalf("Scan %q: %v", index, err)
		}
		for _, it := range out.Items {
			got[it["pk"].(*types.AttributeValueMemberS).Value] = it["g"].(*types.AttributeValueMemberS).Value
		}
		if out.LastEvaluatedKey == nil {
			return got
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// TestClusterFailover: a 3-member etcd with two ddblocal processes in front.
// Writers go through both; mid-stream the etcd leader stops, then the
// first front-end is killed (kill -9). No acknowledged write is lost, and
// the global index, maintained by whichever front-end owns the table (the
// survivor once the dead one's lease ends), equals a recomputation from the
// base table.
func TestClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-member etcd cluster and two ddblocal processes")
	}
	if signedPass() {
		t.Skip("run once, in the unsigned pass: signatures change nothing here")
	}
	t.Parallel() // mostly waiting: for elections and a lease to end
	c := etcdtest.StartT(t, 3)
	var hosts []string
	for _, ep := range c.Endpoints() {
		hosts = append(hosts, strings.TrimPrefix(ep, "http://"))
	}
	url := "etcd://" + strings.Join(hosts, ",") + "/fo"
	dir := t.TempDir()
	pa := startBinary(t, dir, nil, "--port", "0", "--store", url, "--etcd-timeout", etcdDial.String())
	pb := startBinary(t, dir, nil, "--port", "0", "--store", url, "--etcd-timeout", etcdDial.String())
	a, b := pa.client(), pb.client()
	createGSITable(t, a, "failover")

	acksA, acksB := &ackLog{acks: map[string]string{}}, &ackLog{acks: map[string]string{}}
	stopA, stopB := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { writeUntil(a, "a", stopA, acksA) })
	wg.Go(func() { writeUntil(b, "b", stopB, acksB) })
	// progress waits until each writer still running has 30 more writes
	// acknowledged than now.
	progress := func(what string, logs ...*ackLog) {
		t.Helper()
		want := make([]int, len(logs))
		for i, l := range logs {
			want[i] = l.count() + 30
		}
		waitFor(t, fmt.Sprintf("%s (%v)", what, logs), func() bool {
			for i, l := range logs {
				if l.count() < want[i] {
					return false
				}
			}
			return true
		})
	}

	progress("writes through both front-ends", acksA, acksB)
	leader := -1
	waitFor(t, "an etcd leader", func() bool {
		leader = slices.IndexFunc(c.Members, (*etcdtest.Member).IsLeader)
		return leader >= 0
	})
	c.Members[leader].Stop()
	t.Logf("stopped etcd leader %s at %d+%d acknowledged writes", c.Members[leader].Name, acksA.count(), acksB.count())
	progress("writes after the etcd leader stopped", acksA, acksB)
	pa.kill()
	close(stopA)
	t.Logf("killed front-end a at %d+%d acknowledged writes", acksA.count(), acksB.count())
	progress("writes after front-end a died", acksB)
	close(stopB)
	wg.Wait()

	base := scanFailover(t, b, "")
	for _, l := range []*ackLog{acksA, acksB} {
		for pk, g := range l.acks {
			if base[pk] != g {
				t.Errorf("acknowledged write %s (g %s) reads back as %q", pk, g, base[pk])
			}
		}
	}
	// The index converges to the base table (items a wrote but whose
	// acknowledgement the kill cut off may be in both, never in one only).
	deadline := time.Now().Add(60 * time.Second)
	for {
		idx := scanFailover(t, b, "byG")
		if maps.Equal(idx, base) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index byG (%d items) did not equal the base table (%d items) within 60s", len(idx), len(base))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
