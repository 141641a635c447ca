package integration

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// sks returns the sort keys (S or N, as text) of items, in order.
func rsks(items []ritem) []string {
	out := []string{}
	for _, it := range items {
		switch v := it["sk"].(type) {
		case *types.AttributeValueMemberS:
			out = append(out, v.Value)
		case *types.AttributeValueMemberN:
			out = append(out, v.Value)
		case *types.AttributeValueMemberB:
			out = append(out, fmt.Sprintf("%x", v.Value))
		}
	}
	return out
}

func TestQuerySortConditions(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "QrySort", true)
	var items []ritem
	for _, sk := range []string{"a", "ab", "abc", "abd", "b", "ba", "c"} {
		items = append(items, ritem{"pk": s("p"), "sk": s(sk)})
	}
	items = append(items, ritem{"pk": s("other"), "sk": s("ab")})
	putAll(t, c, "QrySort", items)

	tests := []struct {
		cond string
		vals map[string]types.AttributeValue
		want []string
	}{
		{"pk = :p", nil, []string{"a", "ab", "abc", "abd", "b", "ba", "c"}},
		{"pk = :p AND sk = :a", rvals(":a", s("ab")), []string{"ab"}},
		{"pk = :p AND sk < :a", rvals(":a", s("abd")), []string{"a", "ab", "abc"}},
		{"pk = :p AND sk <= :a", rvals(":a", s("abd")), []string{"a", "ab", "abc", "abd"}},
		{"pk = :p AND sk > :a", rvals(":a", s("abd")), []string{"b", "ba", "c"}},
		{"pk = :p AND sk >= :a", rvals(":a", s("abd")), []string{"abd", "b", "ba", "c"}},
		{":a < sk AND pk = :p", rvals(":a", s("b")), []string{"ba", "c"}},
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", s("ab"), ":b", s("b")), []string{"ab", "abc", "abd", "b"}},
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", s("ab"), ":b", s("ab")), []string{"ab"}},
		{"pk = :p AND begins_with(sk, :a)", rvals(":a", s("ab")), []string{"ab", "abc", "abd"}},
		{"pk = :p AND begins_with(sk, :a)", rvals(":a", s("b")), []string{"b", "ba"}},
		{"pk = :p AND begins_with(sk, :a)", rvals(":a", s("z")), []string{}},
		{"pk = :p AND sk = :a", rvals(":a", s("zz")), []string{}},
	}
	for _, tt := range tests {
		for _, forward := range []bool{true, false} {
			v := rvals(":p", s("p"))
			for k, x := range tt.vals {
				v[k] = x
			}
			out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QrySort"), KeyConditionExpression: aws.String(tt.cond),
				ExpressionAttributeValues: v, ScanIndexForward: aws.Bool(forward)})
			if err != nil {
				t.Fatalf("%s: %v", tt.cond, err)
			}
			want := append([]string{}, tt.want...)
			if !forward {
				for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
					want[i], want[j] = want[j], want[i]
				}
			}
			if got := rsks(out.Items); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %v forward=%v: got %v, want %v", tt.cond, tt.vals, forward, got, want)
			}
			if out.Count != int32(len(want)) || out.ScannedCount != int32(len(want)) || out.LastEvaluatedKey != nil {
				t.Errorf("%s: got Count %d ScannedCount %d LEK %v, want %d, %d, none", tt.cond, out.Count, out.ScannedCount, out.LastEvaluatedKey, len(want), len(want))
			}
		}
	}
}

