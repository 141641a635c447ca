package integration

// Helpers shared by the secondary-index tests (index_*_test.go,
// binary_index_test.go): index definitions, paged reads of an index, and the
// recomputation of an index's content from its table.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ixKeys builds a key schema: the hash attributes, then the range attributes.
func ixKeys(hash []string, rng ...string) []types.KeySchemaElement {
	var ks []types.KeySchemaElement
	for _, h := range hash {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(h), KeyType: types.KeyTypeHash})
	}
	for _, r := range rng {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(r), KeyType: types.KeyTypeRange})
	}
	return ks
}

// ixProjection is a Projection of type p with the given non-key attributes.
func ixProjection(p types.ProjectionType, nonKey ...string) *types.Projection {
	return &types.Projection{ProjectionType: p, NonKeyAttributes: nonKey}
}

// gsiDef is a global secondary index on one hash attribute and optional range
// attributes.
func gsiDef(name string, hash []string, rng []string, p types.ProjectionType, nonKey ...string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: ixKeys(hash, rng...), Projection: ixProjection(p, nonKey...)}
}

// lsiDef is a local secondary index on the table's pk and sort attribute rng.
func lsiDef(name, rng string, p types.ProjectionType, nonKey ...string) types.LocalSecondaryIndex {
	return types.LocalSecondaryIndex{IndexName: aws.String(name), KeySchema: ixKeys([]string{"pk"}, rng), Projection: ixProjection(p, nonKey...)}
}

// createIndexed creates a PAY_PER_REQUEST table keyed pk S (+ sk S when
// withSort) with the given extra attribute definitions and indexes.
func createIndexed(t testing.TB, c *dynamodb.Client, name string, withSort bool, defs map[string]types.ScalarAttributeType,
	gsis []types.GlobalSecondaryIndex, lsis []types.LocalSecondaryIndex) {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:              aws.String(name),
		BillingMode:            types.BillingModePayPerRequest,
		AttributeDefinitions:   []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:              ixKeys([]string{"pk"}),
		GlobalSecondaryIndexes: gsis,
		LocalSecondaryIndexes:  lsis,
	}
	if withSort {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS})
		in.KeySchema = ixKeys([]string{"pk"}, "sk")
	}
	names := make([]string, 0, len(defs))
	for a := range defs {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: defs[a]})
	}
	if _, err := c.CreateTable(context.Background(), in); err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
}

// canon renders an attribute value canonically (map keys and set members
// sorted), so items can be compared as strings.
func canon(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S" + fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return "N" + v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL%v", v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		ss := slices.Clone(v.Value)
		sort.Strings(ss)
		return fmt.Sprintf("SS%q", ss)
	case *types.AttributeValueMemberNS:
		ns := slices.Clone(v.Value)
		sort.Strings(ns)
		return fmt.Sprintf("NS%v", ns)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canon(e)
		}
		return "L[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M" + canonItem(v.Value)
	}
	return fmt.Sprintf("?%T", v)
}

