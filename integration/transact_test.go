package integration

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// txKey is the key of item pk in a table keyed by pk alone.
func txKey(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(pk)}
}

// txCancelled asserts err is a TransactionCanceledException and returns it.
func txCancelled(t *testing.T, err error) *types.TransactionCanceledException {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	return tce
}

func reasonCodes(tce *types.TransactionCanceledException) string {
	var cs []string
	for _, r := range tce.CancellationReasons {
		cs = append(cs, aws.ToString(r.Code))
	}
	return strings.Join(cs, ",")
}

func TestTransactWriteCancellationReasons(t *testing.T) {
	ctx := context.Background()
	cond := aws.String("attribute_exists(pk)")
	tests := []struct {
		name      string
		items     []types.TransactWriteItem
		wantCodes string
		wantMsg   string
		wantItem  string // the rendered Item of the first failing reason, if any
	}{
		{
			name: "condition check",
			items: []types.TransactWriteItem{
				{ConditionCheck: &types.ConditionCheck{TableName: aws.String("TxA"), Key: txKey("absent"), ConditionExpression: cond}},
				{Put: &types.Put{TableName: aws.String("TxB"), Item: txKey("new")}},
			},
			wantCodes: "ConditionalCheckFailed,None",
			wantMsg:   "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]",
		},
		{
			name: "all old",
			items: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("TxB"), Item: txKey("new")}},
				{Delete: &types.Delete{TableName: aws.String("TxA"), Key: txKey("seed"), ConditionExpression: aws.String("n = :two"),
					ExpressionAttributeValues:           map[string]types.AttributeValue{":two": n("2")},
					ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			},
			wantCodes: "None,ConditionalCheckFailed",
			wantMsg:   "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]",
			wantItem:  "{n=N:1,pk=S:seed,s=S:text}",
		},
		{
			name: "validation error",
			items: []types.TransactWriteItem{
				{Update: &types.Update{TableName: aws.String("TxA"), Key: txKey("seed"), UpdateExpression: aws.String("ADD s :one"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}},
				{Put: &types.Put{TableName: aws.String("TxB"), Item: txKey("new")}},
			},
			wantCodes: "ValidationError,None",
			wantMsg:   "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError, None]",
		},
	}
	c := newClient(t)
	createTable(t, c, "TxA", false)
	createTable(t, c, "TxB", false)
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("TxA"),
		Item: map[string]types.AttributeValue{"pk": s("seed"), "n": n("1"), "s": s("text")}}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tt.items})
			tce := txCancelled(t, err)
			if got := reasonCodes(tce); got != tt.wantCodes {
				t.Errorf("got codes %s, want %s", got, tt.wantCodes)
			}
			if got := tce.ErrorMessage(); got != tt.wantMsg {
				t.Errorf("got message %q, want %q", got, tt.wantMsg)
			}
			for _, r := range tce.CancellationReasons {
				if aws.ToString(r.Code) == "ConditionalCheckFailed" {
					if got := aws.ToString(r.Message); got != "The conditional request failed" {
						t.Errorf("got reason message %q, want DynamoDB's", got)
					}
					if got := renderReasonItem(r.Item); got != tt.wantItem {
						t.Errorf("got reason item %s, want %q", got, tt.wantItem)
					}
				}
			}
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("TxB"), Key: txKey("new")})
			if err != nil || out.Item != nil {
				t.Fatalf("got %v, %v after a cancelled transaction, want nothing written", out.Item, err)
			}
		})
	}
}