func TestQueryNumberSortOrder(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTyped(t, c, "QryNum", types.ScalarAttributeTypeS, types.ScalarAttributeTypeN)
	var items []ritem
	for _, v := range []string{"7", "-1e3", "0.001", "1E2", "0", "-2.5", "-10", "10", "-0.5", "99.99"} {
		items = append(items, ritem{"pk": s("p"), "sk": n(v)})
	}
	putAll(t, c, "QryNum", items)
	all := []string{"-1000", "-10", "-2.5", "-0.5", "0", "0.001", "7", "10", "99.99", "100"}
	tests := []struct {
		cond string
		vals map[string]types.AttributeValue
		want []string
	}{
		{"pk = :p", nil, all},
		{"pk = :p AND sk < :a", rvals(":a", n("0")), all[:4]},
		{"pk = :p AND sk >= :a", rvals(":a", n("1e1")), all[7:]},
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", n("-2.5"), ":b", n("0.0010")), all[2:6]},
		{"pk = :p AND sk = :a", rvals(":a", n("100.000")), all[9:]},
		{"pk = :p AND sk > :a", rvals(":a", n("-1000")), all[1:]},
		// Bounds that compare one way as numbers and the other as text.
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", n("9"), ":b", n("10")), all[7:8]},
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", n("-10"), ":b", n("-2")), all[1:3]},
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", n("2"), ":b", n("100")), all[6:]},
	}
	for _, tt := range tests {
		v := rvals(":p", s("p"))
		for k, x := range tt.vals {
			v[k] = x
		}
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryNum"), KeyConditionExpression: aws.String(tt.cond),
			ExpressionAttributeValues: v, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("%s: %v", tt.cond, err)
		}
		if got := rsks(out.Items); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %v: got %v, want %v", tt.cond, tt.vals, got, tt.want)
		}
	}
}

func TestQueryBinarySortKey(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTyped(t, c, "QryBin", types.ScalarAttributeTypeB, types.ScalarAttributeTypeB)
	pk := &types.AttributeValueMemberB{Value: []byte{1, 2}}
	var items []ritem
	for _, v := range [][]byte{{0xff, 0x00}, {0x00}, {0x80}, {0x7f}, {0xff}, {0x00, 0x01}, {0xff, 0xff}, {0x01}} {
		items = append(items, ritem{"pk": pk, "sk": &types.AttributeValueMemberB{Value: v}})
	}
	putAll(t, c, "QryBin", items)
	b := func(v ...byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: v} }
	tests := []struct {
		cond string
		vals map[string]types.AttributeValue
		want []string
	}{
		{"pk = :p", nil, []string{"00", "0001", "01", "7f", "80", "ff", "ff00", "ffff"}},
		{"pk = :p AND begins_with(sk, :a)", rvals(":a", b(0xff)), []string{"ff", "ff00", "ffff"}},
		{"pk = :p AND begins_with(sk, :a)", rvals(":a", b(0x00)), []string{"00", "0001"}},
		{"pk = :p AND sk > :a", rvals(":a", b(0x7f)), []string{"80", "ff", "ff00", "ffff"}},
		{"pk = :p AND sk BETWEEN :a AND :b", rvals(":a", b(0x00, 0x01), ":b", b(0x80)), []string{"0001", "01", "7f", "80"}},
	}
	for _, tt := range tests {
		v := rvals(":p", pk)
		for k, x := range tt.vals {
			v[k] = x
		}
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryBin"), KeyConditionExpression: aws.String(tt.cond),
			ExpressionAttributeValues: v})
		if err != nil {
			t.Fatalf("%s: %v", tt.cond, err)
		}
		if got := rsks(out.Items); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s %v: got %v, want %v", tt.cond, tt.vals, got, tt.want)
		}
	}
}

