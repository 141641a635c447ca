package integration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/replication"
	"github.com/ddblocal/ddblocal/table"
)

// link returns rep's link from source to target.
func link(t testing.TB, rep replication.Report, source, target string) replication.LinkReport {
	t.Helper()
	for _, l := range rep.Links {
		if l.Source == source && l.Target == target {
			return l
		}
	}
	t.Fatalf("no link %s -> %s in %+v", source, target, rep.Links)
	return replication.LinkReport{}
}

// putUnits writes item pk with a value of size bytes through c and returns
// the write capacity it consumed there.
func putUnits(t testing.TB, c *dynamodb.Client, pk string, size int) float64 {
	t.Helper()
	out, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("glob"),
		Item:                   map[string]types.AttributeValue{"pk": s(pk), "v": s(strings.Repeat("x", size))},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatalf("PutItem %s: %v", pk, err)
	}
	return aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
}

// TestGlobalTableReplicatedWriteCapacity: replicated writes consume write
// capacity in the replica (rWCU, counted per link); a throttled replica
// short of capacity holds its replication back (backlog, nothing lost)
// and throttles its own writes, until its capacity refills or a settle
// forces the writes through.
func TestGlobalTableReplicatedWriteCapacity(t *testing.T) {
	srv := startGlobalServer(t, table.Options{})
	us, eu := srv.client("us-east-1"), srv.client("eu-west-1")
	ctx := context.Background()
	if _, err := us.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String("glob"),
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		ProvisionedThroughput: throughput(1000, 1)}); err != nil {
		t.Fatal(err)
	}
	d := addReplica(t, us, "glob", "eu-west-1")
	srv.settle(t)
	euARN := strings.Replace(aws.ToString(d.TableArn), "us-east-1", "eu-west-1", 1)
	if _, err := eu.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(euARN),
		Tags: []types.Tag{{Key: aws.String("ddblocal:throttling"), Value: aws.String("on")}}}); err != nil {
		t.Fatal(err)
	}
	// eu-west-1 holds 300 units of burst (1 WCU for 300 s) and its clock
	// stands still: two 200 KB writes replicated there spend it all.
	units := putUnits(t, us, "a", 200_000) + putUnits(t, us, "b", 200_000)
	srv.settle(t)
	if l := link(t, srv.replication(t, "", ""), "us-east-1", "eu-west-1"); l.ReplicatedWriteUnits != units || l.Throttled != 0 {
		t.Fatalf("us-east-1 -> eu-west-1 after two writes: got %+v, want %v replicated write units, never throttled", l, units)
	}
	_, err := eu.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("glob"), Item: map[string]types.AttributeValue{"pk": s("own"), "v": s("1")}})
	var pe *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pe) || pe.ErrorMessage() != msgThrottleProvisioned {
		t.Fatalf("a write in eu-west-1 after the replicated writes: got %v, want ProvisionedThroughputExceededException", err)
	}
	srv.clk.Advance(ctx, time.Millisecond) // after the settle: the next write is not forced through
	put(t, us, "glob", "c", "small")
	time.Sleep(300 * time.Millisecond) // several replicator ticks
	if got := value(t, eu, "glob", "c"); got != "" {
		t.Fatalf("eu-west-1 without capacity: got %q, want the write held back", got)
	}
	if l := link(t, srv.replication(t, "", ""), "us-east-1", "eu-west-1"); l.Backlog != 1 || l.Throttled == 0 {
		t.Fatalf("us-east-1 -> eu-west-1 while eu-west-1 is throttled: got %+v, want backlog 1, throttled", l)
	}
	if got := value(t, us, "glob", "c"); got != "small" {
		t.Fatalf("us-east-1 is not throttled: got %q", got)
	}
	// Five minutes refill 300 units: the debt is paid and the write goes.
	srv.clk.Advance(ctx, 5*time.Minute)
	waitValue(t, eu, "c", "small", time.Now().Add(10*time.Second), "eu-west-1 after its capacity refilled: the write never arrived")
	// Spent again, a settle still brings every write over.
	putUnits(t, us, "d", 300_000)
	srv.clk.Advance(ctx, time.Millisecond)
	putUnits(t, us, "e", 300_000)
	srv.settle(t)
	for _, pk := range []string{"d", "e"} {
		if got := value(t, eu, "glob", pk); len(got) != 300_000 {
			t.Errorf("eu-west-1 %s after settle: got %d bytes, want 300000", pk, len(got))
		}
	}
	if l := link(t, srv.replication(t, "", ""), "eu-west-1", "us-east-1"); l.ReplicatedWriteUnits != 0 {
		t.Errorf("eu-west-1 -> us-east-1: got %v replicated write units, want 0 (nothing written in eu-west-1)", l.ReplicatedWriteUnits)
	}
}
