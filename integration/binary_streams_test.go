package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBinaryStreamSurvivesCrash kills the server with SIGKILL between
// writes and checks that a consumer walking the shard tree afterwards reads
// every acknowledged change exactly once, in order, across shard rollovers.
func TestBinaryStreamSurvivesCrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "streams.db"), "--stream-shard-records", "3"}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	arn := createStreamTable(t, c, "Crash", types.StreamViewTypeNewImage)
	var want []change
	put := func(c *dynamodb.Client, i int) {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Crash"), Item: item("p", fmt.Sprintf("%02d", i), "1")}); err != nil {
			t.Fatal(err)
		}
		want = append(want, change{"INSERT", "p", fmt.Sprintf("%02d", i)})
	}
	for i := range 5 {
		put(c, i)
	}
	if got, _ := walkStream(t, streamsClient(p.URL), arn); len(got) != 5 {
		t.Fatalf("before the crash: got %d records, want 5", len(got))
	}
	p.kill()

	p = startBinary(t, dir, nil, args...)
	c = p.client()
	for i := 5; i < 9; i++ {
		put(c, i)
	}
	got, shards := walkStream(t, streamsClient(p.URL), arn)
	if g := changesOf(got); !slices.Equal(g, want) {
		t.Fatalf("after the crash, across %d shards:\n got %v\nwant %v", shards, g, want)
	}
	if shards != 4 {
		t.Errorf("shards: got %d, want 4 (9 changes, 3 a shard, then an empty open one)", shards)
	}
	p.stopOK()
}