// TestQueryBeginsWithHighCodePoint checks a string prefix ending in the
// highest code point, whose UTF-8 bytes end in 0xbf, not 0xff.
func TestQueryBeginsWithHighCodePoint(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "QryUtf", true)
	top := "\U0010FFFF"
	putAll(t, c, "QryUtf", []ritem{
		{"pk": s("p"), "sk": s("a" + top)}, {"pk": s("p"), "sk": s("a" + top + "z")},
		{"pk": s("p"), "sk": s("a")}, {"pk": s("p"), "sk": s("b")},
	})
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryUtf"), KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :a)"),
		ExpressionAttributeValues: rvals(":p", s("p"), ":a", s("a"+top))})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rsks(out.Items), []string{"a" + top, "a" + top + "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestQueryFilterLimitAndPaging(t *testing.T) {
	c := newClient(t)
	createTable(t, c, "QryFilter", true)
	var items []ritem
	for i := range 10 {
		items = append(items, ritem{"pk": s("p"), "sk": s(fmt.Sprintf("%02d", i)), "odd": &types.AttributeValueMemberBOOL{Value: i%2 == 1}})
	}
	putAll(t, c, "QryFilter", items)
	odd := rvals(":t", &types.AttributeValueMemberBOOL{Value: true})

	out := qryFilter(t, c, dynamodb.QueryInput{FilterExpression: aws.String("odd = :t"), ExpressionAttributeValues: odd})
	if out.Count != 5 || out.ScannedCount != 10 || len(out.Items) != 5 {
		t.Errorf("filter: got Count %d ScannedCount %d items %d, want 5, 10, 5", out.Count, out.ScannedCount, len(out.Items))
	}

	// Limit counts items read before the filter: the first read item is even,
	// so the page is empty but still has a LastEvaluatedKey.
	out = qryFilter(t, c, dynamodb.QueryInput{FilterExpression: aws.String("odd = :t"), ExpressionAttributeValues: rvals(":t", &types.AttributeValueMemberBOOL{Value: true}), Limit: aws.Int32(1)})
	if out.Count != 0 || out.ScannedCount != 1 || len(out.Items) != 0 {
		t.Errorf("Limit 1 + filter: got Count %d ScannedCount %d, want 0, 1", out.Count, out.ScannedCount)
	}
	if got := rstr(out.LastEvaluatedKey, "sk"); got != "00" || len(out.LastEvaluatedKey) != 2 {
		t.Errorf("Limit 1 + filter: got LastEvaluatedKey %v, want {pk p, sk 00}", out.LastEvaluatedKey)
	}
	qryFilterPaging(t, c)
	qryRangePaging(t, c)
	qryStartKeys(t, c)
}

// qryFilter is Query in on table QryFilter's partition p.
func qryFilter(t *testing.T, c *dynamodb.Client, in dynamodb.QueryInput) *dynamodb.QueryOutput {
	t.Helper()
	in.TableName = aws.String("QryFilter")
	in.KeyConditionExpression = aws.String("pk = :p")
	if in.ExpressionAttributeValues == nil {
		in.ExpressionAttributeValues = map[string]types.AttributeValue{}
	}
	in.ExpressionAttributeValues[":p"] = s("p")
	out, err := c.Query(context.Background(), &in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// qryFilterPaging pages QryFilter with Limit 3 and a filter, both
// directions: every match is seen once.
func qryFilterPaging(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	for _, forward := range []bool{true, false} {
		var got []string
		var esk ritem
		pages := 0
		for {
			out := qryFilter(t, c, dynamodb.QueryInput{FilterExpression: aws.String("odd = :t"), ExpressionAttributeValues: rvals(":t", &types.AttributeValueMemberBOOL{Value: true}),
				Limit: aws.Int32(3), ExclusiveStartKey: esk, ScanIndexForward: aws.Bool(forward)})
			pages++
			got = append(got, rsks(out.Items)...)
			if out.LastEvaluatedKey == nil || pages > 10 {
				break
			}
			esk = out.LastEvaluatedKey
		}
		want := []string{"01", "03", "05", "07", "09"}
		if !forward {
			want = []string{"09", "07", "05", "03", "01"}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("paging forward=%v: got %v, want %v", forward, got, want)
		}
		// 10 items, 3 a page: pages of 3, 3, 3, 1.
		if pages != 4 {
			t.Errorf("paging forward=%v: got %d pages, want 4", forward, pages)
		}
	}

}

// qryRangePaging pages a sort-key range of QryFilter with Limit 1, both
// directions.
func qryRangePaging(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	ctx := context.Background()
	for _, forward := range []bool{true, false} {
		var got []string
		var esk ritem
		for range 20 {
			out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryFilter"), Limit: aws.Int32(1), ExclusiveStartKey: esk,
				KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :a AND :b"), ScanIndexForward: aws.Bool(forward),
				ExpressionAttributeValues: rvals(":p", s("p"), ":a", s("02"), ":b", s("05"))})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rsks(out.Items)...)
			if esk = out.LastEvaluatedKey; esk == nil {
				break
			}
		}
		want := []string{"02", "03", "04", "05"}
		if !forward {
			want = []string{"05", "04", "03", "02"}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("BETWEEN paging forward=%v: got %v, want %v", forward, got, want)
		}
	}
}

