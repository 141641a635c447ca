package integration

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestPartiQLSetsSorted inserts sets with PartiQL bag literals and reads
// them back with GetItem: members come back in the order of every other
// set (strings by bytes, numbers numerically).
func TestPartiQLSetsSorted(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "PqSets", false)
	stmt(t, c, `INSERT INTO "PqSets" VALUE {'pk': 'k', 'ss': <<'b', 'a', 'B'>>, 'ns': <<10, 9, -1.5>>}`)
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("PqSets"), Key: ritem{"pk": s("k")}})
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := out.Item["ss"].(*types.AttributeValueMemberSS)
	ns, _ := out.Item["ns"].(*types.AttributeValueMemberNS)
	if ss == nil || !reflect.DeepEqual(ss.Value, []string{"B", "a", "b"}) {
		t.Errorf("ss: got %v, want [B a b]", out.Item["ss"])
	}
	if ns == nil || !reflect.DeepEqual(ns.Value, []string{"-1.5", "9", "10"}) {
		t.Errorf("ns: got %v, want [-1.5 9 10]", out.Item["ns"])
	}
}

// TestGSIBackfillKeyViolations stores items whose future index key values
// are over DynamoDB's limits or of another type, then adds a GSI: the
// backfill completes and, as DynamoDB documents for index key violations,
// those items stay in the table but are not in the index.
func TestGSIBackfillKeyViolations(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "IxViol", false)
	putAll(t, c, "IxViol", []ritem{
		{"pk": s("ok"), "g": s("a")},
		{"pk": s("at-limit"), "g": s(strings.Repeat("a", 2048))},
		{"pk": s("over"), "g": s(strings.Repeat("a", 2049))},
		{"pk": s("number"), "g": n("1")},
	})
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("IxViol"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("byG"), KeySchema: ixKeys([]string{"g"}), Projection: ixProjection(types.ProjectionTypeKeysOnly)}}}})
	if err != nil {
		t.Fatalf("UpdateTable Create: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for describeIndexes(t, c, "IxViol").GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive {
		if time.Now().After(deadline) {
			t.Fatal("index still not ACTIVE after 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var got []string
	for _, it := range scanPages(t, c, "IxViol", "byG", 0, nil) {
		got = append(got, rstr(it, "pk"))
	}
	slices.Sort(got)
	if want := []string{"at-limit", "ok"}; !slices.Equal(got, want) {
		t.Errorf("index byG holds %v, want %v", got, want)
	}
	table := scanPages(t, c, "IxViol", "", 0, nil)
	if len(table) != 4 {
		t.Errorf("table: got %d items, want all 4 kept", len(table))
	}
}
