package integration

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ordersTable creates "Orders" (pk S, sk S) with three GSIs:
// byStatus (status S, amount N) ALL, byCustKeys (cust S) KEYS_ONLY and
// byCustInc (cust S) INCLUDE [note], and loads 12 orders o00..o11: amount
// i%4*10 (non-unique), status open/closed alternating except o03 and o07
// which have none (sparse), cust c<i%3>, a note on even ones.
func ordersTable(t *testing.T, c *dynamodb.Client) []ritem {
	t.Helper()
	createIndexed(t, c, "Orders", true, map[string]types.ScalarAttributeType{
		"status": types.ScalarAttributeTypeS, "amount": types.ScalarAttributeTypeN, "cust": types.ScalarAttributeTypeS,
	}, []types.GlobalSecondaryIndex{
		gsiDef("byStatus", []string{"status"}, []string{"amount"}, types.ProjectionTypeAll),
		gsiDef("byCustKeys", []string{"cust"}, nil, types.ProjectionTypeKeysOnly),
		gsiDef("byCustInc", []string{"cust"}, nil, types.ProjectionTypeInclude, "note"),
	}, nil)
	var items []ritem
	for i := range 12 {
		it := ritem{"pk": s(fmt.Sprintf("o%02d", i)), "sk": s("x"), "amount": n(strconv.Itoa(i % 4 * 10)),
			"cust": s(fmt.Sprintf("c%d", i%3)), "extra": s("e")}
		if i != 3 && i != 7 {
			it["status"] = s([]string{"open", "closed"}[i%2])
		}
		if i%2 == 0 {
			it["note"] = s("n" + strconv.Itoa(i))
		}
		items = append(items, it)
	}
	putAll(t, c, "Orders", items)
	return items
}

// pkAmounts renders items as "pk/amount" in result order.
func pkAmounts(items []ritem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, rstr(it, "pk")+"/"+rnum(it, "amount"))
	}
	return out
}

// gsiQuery queries Orders' index byStatus with a key condition, forward
// or backward.
type gsiQuery func(kce string, vals map[string]types.AttributeValue, forward bool) []ritem

// checkIndexKeyMoves checks, through q, that an update of the index key
// moves the entry; removing it drops the entry; adding it back restores
// it; a delete removes it.
func checkIndexKeyMoves(t *testing.T, c *dynamodb.Client, q gsiQuery) {
	t.Helper()
	ctx := context.Background()
	upd := func(pk, expr string, vals map[string]types.AttributeValue) {
		t.Helper()
		in := &dynamodb.UpdateItemInput{TableName: aws.String("Orders"), Key: ritem{"pk": s(pk), "sk": s("x")},
			UpdateExpression: aws.String(expr), ExpressionAttributeNames: map[string]string{"#s": "status"}}
		if len(vals) > 0 {
			in.ExpressionAttributeValues = vals
		}
		if _, err := c.UpdateItem(ctx, in); err != nil {
			t.Fatalf("UpdateItem %s %s: %v", pk, expr, err)
		}
	}
	has := func(items []ritem, pk string) bool {
		return slices.ContainsFunc(items, func(it ritem) bool { return rstr(it, "pk") == pk })
	}
	upd("o00", "SET #s = :s", rvals(":s", s("closed")))
	if has(q("#s = :s", rvals(":s", s("open")), true), "o00") || !has(q("#s = :s", rvals(":s", s("closed")), true), "o00") {
		t.Errorf("after SET status closed: o00 did not move from open to closed")
	}
	upd("o00", "REMOVE #s", nil)
	if has(q("#s = :s", rvals(":s", s("closed")), true), "o00") {
		t.Errorf("after REMOVE status: o00 still in byStatus")
	}
	upd("o03", "SET #s = :s, amount = :a", rvals(":s", s("open"), ":a", n("99")))
	got := q("#s = :s AND amount = :a", rvals(":s", s("open"), ":a", n("99")), true)
	if len(got) != 1 || rstr(got[0], "pk") != "o03" {
		t.Errorf("after adding status to o03: got %v, want [o03/99]", pkAmounts(got))
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Orders"), Key: ritem{"pk": s("o03"), "sk": s("x")}}); err != nil {
		t.Fatal(err)
	}
	if has(q("#s = :s", rvals(":s", s("open")), true), "o03") {
		t.Errorf("after DeleteItem: o03 still in byStatus")
	}
}