// qryStartKeys checks where QryFilter's pages resume after an
// ExclusiveStartKey.
func qryStartKeys(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	// ExclusiveStartKey resumes exactly after the key, even one not stored.
	out := qryFilter(t, c, dynamodb.QueryInput{ExclusiveStartKey: ritem{"pk": s("p"), "sk": s("04")}, Limit: aws.Int32(2)})
	if got, want := rsks(out.Items), []string{"05", "06"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExclusiveStartKey 04: got %v, want %v", got, want)
	}
	out = qryFilter(t, c, dynamodb.QueryInput{ExclusiveStartKey: ritem{"pk": s("p"), "sk": s("04x")}, Limit: aws.Int32(2), ScanIndexForward: aws.Bool(false)})
	if got, want := rsks(out.Items), []string{"04", "03"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExclusiveStartKey 04x backwards: got %v, want %v", got, want)
	}
	// A Limit equal to what is left still ends with the last key; the next
	// page is then empty and final.
	out = qryFilter(t, c, dynamodb.QueryInput{ExclusiveStartKey: ritem{"pk": s("p"), "sk": s("07")}, Limit: aws.Int32(2)})
	if got := rsks(out.Items); !reflect.DeepEqual(got, []string{"08", "09"}) {
		t.Errorf("last page: got %v", got)
	}
	if out.LastEvaluatedKey != nil {
		out = qryFilter(t, c, dynamodb.QueryInput{ExclusiveStartKey: out.LastEvaluatedKey, Limit: aws.Int32(2)})
		if len(out.Items) != 0 || out.LastEvaluatedKey != nil {
			t.Errorf("after the last page: got %v, LEK %v, want nothing", rsks(out.Items), out.LastEvaluatedKey)
		}
	}
}

