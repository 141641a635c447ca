package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// checkDescribedIndexes checks DescribeTable's description d of a new
// table's indexes against their definitions gsis and lsis: names, key
// schemas, projections, ARNs, ACTIVE and empty.
func checkDescribedIndexes(t *testing.T, d *types.TableDescription, gsis []types.GlobalSecondaryIndex, lsis []types.LocalSecondaryIndex) {
	t.Helper()
	for i, g := range d.GlobalSecondaryIndexes {
		want := gsis[i]
		name := aws.ToString(want.IndexName)
		if got := aws.ToString(g.IndexName); got != name {
			t.Errorf("GSI %d: got name %s, want %s", i, got, name)
		}
		if got, want := ksString(g.KeySchema), ksString(want.KeySchema); got != want {
			t.Errorf("%s KeySchema: got %s, want %s", name, got, want)
		}
		if got, want := projString(g.Projection), projString(want.Projection); got != want {
			t.Errorf("%s Projection: got %s, want %s", name, got, want)
		}
		if got, want := g.IndexStatus, types.IndexStatusActive; got != want {
			t.Errorf("%s IndexStatus: got %s, want %s", name, got, want)
		}
		if got, want := aws.ToString(g.IndexArn), aws.ToString(d.TableArn)+"/index/"+name; got != want {
			t.Errorf("%s IndexArn: got %s, want %s", name, got, want)
		}
		if aws.ToInt64(g.ItemCount) != 0 || aws.ToInt64(g.IndexSizeBytes) != 0 {
			t.Errorf("%s empty: got ItemCount %d IndexSizeBytes %d, want 0 0", name, aws.ToInt64(g.ItemCount), aws.ToInt64(g.IndexSizeBytes))
		}
	}
	for i, l := range d.LocalSecondaryIndexes {
		want := lsis[i]
		name := aws.ToString(want.IndexName)
		if got := aws.ToString(l.IndexName); got != name {
			t.Errorf("LSI %d: got name %s, want %s", i, got, name)
		}
		if got, want := ksString(l.KeySchema), ksString(want.KeySchema); got != want {
			t.Errorf("%s KeySchema: got %s, want %s", name, got, want)
		}
		if got, want := projString(l.Projection), projString(want.Projection); got != want {
			t.Errorf("%s Projection: got %s, want %s", name, got, want)
		}
		if got, want := aws.ToString(l.IndexArn), aws.ToString(d.TableArn)+"/index/"+name; got != want {
			t.Errorf("%s IndexArn: got %s, want %s", name, got, want)
		}
	}
}

// describeItems are TestIndexDescribe's 20 items: every one has created
// and cat; even ones have a status, every third an owner, every fourth a
// title.
func describeItems() []ritem {
	var items []ritem
	for i := range 20 {
		it := ritem{"pk": s(fmt.Sprintf("p%d", i%3)), "sk": s(fmt.Sprintf("s%02d", i)), "created": n(fmt.Sprint(1000 + i)),
			"cat": s("c" + fmt.Sprint(i%2)), "size": n("7"), "body": s("some text that is not projected everywhere")}
		if i%2 == 0 {
			it["status"] = s("open")
		}
		if i%3 == 0 {
			it["owner"] = s("ann")
		}
		if i%4 == 0 {
			it["title"] = s(fmt.Sprintf("t%02d", i))
		}
		items = append(items, it)
	}
	return items
}

// checkIndexCounts checks the ItemCount d reports for each index against
// want, and that each index has a size; it returns the sizes by index.
func checkIndexCounts(t *testing.T, d *types.TableDescription, want map[string]int64) map[string]int64 {
	t.Helper()
	sizes := map[string]int64{}
	for _, g := range d.GlobalSecondaryIndexes {
		name := aws.ToString(g.IndexName)
		sizes[name] = aws.ToInt64(g.IndexSizeBytes)
		if got := aws.ToInt64(g.ItemCount); got != want[name] {
			t.Errorf("%s ItemCount after writes: got %d, want %d", name, got, want[name])
		}
	}
	for _, l := range d.LocalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		sizes[name] = aws.ToInt64(l.IndexSizeBytes)
		if got := aws.ToInt64(l.ItemCount); got != want[name] {
			t.Errorf("%s ItemCount after writes: got %d, want %d", name, got, want[name])
		}
	}
	for name, size := range sizes {
		if size <= 0 {
			t.Errorf("%s IndexSizeBytes: got %d, want > 0", name, size)
		}
	}
	return sizes
}

