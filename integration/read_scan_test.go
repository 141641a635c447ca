package integration

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// loadSpread writes count items with distinct partition keys k000... and
// returns the keys in insertion order.
func loadSpread(t *testing.T, c *dynamodb.Client, tableName string, count int) []string {
	t.Helper()
	createTable(t, c, tableName, false)
	keys := make([]string, count)
	items := make([]ritem, count)
	for i := range count {
		keys[i] = fmt.Sprintf("k%03d", i)
		items[i] = ritem{"pk": s(keys[i]), "n": n(fmt.Sprint(i)), "tag": s([]string{"alpha", "beta"}[i%2])}
	}
	putAll(t, c, tableName, items)
	return keys
}

// scanAll pages through one Scan (segment) with in, returning the pk of every
// item in the order read.
func scanAll(t *testing.T, c *dynamodb.Client, in dynamodb.ScanInput) []string {
	t.Helper()
	var got []string
	for range 1000 {
		out, err := c.Scan(context.Background(), &in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			got = append(got, rstr(it, "pk"))
		}
		if out.LastEvaluatedKey == nil {
			return got
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	t.Fatal("Scan never ended")
	return nil
}

func TestScanAllItemsOnce(t *testing.T) {
	c := newClient(t)
	keys := loadSpread(t, c, "ScanAll", 200)
	for _, limit := range []*int32{nil, aws.Int32(1), aws.Int32(7)} {
		got := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String("ScanAll"), Limit: limit})
		sorted := append([]string(nil), got...)
		sort.Strings(sorted)
		if fmt.Sprint(sorted) != fmt.Sprint(keys) {
			t.Errorf("Limit %v: got %d items %v, want each of %d once", aws.ToInt32(limit), len(got), sorted, len(keys))
		}
		// Partitions come back in hash order, not insertion (= key) order.
		if fmt.Sprint(got) == fmt.Sprint(keys) {
			t.Errorf("Limit %v: Scan returned items in insertion order; want hash order", aws.ToInt32(limit))
		}
	}
}

// TestScanResumeAfterDeletedKey resumes from a LastEvaluatedKey whose item
// has been deleted since: the scan goes on after where it was.
func TestScanResumeAfterDeletedKey(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	keys := loadSpread(t, c, "ScanDel", 30)
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ScanDel"), Limit: aws.Int32(10)})
	if err != nil || out.LastEvaluatedKey == nil {
		t.Fatalf("first page: %+v, %v", out, err)
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("ScanDel"), Key: out.LastEvaluatedKey}); err != nil {
		t.Fatal(err)
	}
	rest := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String("ScanDel"), ExclusiveStartKey: out.LastEvaluatedKey})
	if got, want := len(out.Items)+len(rest), len(keys); got != want {
		t.Errorf("got %d + %d items, want %d in all", len(out.Items), len(rest), want)
	}
}

func TestParallelScan(t *testing.T) {
	c := newClient(t)
	keys := loadSpread(t, c, "ScanPar", 200)
	for _, total := range []int32{1, 3, 8} {
		owner := map[string]int32{}
		nonEmpty := 0
		for seg := range total {
			got := scanAll(t, c, dynamodb.ScanInput{TableName: aws.String("ScanPar"), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total), Limit: aws.Int32(7)})
			if len(got) > 0 {
				nonEmpty++
			}
			for _, k := range got {
				if prev, dup := owner[k]; dup {
					t.Errorf("TotalSegments %d: %s in segments %d and %d", total, k, prev, seg)
				}
				owner[k] = seg
			}
		}
		if len(owner) != len(keys) {
			t.Errorf("TotalSegments %d: union has %d items, want %d", total, len(owner), len(keys))
		}
		// 200 hashed partitions over at most 8 segments: all should get some.
		if nonEmpty != int(total) {
			t.Errorf("TotalSegments %d: %d segments returned items, want all", total, nonEmpty)
		}
	}
}

func TestParallelScanErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	loadSpread(t, c, "ScanErr", 20)
	// A key from segment 0 of 2, to resume segment 1 with.
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ScanErr"), Segment: aws.Int32(0), TotalSegments: aws.Int32(2), Limit: aws.Int32(1)})
	if err != nil || out.LastEvaluatedKey == nil {
		t.Fatalf("segment 0: %+v, %v", out, err)
	}
	seg0Key := out.LastEvaluatedKey
	tests := []struct {
		name           string
		segment, total *int32
		esk            ritem
		msg            string
	}{
		{"segment without total", aws.Int32(0), nil, nil,
			"The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{"total without segment", nil, aws.Int32(2), nil,
			"The Segment parameter is required but was not present in the request when parameter TotalSegments is present"},
		{"segment too large", aws.Int32(3), aws.Int32(3), nil,
			"The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 3 is not less than TotalSegments: 3"},
		{"total zero", aws.Int32(0), aws.Int32(0), nil, ""},
		{"total too large", aws.Int32(0), aws.Int32(1000001), nil, ""},
		{"negative segment", aws.Int32(-1), aws.Int32(2), nil, ""},
		{"start key of another segment", aws.Int32(1), aws.Int32(2), seg0Key, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ScanErr"), Segment: tt.segment, TotalSegments: tt.total, ExclusiveStartKey: tt.esk})
			wantAPIError(t, err, "ValidationException", tt.msg)
		})
	}
}

func TestScanFilters(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	loadSpread(t, c, "ScanFilt", 20)
	tests := []struct {
		name string
		in   dynamodb.ScanInput
		want int
	}{
		{"expression", dynamodb.ScanInput{FilterExpression: aws.String("n >= :a AND tag = :b"),
			ExpressionAttributeValues: rvals(":a", n("10"), ":b", s("alpha"))}, 5},
		{"legacy AND", dynamodb.ScanInput{ScanFilter: map[string]types.Condition{
			"n":   {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{n("10")}},
			"tag": {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{s("al")}},
		}}, 5},
		{"legacy OR", dynamodb.ScanInput{ConditionalOperator: types.ConditionalOperatorOr, ScanFilter: map[string]types.Condition{
			"n":   {ComparisonOperator: types.ComparisonOperatorLt, AttributeValueList: []types.AttributeValue{n("2")}},
			"tag": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{s("beta")}},
		}}, 11},
		// Unlike Query, a Scan may filter on key attributes.
		{"key attribute", dynamodb.ScanInput{FilterExpression: aws.String("begins_with(pk, :k)"), ExpressionAttributeValues: rvals(":k", s("k01"))}, 10},
		{"legacy NOT_NULL with AttributesToGet", dynamodb.ScanInput{AttributesToGet: []string{"pk"}, ScanFilter: map[string]types.Condition{
			"tag": {ComparisonOperator: types.ComparisonOperatorNotNull},
		}}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.TableName = aws.String("ScanFilt")
			out, err := c.Scan(ctx, &in)
			if err != nil {
				t.Fatal(err)
			}
			if int(out.Count) != tt.want || len(out.Items) != tt.want || out.ScannedCount != 20 {
				t.Errorf("got Count %d items %d ScannedCount %d, want %d, %d, 20", out.Count, len(out.Items), out.ScannedCount, tt.want, tt.want)
			}
		})
	}
	// Select COUNT on a Scan.
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ScanFilt"), Select: types.SelectCount})
	if err != nil || out.Count != 20 || len(out.Items) != 0 {
		t.Errorf("COUNT: got %+v, %v", out, err)
	}
	// ScanFilter with FilterExpression is refused.
	_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("ScanFilt"), FilterExpression: aws.String("attribute_exists(n)"),
		ScanFilter: map[string]types.Condition{"n": {ComparisonOperator: types.ComparisonOperatorNotNull}}})
	wantAPIError(t, err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {ScanFilter} Expression parameters: {FilterExpression}")
}