func TestGSIQuery(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	ordersTable(t, c)
	var q gsiQuery = func(kce string, vals map[string]types.AttributeValue, forward bool) []ritem {
		t.Helper()
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String("byStatus"),
			KeyConditionExpression: aws.String(kce), ExpressionAttributeNames: map[string]string{"#s": "status"},
			ExpressionAttributeValues: vals, ScanIndexForward: aws.Bool(forward)})
		if err != nil {
			t.Fatalf("Query %s: %v", kce, err)
		}
		if got := int(out.Count); got != len(out.Items) {
			t.Fatalf("Query %s: Count %d, want len(Items) %d", kce, got, len(out.Items))
		}
		return out.Items
	}
	open := q("#s = :s", rvals(":s", s("open")), true)
	// open: o00 o02 o04 o06 o08 o10 with amounts 0 20 0 20 0 20.
	if got, want := len(open), 6; got != want {
		t.Fatalf("open: got %d items %v, want %d", got, pkAmounts(open), want)
	}
	for i := 1; i < len(open); i++ {
		a, _ := strconv.Atoi(rnum(open[i-1], "amount"))
		b, _ := strconv.Atoi(rnum(open[i], "amount"))
		if a > b {
			t.Fatalf("open: not in amount order: %v", pkAmounts(open))
		}
	}
	// Non-unique index keys come back in a deterministic order: the same
	// every time, and exactly reversed backwards.
	again := q("#s = :s", rvals(":s", s("open")), true)
	if got, want := pkAmounts(again), pkAmounts(open); !slices.Equal(got, want) {
		t.Errorf("repeated query order: got %v, want %v", got, want)
	}
	back := q("#s = :s", rvals(":s", s("open")), false)
	rev := pkAmounts(open)
	slices.Reverse(rev)
	if got := pkAmounts(back); !slices.Equal(got, rev) {
		t.Errorf("ScanIndexForward false: got %v, want %v", got, rev)
	}
	// An ALL index returns whole items.
	if got, want := ixNames(open[0]), []string{"amount", "cust", "extra", "note", "pk", "sk", "status"}; !slices.Equal(got, want) {
		t.Errorf("byStatus (ALL) item attributes: got %v, want %v", got, want)
	}

	// closed items: o01(10) o05(10) o09(10) o11(30).
	tests := []struct {
		kce  string
		vals map[string]types.AttributeValue
		want int
	}{
		{"#s = :s AND amount = :a", rvals(":s", s("open"), ":a", n("20")), 3},
		{"#s = :s AND amount > :a", rvals(":s", s("closed"), ":a", n("10")), 1},
		{"#s = :s AND amount BETWEEN :a AND :b", rvals(":s", s("closed"), ":a", n("10"), ":b", n("30")), 4},
		{"#s = :s AND amount < :a", rvals(":s", s("open"), ":a", n("20")), 3},
		{"#s = :s", rvals(":s", s("nobody")), 0},
	}
	for _, tc := range tests {
		if got := len(q(tc.kce, tc.vals, true)); got != tc.want {
			t.Errorf("Query %s %v: got %d items, want %d", tc.kce, tc.vals, got, tc.want)
		}
	}

	// Sparse: o03 and o07 have no status and are absent from byStatus.
	all := scanPages(t, c, "Orders", "byStatus", 0, nil)
	for _, it := range all {
		if pk := rstr(it, "pk"); pk == "o03" || pk == "o07" {
			t.Errorf("byStatus Scan: item %s without status is present", pk)
		}
	}
	if got, want := len(all), 10; got != want {
		t.Errorf("byStatus Scan: got %d items, want %d", got, want)
	}

	checkIndexKeyMoves(t, c, q)
}

// gsiErrorCase is one refused request of TestGSIProjections.
type gsiErrorCase struct {
	name string
	run  func() error
	code string
	msg  string
}

