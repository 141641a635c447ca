package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// propModels is the index set of the property and crash tests' tables: two
// GSIs (one with a sort key and INCLUDE, one KEYS_ONLY on a number) and,
// when withLSI, one INCLUDE LSI.
func propModels(withLSI bool) []ixModel {
	tk := []string{"pk", "sk"}
	ms := []ixModel{
		{name: "gs1", keys: map[string]types.ScalarAttributeType{"ga": "S", "gb": "N"}, tableKey: tk, proj: types.ProjectionTypeInclude, nonKey: []string{"x"}},
		{name: "gs2", keys: map[string]types.ScalarAttributeType{"gc": "N"}, tableKey: tk, proj: types.ProjectionTypeKeysOnly},
	}
	if withLSI {
		ms = append(ms, ixModel{name: "ls1", keys: map[string]types.ScalarAttributeType{"pk": "S", "ld": "S"}, tableKey: tk, proj: types.ProjectionTypeInclude, nonKey: []string{"y"}})
	}
	return ms
}

// createPropTable creates name with the indexes of propModels.
func createPropTable(t testing.TB, c *dynamodb.Client, name string, withLSI bool) {
	t.Helper()
	defs := map[string]types.ScalarAttributeType{"ga": "S", "gb": "N", "gc": "N"}
	var lsis []types.LocalSecondaryIndex
	if withLSI {
		defs["ld"] = "S"
		lsis = []types.LocalSecondaryIndex{lsiDef("ls1", "ld", types.ProjectionTypeInclude, "y")}
	}
	createIndexed(t, c, name, true, defs, []types.GlobalSecondaryIndex{
		gsiDef("gs1", []string{"ga"}, []string{"gb"}, types.ProjectionTypeInclude, "x"),
		gsiDef("gs2", []string{"gc"}, nil, types.ProjectionTypeKeysOnly),
	}, lsis)
}

// propWrite performs one random write on table name over nKeys keys:
// puts with random subsets of index attributes, updates that set, change
// or remove index key attributes, and deletes. It returns the error.
func propWrite(ctx context.Context, c *dynamodb.Client, r *rand.Rand, name string, nKeys int, withLSI bool) error {
	k := r.IntN(nKeys)
	key := ritem{"pk": s(fmt.Sprintf("p%02d", k/5)), "sk": s(fmt.Sprintf("s%d", k%5))}
	val := func(attr string) types.AttributeValue {
		switch attr {
		case "ga", "ld":
			return s(fmt.Sprintf("%s%d", attr, r.IntN(4)))
		case "gb", "gc":
			return n(fmt.Sprint(r.IntN(6)))
		default:
			return s(strings.Repeat(attr, 1+r.IntN(5)))
		}
	}
	attrs := []string{"ga", "gb", "gc", "x", "y", "z"}
	if withLSI {
		attrs = append(attrs, "ld")
	}
	switch op := r.IntN(10); {
	case op < 4: // put
		it := ritem{"pk": key["pk"], "sk": key["sk"]}
		for _, a := range attrs {
			if r.IntN(3) > 0 {
				it[a] = val(a)
			}
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: it})
		return err
	case op < 9: // update: SET some, REMOVE some
		var set, rem []string
		vals := map[string]types.AttributeValue{}
		for _, a := range attrs {
			switch r.IntN(4) {
			case 0:
				set = append(set, fmt.Sprintf("%s = :%s", a, a))
				vals[":"+a] = val(a)
			case 1:
				rem = append(rem, a)
			}
		}
		if len(set) == 0 && len(rem) == 0 {
			rem = []string{"z"}
		}
		expr := ""
		if len(set) > 0 {
			expr = "SET " + strings.Join(set, ", ")
		}
		if len(rem) > 0 {
			expr += " REMOVE " + strings.Join(rem, ", ")
		}
		in := &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key, UpdateExpression: aws.String(expr)}
		if len(vals) > 0 {
			in.ExpressionAttributeValues = vals
		}
		_, err := c.UpdateItem(ctx, in)
		return err
	default:
		_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: key})
		return err
	}
}

// checkIndexesMatch scans the table and every index (with paging) and
// compares each index with its recomputation from the table.
func checkIndexesMatch(t testing.TB, c *dynamodb.Client, name string, models []ixModel) {
	t.Helper()
	items := scanPages(t, c, name, "", 0, nil)
	for _, m := range models {
		want := m.expected(items)
		keyNames := append([]string{"pk", "sk"}, mapKeys(m.keys)...)
		if m.name == "ls1" {
			keyNames = []string{"pk", "sk", "ld"}
		}
		got := scanPages(t, c, name, m.name, 17, keyNames)
		if d := diffSets(canonAll(got), want); d != "" {
			t.Errorf("index %s differs from its recomputation over %d items: %s", m.name, len(items), d)
		}
	}
}

// TestIndexProperty runs a seeded random sequence of writes on a table with
// two GSIs and an LSI, then checks that every index equals the index
// recomputed from the table.
func TestIndexProperty(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createPropTable(t, c, "IxProp", true)
	const ops, keys = 2000, 200
	r := rand.New(rand.NewPCG(20260101, 5))
	for i := range ops {
		if err := propWrite(ctx, c, r, "IxProp", keys, true); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		// Check midway too, so a GSI read racing ongoing writes is covered.
		if i == ops/2 {
			checkIndexesMatch(t, c, "IxProp", propModels(true))
		}
	}
	checkIndexesMatch(t, c, "IxProp", propModels(true))
	// The GSI item counts agree with the content.
	d := describeIndexes(t, c, "IxProp")
	items := scanPages(t, c, "IxProp", "", 0, nil)
	for _, g := range d.GlobalSecondaryIndexes {
		for _, m := range propModels(true) {
			if m.name == aws.ToString(g.IndexName) {
				if got, want := aws.ToInt64(g.ItemCount), int64(len(m.expected(items))); got != want {
					t.Errorf("%s ItemCount: got %d, want %d", m.name, got, want)
				}
			}
		}
	}
}
