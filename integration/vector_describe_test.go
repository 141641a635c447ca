package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// describeVectorCounts returns DescribeTable's ItemCount and IndexSizeBytes
// of table name's vector index index.
func describeVectorCounts(t *testing.T, c *dynamodb.Client, name, index string) (items, bytes int64) {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range out.Table.VectorIndexes {
		if aws.ToString(v.IndexName) == index {
			return aws.ToInt64(v.ItemCount), aws.ToInt64(v.IndexSizeBytes)
		}
	}
	t.Fatalf("DescribeTable %s: no vector index %s in %+v", name, index, out.Table.VectorIndexes)
	return 0, 0
}

// TestVectorIndexDescribeCounts: DescribeTable's ItemCount and
// IndexSizeBytes of a vector index count the items it holds (4 bytes per
// dimension each) as of the writes before it, with no search in between:
// an item without a vector, or without the HASH attribute, is not counted,
// and one deleted or stripped of its vector leaves the count.
func TestVectorIndexDescribeCounts(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	createVectorTable(t, c, "counted", tenantDefs, vecIndex("byTenant", 3, types.VectorDistanceFunctionCosine, tenantSchema()...),
		vecIndex("all", 3, types.VectorDistanceFunctionEuclidean))
	if items, bytes := describeVectorCounts(t, c, "counted", "all"); items != 0 || bytes != 0 {
		t.Fatalf("empty table: %d items, %d bytes", items, bytes)
	}
	mustPut(t, c, "counted", map[string]types.AttributeValue{"pk": s("a"), "tenant": s("t"), "emb": vecList([]float32{1, 2, 3})})
	mustPut(t, c, "counted", map[string]types.AttributeValue{"pk": s("b"), "emb": vecList([]float32{1, 0, 0})}) // no tenant
	mustPut(t, c, "counted", map[string]types.AttributeValue{"pk": s("c"), "tenant": s("t"), "emb": vecList([]float32{0, 1, 0})})
	mustPut(t, c, "counted", map[string]types.AttributeValue{"pk": s("d"), "tenant": s("t")}) // no vector
	for index, want := range map[string]int64{"all": 3, "byTenant": 2} {
		if items, bytes := describeVectorCounts(t, c, "counted", index); items != want || bytes != want*12 {
			t.Errorf("%s after four puts: %d items, %d bytes; want %d and %d", index, items, bytes, want, want*12)
		}
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("counted"), Key: map[string]types.AttributeValue{"pk": s("a")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("counted"), Key: map[string]types.AttributeValue{"pk": s("b")},
		UpdateExpression: aws.String("REMOVE emb")}); err != nil {
		t.Fatal(err)
	}
	for index, want := range map[string]int64{"all": 1, "byTenant": 1} {
		if items, bytes := describeVectorCounts(t, c, "counted", index); items != want || bytes != want*12 {
			t.Errorf("%s after a delete and a REMOVE: %d items, %d bytes; want %d and %d", index, items, bytes, want, want*12)
		}
	}
}