// gsiErrorCases are the requests on Orders' global indexes that
// TestGSIProjections expects refused; query queries customer c0 through an
// index with a Select.
func gsiErrorCases(ctx context.Context, c *dynamodb.Client, query func(index string, sel types.Select) ([]ritem, error)) []gsiErrorCase {
	return []gsiErrorCase{
		{"Query ALL_ATTRIBUTES on KEYS_ONLY", func() error { _, err := query("byCustKeys", types.SelectAllAttributes); return err },
			"ValidationException", "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index byCustKeys because its projection type is not ALL"},
		{"Query ALL_ATTRIBUTES on INCLUDE", func() error { _, err := query("byCustInc", types.SelectAllAttributes); return err },
			"ValidationException", "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index byCustInc because its projection type is not ALL"},
		{"Scan ALL_ATTRIBUTES on KEYS_ONLY", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Orders"), IndexName: aws.String("byCustKeys"), Select: types.SelectAllAttributes})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported for global secondary index byCustKeys because its projection type is not ALL"},
		{"Query ConsistentRead", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String("byCustKeys"), ConsistentRead: aws.Bool(true),
				KeyConditionExpression: aws.String("cust = :c"), ExpressionAttributeValues: rvals(":c", s("c0"))})
			return err
		}, "ValidationException", "Consistent reads are not supported on global secondary indexes"},
		{"Scan ConsistentRead", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Orders"), IndexName: aws.String("byStatus"), ConsistentRead: aws.Bool(true)})
			return err
		}, "ValidationException", "Consistent reads are not supported on global secondary indexes"},
		{"unknown index", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Orders"), IndexName: aws.String("nope")})
			return err
		}, "ValidationException", "The table does not have the specified index: nope"},
		{"table key condition on index", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String("byCustKeys"),
				KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: rvals(":p", s("o00"))})
			return err
		}, "ValidationException", "Query condition missed key schema element: cust"},
		{"wrong key value type", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String("byStatus"),
				KeyConditionExpression: aws.String("#s = :s AND amount > :a"), ExpressionAttributeNames: map[string]string{"#s": "status"},
				ExpressionAttributeValues: rvals(":s", s("open"), ":a", s("10"))})
			return err
		}, "ValidationException", "One or more parameter values were invalid: Condition parameter type does not match schema type"},
	}
}

func TestGSIProjections(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	ordersTable(t, c)
	query := func(index string, sel types.Select) ([]ritem, error) {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String(index),
			KeyConditionExpression: aws.String("cust = :c"), ExpressionAttributeValues: rvals(":c", s("c0")), Select: sel})
		if err != nil {
			return nil, err
		}
		return out.Items, nil
	}
	// c0: o00 o03 o06 o09; o00 and o06 have notes.
	for _, tc := range []struct {
		index string
		sel   types.Select
		want  map[string][]string
	}{
		{"byCustKeys", "", map[string][]string{"o00": {"cust", "pk", "sk"}, "o03": {"cust", "pk", "sk"}}},
		{"byCustKeys", types.SelectAllProjectedAttributes, map[string][]string{"o06": {"cust", "pk", "sk"}}},
		{"byCustInc", "", map[string][]string{"o00": {"cust", "note", "pk", "sk"}, "o09": {"cust", "pk", "sk"}}},
	} {
		items, err := query(tc.index, tc.sel)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.index, tc.sel, err)
		}
		if len(items) != 4 {
			t.Fatalf("%s: got %d items, want 4", tc.index, len(items))
		}
		for _, it := range items {
			if want, ok := tc.want[rstr(it, "pk")]; ok {
				if got := ixNames(it); !slices.Equal(got, want) {
					t.Errorf("%s %s item %s: got attributes %v, want %v", tc.index, tc.sel, rstr(it, "pk"), got, want)
				}
			}
		}
	}
	// ProjectionExpression within the projection works.
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Orders"), IndexName: aws.String("byCustInc"),
		KeyConditionExpression: aws.String("cust = :c"), ExpressionAttributeValues: rvals(":c", s("c0")),
		ProjectionExpression: aws.String("note")})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(out.Items); got != 4 {
		t.Fatalf("ProjectionExpression note: got %d items, want 4", got)
	}
	for _, it := range out.Items {
		for k := range it {
			if k != "note" {
				t.Errorf("ProjectionExpression note: got attribute %s", k)
			}
		}
	}

	// Errors.
	for _, tc := range gsiErrorCases(ctx, c, query) {
		wantAPIError(t, tc.run(), tc.code, tc.msg)
	}
}