func TestQuerySelect(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "QrySelect", true)
	putAll(t, c, "QrySelect", []ritem{
		{"pk": s("p"), "sk": s("1"), "a": s("x"), "b": n("1")},
		{"pk": s("p"), "sk": s("2"), "a": s("y"), "b": n("2")},
	})
	base := func() *dynamodb.QueryInput {
		return &dynamodb.QueryInput{TableName: aws.String("QrySelect"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p"))}
	}
	in := base()
	in.Select = types.SelectCount
	out, err := c.Query(ctx, in)
	if err != nil {
		t.Fatalf("COUNT: %v", err)
	}
	if out.Count != 2 || out.ScannedCount != 2 || len(out.Items) != 0 {
		t.Errorf("COUNT: got %+v, %v, want Count 2 and no items", out, err)
	}
	in = base()
	in.Select = types.SelectSpecificAttributes
	in.ProjectionExpression = aws.String("a, #s")
	in.ExpressionAttributeNames = map[string]string{"#s": "sk"}
	out, err = c.Query(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 2 || len(out.Items[0]) != 2 || rstr(out.Items[0], "a") != "x" || rstr(out.Items[0], "sk") != "1" {
		t.Errorf("SPECIFIC_ATTRIBUTES: got %v, want {a, sk}", out.Items)
	}
	in = base()
	in.Select = types.SelectAllAttributes
	if out, err = c.Query(ctx, in); err != nil {
		t.Fatalf("ALL_ATTRIBUTES: %v", err)
	}
	if len(out.Items) != 2 || len(out.Items[1]) != 4 {
		t.Errorf("ALL_ATTRIBUTES: got %v, %v", out.Items, err)
	}

	errs := []struct {
		name string
		edit func(*dynamodb.QueryInput)
	}{
		{"COUNT with projection", func(in *dynamodb.QueryInput) {
			in.Select = types.SelectCount
			in.ProjectionExpression = aws.String("a")
		}},
		{"ALL_ATTRIBUTES with projection", func(in *dynamodb.QueryInput) {
			in.Select = types.SelectAllAttributes
			in.ProjectionExpression = aws.String("a")
		}},
		{"SPECIFIC_ATTRIBUTES without projection", func(in *dynamodb.QueryInput) { in.Select = types.SelectSpecificAttributes }},
		{"ALL_PROJECTED_ATTRIBUTES on a table", func(in *dynamodb.QueryInput) { in.Select = types.SelectAllProjectedAttributes }},
		{"AttributesToGet with KeyConditionExpression", func(in *dynamodb.QueryInput) { in.AttributesToGet = []string{"a"} }},
	}
	for _, tt := range errs {
		in := base()
		tt.edit(in)
		_, err := c.Query(ctx, in)
		t.Run(tt.name, func(t *testing.T) { wantAPIError(t, err, "ValidationException", "") })
	}
}

func TestQueryLegacyParameters(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "QryLegacy", true)
	putAll(t, c, "QryLegacy", []ritem{
		{"pk": s("p"), "sk": s("a1"), "n": n("1")},
		{"pk": s("p"), "sk": s("a2"), "n": n("5")},
		{"pk": s("p"), "sk": s("a3"), "n": n("9")},
		{"pk": s("p"), "sk": s("b1"), "n": n("9")},
	})
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryLegacy"),
		KeyConditions: map[string]types.Condition{
			"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("p")}},
			"sk": {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{s("a")}},
		},
		QueryFilter: map[string]types.Condition{
			"n": {ComparisonOperator: types.ComparisonOperatorGt, AttributeValueList: []types.AttributeValue{n("2")}},
		},
		AttributesToGet: []string{"sk", "n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rsks(out.Items), []string{"a2", "a3"}; !reflect.DeepEqual(got, want) || out.ScannedCount != 3 {
		t.Errorf("legacy: got %v (ScannedCount %d), want %v (3)", got, out.ScannedCount, want)
	}
	if len(out.Items) > 0 && len(out.Items[0]) != 2 {
		t.Errorf("AttributesToGet: got %v, want sk and n", out.Items[0])
	}
	out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryLegacy"),
		KeyConditions: map[string]types.Condition{
			"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("p")}},
			"sk": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{s("a2"), s("b1")}},
		},
		QueryFilter: map[string]types.Condition{
			"n":    {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{n("5")}},
			"none": {ComparisonOperator: types.ComparisonOperatorNotNull}, // OR needs two conditions
		},
		ConditionalOperator: types.ConditionalOperatorOr,
		ScanIndexForward:    aws.Bool(false),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rsks(out.Items), []string{"a2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("legacy BETWEEN backwards: got %v, want %v", got, want)
	}
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryLegacy"),
		KeyConditions: map[string]types.Condition{
			"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("p")}},
			"sk": {ComparisonOperator: types.ComparisonOperatorNe, AttributeValueList: []types.AttributeValue{s("a")}},
		}})
	wantAPIError(t, err, "ValidationException", "Attempted conditional constraint is not an indexable operation")
}

func TestQueryErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "QryErr", true)
	createTyped(t, c, "QryErrN", types.ScalarAttributeTypeS, types.ScalarAttributeTypeN)
	for _, tt := range qryErrCases() {
		t.Run(tt.name, func(t *testing.T) {
			in := &dynamodb.QueryInput{TableName: aws.String(tt.table), KeyConditionExpression: aws.String(tt.cond), ExpressionAttributeValues: tt.vals}
			if tt.filter != "" {
				in.FilterExpression = aws.String(tt.filter)
			}
			if strings.Contains(tt.filter, "#k") {
				in.ExpressionAttributeNames = map[string]string{"#k": "sk"}
			}
			_, err := c.Query(ctx, in)
			if prefix, ok := strings.CutSuffix(tt.msg, "*"); ok {
				wantAPIErrorPrefix(t, err, "ValidationException", prefix)
				return
			}
			wantAPIError(t, err, "ValidationException", tt.msg)
		})
	}
	qryRequestErrors(t, c)
}

