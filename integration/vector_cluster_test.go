package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/ddblocal/ddblocal/store/etcdtest"
)

// TestClusterVectorIndex: two front-ends over one etcd keep their own
// in-memory copies of a vector index from the shared table and change log:
// writes through either are found by searches through both, a delete through
// one leaves both, and an index deleted through one is gone from the other
// once that front-end's catalog watch has told it (a definition reaches the
// other front-ends asynchronously, as TestClusterCatalog waits for too).
func TestClusterVectorIndex(t *testing.T) {
	c := etcdtest.StartT(t, 1)
	a := startFrontEnd(t, c.Endpoints(), "vec/").client("us-east-1")
	b := startFrontEnd(t, c.Endpoints(), "vec/").client("us-east-1")
	ctx := context.Background()
	createVectorTable(t, a, "shared", nil, vecIndex("vix", 2, types.VectorDistanceFunctionEuclidean))
	for i, cl := range []*dynamodb.Client{a, b, a, b} {
		mustPut(t, cl, "shared", map[string]types.AttributeValue{"pk": s(fmt.Sprint(i)), "emb": vecList([]float32{float32(i), 0})})
	}
	q := &dynamodb.SearchVectorsInput{TableName: aws.String("shared"), IndexName: aws.String("vix"), SearchVector: vecValues([]float32{0, 0}), TopK: aws.Int32(10)}
	for name, cl := range map[string]*dynamodb.Client{"a": a, "b": b} {
		if got := fmt.Sprint(keysOf(search(t, cl, q).SearchResults)); got != "[0 1 2 3]" {
			t.Fatalf("search through %s: %s, want every write in distance order", name, got)
		}
	}
	if _, err := b.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("shared"), Key: map[string]types.AttributeValue{"pk": s("0")}}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, a, "shared", map[string]types.AttributeValue{"pk": s("3"), "emb": vecList([]float32{0.5, 0})})
	for name, cl := range map[string]*dynamodb.Client{"a": a, "b": b} {
		if got := fmt.Sprint(keysOf(search(t, cl, q).SearchResults)); got != "[3 1 2]" {
			t.Fatalf("search through %s after a delete and a move: %s", name, got)
		}
	}
	if _, err := a.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("shared"),
		VectorIndexUpdates: []types.VectorIndexUpdate{{Delete: &types.DeleteVectorIndexAction{IndexName: aws.String("vix")}}}}); err != nil {
		t.Fatal(err)
	}
	// b learns of the change through its catalog watch, shortly after.
	waitFor(t, "b to see the index deleted", func() bool {
		_, err := b.SearchVectors(ctx, q)
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" {
			wantAPIError(t, err, "ValidationException", "The table does not have the specified index: vix")
			return true
		}
		if err != nil {
			t.Fatalf("search through b while the index is deleted: %v", err)
		}
		return false
	})
}