// TestGSIPaging pages through a GSI partition with a small Limit: every
// LastEvaluatedKey carries the index and table key attributes, and resuming
// returns every item exactly once, in the unpaged order.
func TestGSIPaging(t *testing.T) {
	c := newClient(t)
	createIndexed(t, c, "IxPage", true, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS, "r": types.ScalarAttributeTypeN},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, []string{"r"}, types.ProjectionTypeKeysOnly)}, nil)
	var items []ritem
	for i := range 40 {
		// r repeats: four items share each index sort key value.
		items = append(items, ritem{"pk": s(fmt.Sprintf("p%02d", i%7)), "sk": s(fmt.Sprintf("s%02d", i)), "g": s([]string{"a", "b"}[i%2]), "r": n(strconv.Itoa(i / 8))})
	}
	putAll(t, c, "IxPage", items)
	in := dynamodb.QueryInput{TableName: aws.String("IxPage"), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: rvals(":g", s("a"))}
	whole, pages := queryPages(t, c, in, nil)
	if pages != 1 || len(whole) != 20 {
		t.Fatalf("unpaged: got %d items in %d pages, want 20 in 1", len(whole), pages)
	}
	keyNames := []string{"pk", "sk", "g", "r"}
	for _, forward := range []bool{true, false} {
		for _, limit := range []int32{1, 3, 7, 20} {
			in := in
			in.Limit = aws.Int32(limit)
			in.ScanIndexForward = aws.Bool(forward)
			got, _ := queryPages(t, c, in, keyNames)
			want := canonAll(whole)
			order := func(items []ritem) []string {
				out := []string{}
				for _, it := range items {
					out = append(out, canonItem(it))
				}
				return out
			}
			w := order(whole)
			if !forward {
				slices.Reverse(w)
			}
			if g := order(got); !slices.Equal(g, w) {
				t.Errorf("forward=%v Limit %d: got order %v, want %v", forward, limit, g, w)
			}
			if d := diffSets(canonAll(got), want); d != "" {
				t.Errorf("forward=%v Limit %d: %s", forward, limit, d)
			}
		}
	}
	// A Scan of the index pages the same way.
	for _, limit := range []int32{1, 6, 100} {
		got := scanPages(t, c, "IxPage", "byG", limit, keyNames)
		if d := diffSets(canonAll(got), canonAll(scanPages(t, c, "IxPage", "byG", 0, nil))); d != "" || len(got) != 40 {
			t.Errorf("Scan Limit %d: %d items; %s", limit, len(got), d)
		}
	}
	// A start key without the index keys is rejected.
	bad := in
	bad.ExclusiveStartKey = ritem{"pk": s("p00"), "sk": s("s00")}
	_, err := c.Query(context.Background(), &bad)
	wantAPIErrorPrefix(t, err, "ValidationException", "The provided starting key is invalid")
}