// renderReasonItem renders a cancellation reason's item as "{a=S:x,...}"
// with attributes sorted, "" when absent.
func renderReasonItem(item map[string]types.AttributeValue) string {
	if item == nil {
		return ""
	}
	var parts []string
	for k, v := range item {
		parts = append(parts, k+"="+txRenderV(v))
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// txRenderV renders a scalar attribute value as "T:value".
func txRenderV(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S:" + v.Value
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	}
	return fmt.Sprintf("%T", v)
}

// txNum returns a string or number attribute's text.
func txNum(item map[string]types.AttributeValue, name string) string {
	switch v := item[name].(type) {
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberS:
		return v.Value
	}
	return ""
}

func TestTransactWriteValidationErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "TxV", false)
	many := make([]types.TransactWriteItem, 101)
	for i := range many {
		many[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String("TxV"), Item: txKey(strconv.Itoa(i))}}
	}
	tests := []struct {
		name      string
		in        *dynamodb.TransactWriteItemsInput
		code, msg string
	}{
		{"same item twice", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("TxV"), Item: txKey("a")}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("TxV"), Key: txKey("a"), ConditionExpression: aws.String("attribute_exists(pk)")}},
		}}, "ValidationException", "Transaction request cannot include multiple operations on one item"},
		{"missing table", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("Nope"), Item: txKey("a")}},
		}}, "ResourceNotFoundException", "Requested resource not found"},
		{"too many actions", &dynamodb.TransactWriteItemsInput{TransactItems: many}, "ValidationException", ""},
		{"token too long", &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(strings.Repeat("t", 37)), TransactItems: many[:1]},
			"ValidationException", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.TransactWriteItems(ctx, tt.in)
			wantAPIError(t, err, tt.code, tt.msg)
		})
	}
}

