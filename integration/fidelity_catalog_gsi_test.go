package integration

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdateTableIndexKeySchemaLimits: a global index created by
// UpdateTable with more than four HASH or four RANGE attributes is refused
// as CreateTable refuses it (ack-api-quirks DDB-TABLE-442 records both
// texts for CreateTable and UpdateTable), and one of four HASH attributes
// (the table's key among them) and two RANGE attributes is created and
// described as defined.
func TestUpdateTableIndexKeySchemaLimits(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Wide", false)
	defs := catalogDefs("pk", "a", "b", "c", "d", "e")
	create := func(name string, keys ...string) error {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Wide"), AttributeDefinitions: defs,
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String(name), KeySchema: catalogKeys(keys...), Projection: catalogAll}}}})
		return err
	}
	wantAPIError(t, create("fiveHash", "a", "HASH", "b", "HASH", "c", "HASH", "d", "HASH", "e", "HASH"), "ValidationException",
		invalidPrefix+"The KeySchema exceeds the maximum allowed number of HASH key attributes")
	wantAPIError(t, create("fiveRange", "pk", "HASH", "a", "RANGE", "b", "RANGE", "c", "RANGE", "d", "RANGE", "e", "RANGE"), "ValidationException",
		invalidPrefix+"The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	if g := describeIndexes(t, c, "Wide").GlobalSecondaryIndexes; len(g) != 0 {
		t.Fatalf("after the refusals: got %d indexes, want none", len(g))
	}
	if err := create("fourFour", "a", "HASH", "b", "HASH", "c", "HASH", "pk", "HASH", "d", "RANGE", "e", "RANGE"); err != nil {
		t.Fatal(err)
	}
	g := describeIndexes(t, c, "Wide").GlobalSecondaryIndexes
	if len(g) != 1 || ksString(g[0].KeySchema) != "a:HASH,b:HASH,c:HASH,pk:HASH,d:RANGE,e:RANGE" {
		t.Errorf("created index: got %+v, want a, b, c, pk HASH and d, e RANGE", g)
	}
}