// TestGSIParallelScan scans an index in 1..5 segments: the segments'
// union is the index, with no item twice.
func TestGSIParallelScan(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "IxPar", false, map[string]types.ScalarAttributeType{"g": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byG", []string{"g"}, nil, types.ProjectionTypeAll)}, nil)
	var items []ritem
	for i := range 200 {
		it := ritem{"pk": s(fmt.Sprintf("k%03d", i))}
		if i%5 != 0 {
			it["g"] = s(fmt.Sprintf("g%02d", i%37))
		}
		items = append(items, it)
	}
	putAll(t, c, "IxPar", items)
	want := ixModel{keys: map[string]types.ScalarAttributeType{"g": "S"}, proj: types.ProjectionTypeAll}.expected(items)
	for total := int32(1); total <= 5; total++ {
		var got []ritem
		for seg := range total {
			in := &dynamodb.ScanInput{TableName: aws.String("IxPar"), IndexName: aws.String("byG"),
				Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(13)}
			for {
				out, err := c.Scan(ctx, in)
				if err != nil {
					t.Fatalf("Scan segment %d/%d: %v", seg, total, err)
				}
				got = append(got, out.Items...)
				if out.LastEvaluatedKey == nil {
					break
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		}
		if d := diffSets(canonAll(got), want); d != "" {
			t.Errorf("TotalSegments %d: %s", total, d)
		}
	}
}

// TestGSIIndexCapacity checks the index write units reported under
// ReturnConsumedCapacity INDEXES.
func TestGSIIndexCapacity(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "IxCap", false, map[string]types.ScalarAttributeType{"a": types.ScalarAttributeTypeS, "b": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{
			gsiDef("byA", []string{"a"}, nil, types.ProjectionTypeAll),
			gsiDef("byB", []string{"b"}, nil, types.ProjectionTypeKeysOnly),
		}, nil)
	gsiUnits := func(cc *types.ConsumedCapacity) map[string]float64 {
		out := map[string]float64{}
		for name, v := range cc.GlobalSecondaryIndexes {
			out[name] = aws.ToFloat64(v.CapacityUnits)
		}
		return out
	}
	put := func(it ritem) *types.ConsumedCapacity {
		t.Helper()
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxCap"), Item: it, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		return out.ConsumedCapacity
	}
	update := func(expr string, vals map[string]types.AttributeValue) *types.ConsumedCapacity {
		t.Helper()
		in := &dynamodb.UpdateItemInput{TableName: aws.String("IxCap"), Key: ritem{"pk": s("k")},
			UpdateExpression: aws.String(expr), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
		if vals != nil {
			in.ExpressionAttributeValues = vals
		}
		out, err := c.UpdateItem(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return out.ConsumedCapacity
	}
	type step struct {
		name      string
		cc        func() *types.ConsumedCapacity
		wantTotal float64
		wantGSI   map[string]float64
	}
	for _, st := range []step{
		{"put in both", func() *types.ConsumedCapacity { return put(ritem{"pk": s("k"), "a": s("1"), "b": s("1")}) }, 3, map[string]float64{"byA": 1, "byB": 1}},
		{"change a (key change: delete + put)", func() *types.ConsumedCapacity { return update("SET a = :v", rvals(":v", s("2"))) }, -1, map[string]float64{"byA": 2}},
		{"remove b (leaves byB; byA projects b)", func() *types.ConsumedCapacity { return update("REMOVE b", nil) }, 3, map[string]float64{"byA": 1, "byB": 1}},
		{"put without index keys over an indexed item", func() *types.ConsumedCapacity { return put(ritem{"pk": s("k")}) }, 2, map[string]float64{"byA": 1}},
		{"put in no index", func() *types.ConsumedCapacity { return put(ritem{"pk": s("k2")}) }, 1, map[string]float64{}},
	} {
		cc := st.cc()
		if cc == nil {
			t.Fatalf("%s: no ConsumedCapacity", st.name)
		}
		// wantTotal -1: the total depends on unprojected-update accounting,
		// which TestGSIIndexCapacityUnprojectedUpdate covers.
		if got := aws.ToFloat64(cc.CapacityUnits); st.wantTotal >= 0 && got != st.wantTotal {
			t.Errorf("%s: CapacityUnits got %v, want %v", st.name, got, st.wantTotal)
		}
		if cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != 1 {
			t.Errorf("%s: Table capacity got %+v, want 1", st.name, cc.Table)
		}
		got := gsiUnits(cc)
		for name, w := range st.wantGSI {
			if got[name] != w {
				t.Errorf("%s: GlobalSecondaryIndexes[%s] got %v, want %v (all: %v)", st.name, name, got[name], w, got)
			}
		}
	}
}

// TestGSIIndexCapacityUnprojectedUpdate: an update that changes no
// attribute an index projects writes nothing to that index (developer guide,
// "Provisioned throughput considerations for global secondary indexes").
func TestGSIIndexCapacityUnprojectedUpdate(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createIndexed(t, c, "IxCapU", false, map[string]types.ScalarAttributeType{"b": types.ScalarAttributeTypeS},
		[]types.GlobalSecondaryIndex{gsiDef("byB", []string{"b"}, nil, types.ProjectionTypeKeysOnly)}, nil)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("IxCapU"), Item: ritem{"pk": s("k"), "b": s("1")}}); err != nil {
		t.Fatal(err)
	}
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("IxCapU"), Key: ritem{"pk": s("k")},
		UpdateExpression: aws.String("SET extra = :v"), ExpressionAttributeValues: rvals(":v", s("x")),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := aws.ToFloat64(out.ConsumedCapacity.CapacityUnits), 1.0; got != want {
		t.Errorf("update of an unprojected attribute: CapacityUnits got %v, want %v (GSIs %v)", got, want, out.ConsumedCapacity.GlobalSecondaryIndexes)
	}
}
