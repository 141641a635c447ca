package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// TestVectorIndexMovableClock: the clock moved through POST
// /_ddblocal/clock drives a vector index as it drives a global index: one
// created with its table is CREATING (and not searchable) for the
// transient delay, a write reaches searches once its lag has passed on
// that clock, and a deleted index is DELETING for the delay, then gone.
func TestVectorIndexMovableClock(t *testing.T) {
	srv := startClockServer(t, table.Options{TransientDelay: 5 * time.Second, EventualLag: lagOf(2 * time.Second)})
	c := srv.client("us-east-1")
	ctx := context.Background()
	createVectorTable(t, c, "moved", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	status := func() string {
		t.Helper()
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("moved")})
		if err != nil {
			t.Fatal(err)
		}
		var st []string
		for _, v := range out.Table.VectorIndexes {
			st = append(st, string(v.IndexStatus))
		}
		return fmt.Sprint(st)
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("moved"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(5)}
	if got := status(); got != "[CREATING]" {
		t.Fatalf("just created: %s", got)
	}
	_, err := c.SearchVectors(ctx, q)
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: vix")
	advanceClock(t, srv.URL, 6*time.Second)
	if got := status(); got != "[ACTIVE]" {
		t.Fatalf("after the delay: %s", got)
	}
	mustPut(t, c, "moved", map[string]types.AttributeValue{"pk": s("a"), "emb": vecList([]float32{1, 0})})
	if got := keysOf(search(t, c, q).SearchResults); len(got) != 0 {
		t.Fatalf("within the lag: %v", got)
	}
	advanceClock(t, srv.URL, 3*time.Second)
	if got := fmt.Sprint(keysOf(search(t, c, q).SearchResults)); got != "[a]" {
		t.Fatalf("once the lag has passed: %s", got)
	}
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("moved"),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("vix")}}}}); err != nil {
		t.Fatal(err)
	}
	if got := status(); got != "[DELETING]" {
		t.Fatalf("just deleted: %s", got)
	}
	advanceClock(t, srv.URL, 6*time.Second)
	if got := status(); got != "[]" {
		t.Fatalf("after the delay: %s", got)
	}
}