// TestIndexDescribe creates a table with GSIs of every projection type and
// LSIs, and checks what DescribeTable reports for each index before and
// after writes (counts match the items that carry the index keys).
func TestIndexDescribe(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	gsis := []types.GlobalSecondaryIndex{
		gsiDef("byStatus", []string{"status"}, []string{"created"}, types.ProjectionTypeKeysOnly),
		gsiDef("byOwner", []string{"owner"}, nil, types.ProjectionTypeInclude, "title", "size"),
		gsiDef("byCat", []string{"cat"}, []string{"created"}, types.ProjectionTypeAll),
	}
	lsis := []types.LocalSecondaryIndex{
		lsiDef("byCreated", "created", types.ProjectionTypeKeysOnly),
		lsiDef("byTitle", "title", types.ProjectionTypeAll),
	}
	createIndexed(t, c, "IxDesc", true, map[string]types.ScalarAttributeType{
		"status": types.ScalarAttributeTypeS, "created": types.ScalarAttributeTypeN,
		"owner": types.ScalarAttributeTypeS, "cat": types.ScalarAttributeTypeS, "title": types.ScalarAttributeTypeS,
	}, gsis, lsis)

	d := describeIndexes(t, c, "IxDesc")
	if got, want := len(d.GlobalSecondaryIndexes), 3; got != want {
		t.Fatalf("GlobalSecondaryIndexes: got %d, want %d", got, want)
	}
	if got, want := len(d.LocalSecondaryIndexes), 2; got != want {
		t.Fatalf("LocalSecondaryIndexes: got %d, want %d", got, want)
	}
	checkDescribedIndexes(t, d, gsis, lsis)

	items := describeItems()
	putAll(t, c, "IxDesc", items)
	// A GSI read waits for the index to catch up, so the counts below are final.
	for _, g := range gsis {
		scanPages(t, c, "IxDesc", aws.ToString(g.IndexName), 0, nil)
	}
	d = describeIndexes(t, c, "IxDesc")
	sizes := checkIndexCounts(t, d, map[string]int64{"byStatus": 10, "byOwner": 7, "byCat": 20, "byCreated": 20, "byTitle": 5})
	// An ALL index holding every item is as large as the table; a KEYS_ONLY
	// index holding the same items is smaller.
	if got, want := sizes["byCat"], aws.ToInt64(d.TableSizeBytes); got != want {
		t.Errorf("byCat (ALL, every item) IndexSizeBytes: got %d, want the table's %d", got, want)
	}
	if sizes["byCreated"] >= sizes["byCat"] {
		t.Errorf("IndexSizeBytes: KEYS_ONLY byCreated %d, want < ALL byCat %d", sizes["byCreated"], sizes["byCat"])
	}

	// ListTables-level sanity: the SDK's waiter accepts the table with indexes.
	w := dynamodb.NewTableExistsWaiter(c)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("IxDesc")}, 5e9); err != nil {
		t.Fatalf("TableExistsWaiter: %v", err)
	}
}

// ksString renders a key schema as "a:HASH,b:RANGE".
func ksString(ks []types.KeySchemaElement) string {
	out := ""
	for i, k := range ks {
		if i > 0 {
			out += ","
		}
		out += aws.ToString(k.AttributeName) + ":" + string(k.KeyType)
	}
	return out
}

// projString renders a projection as "TYPE[nonkey...]".
func projString(p *types.Projection) string {
	if p == nil {
		return "<nil>"
	}
	nk := slices.Clone(p.NonKeyAttributes)
	slices.Sort(nk)
	return fmt.Sprintf("%s%v", p.ProjectionType, nk)
}