// qryErrCase is a Query of key condition cond and filter on table, refused
// with msg (a prefix when it ends in "*").
type qryErrCase struct {
	name, table, cond, filter string
	vals                      map[string]types.AttributeValue
	msg                       string
}

// qryErrCases are TestQueryErrors' refused key conditions and filters.
func qryErrCases() []qryErrCase {
	return []qryErrCase{
		{"missing pk", "QryErr", "sk = :s", "", rvals(":s", s("x")),
			"Query condition missed key schema element: pk"},
		{"non-key attribute", "QryErr", "pk = :p AND color = :s", "", rvals(":p", s("p"), ":s", s("x")),
			"Query condition missed key schema element: sk"},
		{"range on pk", "QryErr", "pk > :p", "", rvals(":p", s("p")),
			"Query key condition not supported"},
		{"filter on sort key", "QryErr", "pk = :p", "sk = :s", rvals(":p", s("p"), ":s", s("x")),
			"Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{"filter on partition key", "QryErr", "pk = :p", "attribute_exists(pk)", rvals(":p", s("p")),
			"Filter Expression can only contain non-primary key attributes: Primary key attribute: pk"},
		{"begins_with on number", "QryErrN", "pk = :p AND begins_with(sk, :s)", "", rvals(":p", s("p"), ":s", n("1")),
			"Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"two conditions on sk", "QryErr", "pk = :p AND sk > :a AND sk < :b", "", rvals(":p", s("p"), ":a", s("a"), ":b", s("b")),
			"KeyConditionExpressions must only contain one condition per key"},
		{"OR", "QryErr", "pk = :p OR sk = :a", "", rvals(":p", s("p"), ":a", s("a")),
			"Invalid operator used in KeyConditionExpression: OR"},
		{"filter on sort key through a name", "QryErr", "pk = :p", "#k = :s", rvals(":p", s("p"), ":s", s("x")),
			"Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"},
		{"sort key type", "QryErr", "pk = :p AND sk = :s", "", rvals(":p", s("p"), ":s", n("1")),
			"One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"BETWEEN reversed numbers", "QryErrN", "pk = :p AND sk BETWEEN :a AND :b", "", rvals(":p", s("p"), ":a", n("10"), ":b", n("9")),
			"Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound;*"},
		{"pk type", "QryErr", "pk = :p", "", rvals(":p", n("1")),
			"One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{"BETWEEN reversed", "QryErr", "pk = :p AND sk BETWEEN :b AND :a", "", rvals(":p", s("p"), ":a", s("a"), ":b", s("b")),
			// The operand wording after ";" is not confirmed: prefix only.
			"Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound;*"},
	}
}

// qryRequestErrors checks refused Query requests on QryErr other than
// their key condition and filter.
func qryRequestErrors(t *testing.T, c *dynamodb.Client) {
	ctx := context.Background()
	t.Run("Limit 0", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryErr"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p")), Limit: aws.Int32(0)})
		wantAPIError(t, err, "ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	})
	t.Run("QueryFilter on a key", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryErr"),
			KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("p")}}},
			QueryFilter:   map[string]types.Condition{"sk": {ComparisonOperator: types.ComparisonOperatorNotNull}}})
		wantAPIError(t, err, "ValidationException", "")
	})
	t.Run("undefined name in projection", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryErr"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p")), ProjectionExpression: aws.String("#y")})
		wantAPIError(t, err, "ValidationException", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #y")
	})
	t.Run("unused name", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryErr"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p")), ExpressionAttributeNames: map[string]string{"#z": "z"}})
		wantAPIError(t, err, "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#z}")
	})
	t.Run("no key condition", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryErr")})
		wantAPIError(t, err, "ValidationException", "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	})
	t.Run("start key in another partition", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("QryErr"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p")), ExclusiveStartKey: ritem{"pk": s("q"), "sk": s("a")}})
		wantAPIError(t, err, "ValidationException", "The provided starting key is outside query boundaries based on provided conditions")
	})
	t.Run("missing table", func(t *testing.T) {
		_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Nope"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: rvals(":p", s("p"))})
		wantAPIError(t, err, "ResourceNotFoundException", "")
	})
}