func TestTransactIdempotentRetry(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "TxI", false)
	in := func(expr string) *dynamodb.TransactWriteItemsInput {
		return &dynamodb.TransactWriteItemsInput{
			ClientRequestToken:     aws.String("token-1"),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			TransactItems: []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String("TxI"), Key: txKey("c"),
				UpdateExpression: aws.String(expr), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}}},
		}
	}
	first, err := c.TransactWriteItems(ctx, in("ADD n :one"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.TransactWriteItems(ctx, in("ADD n :one"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("TxI"), Key: txKey("c"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if v := txNum(got.Item, "n"); v != "1" {
		t.Fatalf("got counter %s after a retry with the same token, want 1", v)
	}
	// The first call writes (2 transactional write units); the retry only
	// reads the item (2 transactional read units) and reports no writes.
	if w, r := first.ConsumedCapacity[0], again.ConsumedCapacity[0]; aws.ToFloat64(w.WriteCapacityUnits) != 2 || w.ReadCapacityUnits != nil ||
		aws.ToFloat64(r.ReadCapacityUnits) != 2 || r.WriteCapacityUnits != nil || aws.ToFloat64(r.CapacityUnits) != 2 {
		t.Errorf("got capacity %+v then %+v, want 2 write units then 2 read units", w, r)
	}
	_, err = c.TransactWriteItems(ctx, in("ADD n :one, m :one"))
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
}

func TestTransactMixedTablesAndGet(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "TxM1", false)
	createTable(t, c, "TxM2", true)
	out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("TxM1"), Item: map[string]types.AttributeValue{"pk": s("order"), "qty": n("2"), "note": s("x")}}},
			{Update: &types.Update{TableName: aws.String("TxM2"), Key: map[string]types.AttributeValue{"pk": s("stock"), "sk": s("w")},
				UpdateExpression: aws.String("SET #c = :c"), ExpressionAttributeNames: map[string]string{"#c": "count"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":c": n("8")}}},
			{Put: &types.Put{TableName: aws.String("TxM1"), Item: txKey("other")}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var caps []string
	for _, cc := range out.ConsumedCapacity {
		caps = append(caps, fmt.Sprintf("%s=%v/%v", aws.ToString(cc.TableName), aws.ToFloat64(cc.CapacityUnits), aws.ToFloat64(cc.Table.CapacityUnits)))
	}
	if got, want := strings.Join(caps, " "), "TxM1=4/4 TxM2=2/2"; got != want {
		t.Errorf("got capacity %s, want %s (twice the units, per table)", got, want)
	}
	gets, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String("TxM2"), Key: map[string]types.AttributeValue{"pk": s("stock"), "sk": s("w")}}},
			{Get: &types.Get{TableName: aws.String("TxM1"), Key: txKey("missing")}},
			{Get: &types.Get{TableName: aws.String("TxM1"), Key: txKey("order"), ProjectionExpression: aws.String("qty")}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range gets.Responses {
		got = append(got, renderReasonItem(r.Item))
	}
	if g, want := strings.Join(got, " "), "{count=N:8,pk=S:stock,sk=S:w}  {qty=N:2}"; g != want {
		t.Errorf("got responses %q, want %q", g, want)
	}
	caps = caps[:0]
	for _, cc := range gets.ConsumedCapacity {
		caps = append(caps, fmt.Sprintf("%s=%v", aws.ToString(cc.TableName), aws.ToFloat64(cc.CapacityUnits)))
	}
	if g, want := strings.Join(caps, " "), "TxM2=2 TxM1=4"; g != want {
		t.Errorf("got read capacity %s, want %s (twice a strong read per item)", g, want)
	}
}

// TestTransactTransfers moves money between 10 accounts from 32 goroutines
// with conditional transactions: the total never changes and no balance
// goes below zero.
func TestTransactTransfers(t *testing.T) {
	if testing.Short() {
		t.Skip("concurrency test")
	}
	ctx := context.Background()
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	createTable(t, c, "Accounts", false)
	const accounts, start, workers = 10, 100, 32
	for i := range accounts {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Accounts"),
			Item: map[string]types.AttributeValue{"pk": s(strconv.Itoa(i)), "bal": n(strconv.Itoa(start))}}); err != nil {
			t.Fatal(err)
		}
	}
	var committed, cancelled atomic.Int64
	deadline := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for time.Now().Before(deadline) {
				from, to := rng.IntN(accounts), rng.IntN(accounts-1)
				if to >= from {
					to++
				}
				amt := n(strconv.Itoa(1 + rng.IntN(40)))
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String("Accounts"), Key: txKey(strconv.Itoa(from)),
						UpdateExpression: aws.String("SET bal = bal - :a"), ConditionExpression: aws.String("bal >= :a"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":a": amt}}},
					{Update: &types.Update{TableName: aws.String("Accounts"), Key: txKey(strconv.Itoa(to)),
						UpdateExpression:          aws.String("SET bal = bal + :a"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":a": amt}}},
				}})
				var tce *types.TransactionCanceledException
				switch {
				case err == nil:
					committed.Add(1)
				case errors.As(err, &tce):
					cancelled.Add(1)
				default:
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Accounts"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, it := range out.Items {
		b, _ := strconv.Atoi(txNum(it, "bal"))
		if b < 0 {
			t.Errorf("got balance %d for account %s, want ≥ 0", b, txNum(it, "pk"))
		}
		total += b
	}
	if total != accounts*start || len(out.Items) != accounts {
		t.Fatalf("got total %d over %d accounts, want %d over %d", total, len(out.Items), accounts*start, accounts)
	}
	if committed.Load() == 0 {
		t.Fatal("got no committed transfers, want some")
	}
	t.Logf("%d transfers committed, %d cancelled", committed.Load(), cancelled.Load())
}

// BenchmarkTransactWriteItems measures transactions of 2, 10 and 100
// updates through the SDK and HTTP.
func BenchmarkTransactWriteItems(b *testing.B) {
	ctx := context.Background()
	c := newClient(b)
	createTable(b, c, "Bench", false)
	for _, size := range []int{2, 10, 100} {
		b.Run(fmt.Sprintf("actions=%d", size), func(b *testing.B) {
			items := make([]types.TransactWriteItem, size)
			for i := range items {
				items[i] = types.TransactWriteItem{Update: &types.Update{TableName: aws.String("Bench"), Key: txKey(strconv.Itoa(i)),
					UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": n("1")}}}
			}
			for b.Loop() {
				if _, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
		})
	}
}