// canonItem renders an item canonically.
func canonItem(it ritem) string {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + ":" + canon(it[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// ixModel is what a test knows about an index: enough to recompute it.
type ixModel struct {
	name     string
	keys     map[string]types.ScalarAttributeType // index key attributes and types
	tableKey []string
	proj     types.ProjectionType
	nonKey   []string
}

// project returns the entry the index holds for item, or nil when the item
// is absent from it (a missing key attribute or one of another type).
func (m ixModel) project(it ritem) ritem {
	for k, typ := range m.keys {
		if !hasType(it[k], typ) {
			return nil
		}
	}
	if m.proj == types.ProjectionTypeAll {
		return it
	}
	out := ritem{}
	keep := append(append(slices.Clone(m.tableKey), m.nonKey...), mapKeys(m.keys)...)
	for _, k := range keep {
		if v, ok := it[k]; ok {
			out[k] = v
		}
	}
	return out
}

func mapKeys(m map[string]types.ScalarAttributeType) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hasType(v types.AttributeValue, typ types.ScalarAttributeType) bool {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return typ == types.ScalarAttributeTypeS
	case *types.AttributeValueMemberN:
		return typ == types.ScalarAttributeTypeN
	case *types.AttributeValueMemberB:
		return typ == types.ScalarAttributeTypeB
	}
	return false
}

// expected returns the sorted canonical entries of index m over items.
func (m ixModel) expected(items []ritem) []string {
	out := []string{}
	for _, it := range items {
		if e := m.project(it); e != nil {
			out = append(out, canonItem(e))
		}
	}
	sort.Strings(out)
	return out
}

// scanPages scans a table (index "") or index to the end with page size
// limit (0 for none) and returns every item. It checks that every
// LastEvaluatedKey carries exactly keyNames when keyNames is not nil.
func scanPages(t testing.TB, c *dynamodb.Client, tableName, index string, limit int32, keyNames []string) []ritem {
	t.Helper()
	in := &dynamodb.ScanInput{TableName: aws.String(tableName)}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	var all []ritem
	for range 100000 {
		out, err := c.Scan(context.Background(), in)
		if err != nil {
			t.Fatalf("Scan %s %s: %v", tableName, index, err)
		}
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all
		}
		if keyNames != nil {
			checkKeyNames(t, "Scan "+index, out.LastEvaluatedKey, keyNames)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	t.Fatalf("Scan %s %s: too many pages", tableName, index)
	return nil
}

// queryPages runs in to the end, following LastEvaluatedKey, and returns
// every item and the number of pages.
func queryPages(t testing.TB, c *dynamodb.Client, in dynamodb.QueryInput, keyNames []string) ([]ritem, int) {
	t.Helper()
	var all []ritem
	for pages := 1; pages < 100000; pages++ {
		out, err := c.Query(context.Background(), &in)
		if err != nil {
			t.Fatalf("Query %s: %v", aws.ToString(in.IndexName), err)
		}
		all = append(all, out.Items...)
		if out.LastEvaluatedKey == nil {
			return all, pages
		}
		if keyNames != nil {
			checkKeyNames(t, "Query "+aws.ToString(in.IndexName), out.LastEvaluatedKey, keyNames)
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	t.Fatal("Query: too many pages")
	return nil, 0
}

// checkKeyNames asserts that key has exactly the attributes names.
func checkKeyNames(t testing.TB, what string, key ritem, names []string) {
	t.Helper()
	got := make([]string, 0, len(key))
	for k := range key {
		got = append(got, k)
	}
	sort.Strings(got)
	want := slices.Clone(names)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: LastEvaluatedKey attributes: got %v, want %v", what, got, want)
	}
}

// canonAll returns the sorted canonical forms of items.
func canonAll(items []ritem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = canonItem(it)
	}
	sort.Strings(out)
	return out
}

// diffSets describes how got and want (sorted) differ, or "" when equal.
func diffSets(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	gm, wm := map[string]int{}, map[string]int{}
	for _, g := range got {
		gm[g]++
	}
	for _, w := range want {
		wm[w]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "got %d entries, want %d", len(got), len(want))
	shown := 0
	for k, n := range gm {
		if wm[k] != n && shown < 5 {
			fmt.Fprintf(&b, "\n  got %dx, want %dx: %s", n, wm[k], k)
			shown++
		}
	}
	for k, n := range wm {
		if _, ok := gm[k]; !ok && shown < 10 {
			fmt.Fprintf(&b, "\n  missing (want %dx): %s", n, k)
			shown++
		}
	}
	return b.String()
}

// ixNames returns the names of items' attributes, sorted.
func ixNames(it ritem) []string {
	out := make([]string, 0, len(it))
	for k := range it {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// describeIndexes returns the table's description.
func describeIndexes(t testing.TB, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", name, err)
	}
	return out.Table
}
