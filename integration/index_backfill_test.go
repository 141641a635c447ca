package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// backfillItems is how many items TestGSIBackfill loads before adding an index.
const backfillItems = 10000

// waitBackfilling polls DescribeTable as SDK users do until table's one
// global index is ACTIVE; every state seen must be CREATING with
// Backfilling, or ACTIVE without it.
func waitBackfilling(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := describeIndexes(t, c, table)
		if len(d.GlobalSecondaryIndexes) != 1 {
			t.Fatalf("DescribeTable during backfill: got %d GSIs, want 1", len(d.GlobalSecondaryIndexes))
		}
		ix := d.GlobalSecondaryIndexes[0]
		if ix.IndexStatus == types.IndexStatusActive {
			if ix.Backfilling != nil && *ix.Backfilling {
				t.Errorf("ACTIVE index reports Backfilling true")
			}
			break
		}
		if ix.IndexStatus != types.IndexStatusCreating || !aws.ToBool(ix.Backfilling) {
			t.Fatalf("during backfill: got status %s Backfilling %v, want CREATING true", ix.IndexStatus, aws.ToBool(ix.Backfilling))
		}
		if time.Now().After(deadline) {
			t.Fatal("index still CREATING after 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkBackfilledGroups checks that IxFill's index byGrp holds each even
// group's items once.
func checkBackfilledGroups(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	for grp := range 5 {
		got, _ := queryPages(t, c, dynamodb.QueryInput{TableName: aws.String("IxFill"), IndexName: aws.String("byGrp"),
			KeyConditionExpression: aws.String("grp = :g"), ExpressionAttributeValues: rvals(":g", s(fmt.Sprintf("g%d", grp*2)))}, nil)
		if len(got) != backfillItems/10 {
			t.Errorf("Query g%d: got %d items, want %d", grp*2, len(got), backfillItems/10)
		}
		seen := map[string]bool{}
		for _, it := range got {
			seen[rstr(it, "pk")] = true
		}
		if len(seen) != len(got) {
			t.Errorf("Query g%d: %d distinct items in %d", grp*2, len(seen), len(got))
		}
	}
}

// waitIndexGone waits until table's deleted global index has left
// DescribeTable, DELETING until then.
func waitIndexGone(t *testing.T, c *dynamodb.Client, table string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := describeIndexes(t, c, table)
		if len(d.GlobalSecondaryIndexes) == 0 {
			break
		}
		if st := d.GlobalSecondaryIndexes[0].IndexStatus; st != types.IndexStatusDeleting {
			t.Fatalf("after Delete: got status %s, want DELETING or gone", st)
		}
		if time.Now().After(deadline) {
			t.Fatal("index still listed 10 s after Delete")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGSIBackfill adds a GSI to a loaded table with UpdateTable: the SDK
// sees CREATING with Backfilling, then ACTIVE; the index then holds every
// item that carries its key. Deleting it removes it from DescribeTable, and
// reads of it fail.
func TestGSIBackfill(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "IxFill", false)
	items := make([]ritem, 0, backfillItems)
	for i := range backfillItems {
		it := ritem{"pk": s(fmt.Sprintf("k%05d", i)), "v": n(fmt.Sprint(i))}
		if i%2 == 0 { // odd items are absent from the index (sparse)
			it["grp"] = s(fmt.Sprintf("g%d", i%10))
		}
		items = append(items, it)
	}
	putAll(t, c, "IxFill", items)

	out, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("IxFill"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("grp"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byGrp"), KeySchema: ixKeys([]string{"grp"}, "v"), Projection: ixProjection(types.ProjectionTypeKeysOnly)}}}})
	if err != nil {
		t.Fatalf("UpdateTable Create: %v", err)
	}
	g := out.TableDescription.GlobalSecondaryIndexes
	if len(g) != 1 || g[0].IndexStatus != types.IndexStatusCreating || !aws.ToBool(g[0].Backfilling) {
		t.Fatalf("UpdateTable response: got %+v, want byGrp CREATING with Backfilling true", g)
	}
	waitBackfilling(t, c, "IxFill")
	checkBackfilledGroups(t, c)
	// Writes after the backfill keep the index current.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxFill"), Item: ritem{"pk": s("late"), "v": n("-1"), "grp": s("g0")}}); err != nil {
		t.Fatal(err)
	}
	q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxFill"), IndexName: aws.String("byGrp"),
		KeyConditionExpression: aws.String("grp = :g AND v < :v"), ExpressionAttributeValues: rvals(":g", s("g0"), ":v", n("0"))})
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("Query for a write after the backfill: got %v, %v; want 1 item", q, err)
	}
	d := describeIndexes(t, c, "IxFill")
	if got, want := aws.ToInt64(d.GlobalSecondaryIndexes[0].ItemCount), int64(backfillItems/2+1); got != want {
		t.Errorf("byGrp ItemCount: got %d, want %d", got, want)
	}

	// Delete the index.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("IxFill"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byGrp")}}}}); err != nil {
		t.Fatalf("UpdateTable Delete: %v", err)
	}
	waitIndexGone(t, c, "IxFill")
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("IxFill"), IndexName: aws.String("byGrp"),
		KeyConditionExpression: aws.String("grp = :g"), ExpressionAttributeValues: rvals(":g", s("g0"))})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: byGrp")
	// The table itself is untouched.
	if got := len(scanPages(t, c, "IxFill", "", 0, nil)); got != backfillItems+1 {
		t.Errorf("table after index delete: got %d items, want %d", got, backfillItems+1)
	}
	// The name can be reused: a new index with it backfills again.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("IxFill"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("grp"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byGrp"), KeySchema: ixKeys([]string{"grp"}), Projection: ixProjection(types.ProjectionTypeAll)}}}}); err != nil {
		t.Fatalf("UpdateTable re-Create: %v", err)
	}
	w := time.Now().Add(20 * time.Second)
	for describeIndexes(t, c, "IxFill").GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive {
		if time.Now().After(w) {
			t.Fatal("re-created index still CREATING after 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := len(scanPages(t, c, "IxFill", "byGrp", 0, nil)); got != backfillItems/2+1 {
		t.Errorf("re-created byGrp: got %d entries, want %d", got, backfillItems/2+1)
	}
}
