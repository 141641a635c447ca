package table

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// fakeClock is a settable clock for the idempotency window.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// txService returns a Service with tables A and B (hash key pk S).
func txService(t *testing.T) (*Service, *fakeClock) {
	t.Helper()
	s, clk := clockService(t, Options{})
	for _, name := range []string{"A", "B"} {
		_, err := s.CreateTable(context.Background(), "r", &ddb.CreateTableInput{
			TableName:            name,
			BillingMode:          "PAY_PER_REQUEST",
			AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
			KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s, clk
}

func sv(s string) attr.Value { return attr.String(s) }
func nv(s string) attr.Value { return attr.Value{T: attr.TypeN, S: s} }

func keyOfPK(pk string) attr.Item { return attr.Item{"pk": sv(pk)} }

func put(table, pk string, extra ...any) ddb.TransactWriteItem {
	item := keyOfPK(pk)
	for i := 0; i < len(extra); i += 2 {
		item[extra[i].(string)] = extra[i+1].(attr.Value)
	}
	return ddb.TransactWriteItem{Put: &ddb.TransactPut{TableName: table, Item: item}}
}

func values(kv ...any) ddb.ExprParams {
	p := ddb.ExprParams{ExpressionAttributeValues: map[string]attr.Value{}}
	for i := 0; i < len(kv); i += 2 {
		p.ExpressionAttributeValues[kv[i].(string)] = kv[i+1].(attr.Value)
	}
	return p
}

func getItem(t *testing.T, s *Service, table, pk string) attr.Item {
	t.Helper()
	out, err := s.GetItem(context.Background(), "r", &ddb.GetItemInput{TableName: table, Key: keyOfPK(pk)})
	if err != nil {
		t.Fatal(err)
	}
	item, err := out.ReadItem()
	if err != nil {
		t.Fatal(err)
	}
	return item
}

func codes(e *ddb.Error) []string {
	var cs []string
	for _, r := range e.CancellationReasons {
		cs = append(cs, r.Code)
	}
	return cs
}

func TestTransactWriteCancellation(t *testing.T) {
	exists := "attribute_exists(pk)"
	tests := []struct {
		name      string
		items     []ddb.TransactWriteItem
		wantCodes []string
		wantMsg   string
	}{
		{
			name: "condition check fails",
			items: []ddb.TransactWriteItem{
				{ConditionCheck: &ddb.ConditionCheck{TableName: "A", Key: keyOfPK("missing"), ConditionExpression: &exists}},
				put("B", "new"),
			},
			wantCodes: []string{"ConditionalCheckFailed", "None"},
			wantMsg:   "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None]",
		},
		{
			name: "runtime update error",
			items: []ddb.TransactWriteItem{
				put("B", "new"),
				{Update: &ddb.TransactUpdate{TableName: "A", Key: keyOfPK("seed"), UpdateExpression: ptr("ADD s :one"), ExprParams: values(":one", nv("1"))}},
			},
			wantCodes: []string{"None", "ValidationError"},
			wantMsg:   "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]",
		},
		{
			name: "two failures",
			items: []ddb.TransactWriteItem{
				{Delete: &ddb.TransactDelete{TableName: "A", Key: keyOfPK("nope"), ConditionExpression: &exists}},
				{Put: &ddb.TransactPut{TableName: "B", Item: keyOfPK("x"), ConditionExpression: ptr("n = :v"), ExprParams: values(":v", nv("2"))}},
			},
			wantCodes: []string{"ConditionalCheckFailed", "ConditionalCheckFailed"},
			wantMsg:   "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, ConditionalCheckFailed]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := txService(t)
			ctx := context.Background()
			if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: attr.Item{"pk": sv("seed"), "s": sv("text")}}); err != nil {
				t.Fatal(err)
			}
			_, err := s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{TransactItems: tt.items})
			var e *ddb.Error
			if !errors.As(err, &e) || e.Code != ddb.TransactionCanceledException {
				t.Fatalf("got %v, want TransactionCanceledException", err)
			}
			if got := codes(e); !slices.Equal(got, tt.wantCodes) {
				t.Errorf("got codes %v, want %v", got, tt.wantCodes)
			}
			if e.Message != tt.wantMsg {
				t.Errorf("got message %q, want %q", e.Message, tt.wantMsg)
			}
			if got := getItem(t, s, "B", "new"); got != nil {
				t.Errorf("got B/new = %v after a cancelled transaction, want nothing written", got)
			}
		})
	}
}

func TestTransactWriteAllOld(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	seed := attr.Item{"pk": sv("k"), "n": nv("1")}
	if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: "A", Item: seed}); err != nil {
		t.Fatal(err)
	}
	_, err := s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{TransactItems: []ddb.TransactWriteItem{
		{ConditionCheck: &ddb.ConditionCheck{TableName: "A", Key: keyOfPK("k"), ConditionExpression: ptr("n = :two"),
			ReturnValuesOnConditionCheckFailure: "ALL_OLD", ExprParams: values(":two", nv("2"))}},
	}})
	var e *ddb.Error
	if !errors.As(err, &e) || len(e.CancellationReasons) != 1 {
		t.Fatalf("got %v, want one cancellation reason", err)
	}
	r := e.CancellationReasons[0]
	if r.Message != "The conditional request failed" || len(r.Item) != 2 || !attr.Equal(r.Item["n"], nv("1")) {
		t.Fatalf("got reason %+v, want the old item and DynamoDB's message", r)
	}
}

func TestTransactWriteValidation(t *testing.T) {
	cond := "attribute_exists(pk)"
	tests := []struct {
		name  string
		items []ddb.TransactWriteItem
		code  ddb.Code
		msg   string
	}{
		{"same item twice", []ddb.TransactWriteItem{put("A", "x"), {Delete: &ddb.TransactDelete{TableName: "A", Key: keyOfPK("x")}}},
			ddb.ValidationException, "Transaction request cannot include multiple operations on one item"},
		{"same key in two tables is fine", []ddb.TransactWriteItem{put("A", "x"), put("B", "x")}, "", ""},
		{"missing table", []ddb.TransactWriteItem{put("A", "x"), put("Nope", "x")}, ddb.ResourceNotFoundException, "Requested resource not found"},
		{"two actions in one", []ddb.TransactWriteItem{{Put: put("A", "x").Put, ConditionCheck: &ddb.ConditionCheck{TableName: "A", Key: keyOfPK("y"), ConditionExpression: &cond}}},
			ddb.ValidationException, "TransactItems can only contain one of Check, Put, Update or Delete"},
		{"no action", []ddb.TransactWriteItem{{}}, ddb.ValidationException, "TransactItems can only contain one of Check, Put, Update or Delete"},
		// A key that does not fit the schema cancels, after the request's own checks.
		{"bad key", []ddb.TransactWriteItem{{Delete: &ddb.TransactDelete{TableName: "A", Key: attr.Item{"other": sv("x")}}}},
			ddb.TransactionCanceledException, "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"},
		{"bad key then a missing table", []ddb.TransactWriteItem{{Delete: &ddb.TransactDelete{TableName: "A", Key: attr.Item{"other": sv("x")}}}, put("Nope", "x")},
			ddb.ResourceNotFoundException, "Requested resource not found"},
		{"empty key string is the request's", []ddb.TransactWriteItem{put("A", "x"), {Delete: &ddb.TransactDelete{TableName: "A", Key: keyOfPK("")}}},
			ddb.ValidationException, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"update of key attribute", []ddb.TransactWriteItem{{Update: &ddb.TransactUpdate{TableName: "A", Key: keyOfPK("x"), UpdateExpression: ptr("SET pk = :v"), ExprParams: values(":v", sv("y"))}}},
			ddb.ValidationException, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"unused value", []ddb.TransactWriteItem{{Put: &ddb.TransactPut{TableName: "A", Item: keyOfPK("x"), ExprParams: values(":v", sv("y"))}}},
			ddb.ValidationException, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := txService(t)
			_, err := s.TransactWriteItems(context.Background(), "r", &ddb.TransactWriteItemsInput{TransactItems: tt.items})
			if tt.code == "" {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			var e *ddb.Error
			if !errors.As(err, &e) || e.Code != tt.code || (tt.msg != "" && e.Message != tt.msg) {
				t.Fatalf("got %v, want %s: %s", err, tt.code, tt.msg)
			}
		})
	}
}

func TestTransactWriteTooLarge(t *testing.T) {
	s, _ := txService(t)
	big := sv(string(make([]byte, 390<<10)))
	var items []ddb.TransactWriteItem
	for i := range 11 {
		items = append(items, put("A", string(rune('a'+i)), "blob", big))
	}
	_, err := s.TransactWriteItems(context.Background(), "r", &ddb.TransactWriteItemsInput{TransactItems: items})
	var e *ddb.Error
	if !errors.As(err, &e) || e.Message != "Transaction request cannot be larger than 4 MB" {
		t.Fatalf("got %v, want the 4 MB ValidationException", err)
	}
}

func TestTransactWriteAppliesAndCharges(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	out, err := s.TransactWriteItems(ctx, "r", &ddb.TransactWriteItemsInput{
		ReturnConsumedCapacity: "TOTAL",
		TransactItems: []ddb.TransactWriteItem{
			put("A", "1", "v", sv("a")),
			put("B", "2", "v", sv("b")),
			{Update: &ddb.TransactUpdate{TableName: "A", Key: keyOfPK("3"), UpdateExpression: ptr("ADD c :one"), ExprParams: values(":one", nv("1"))}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := getItem(t, s, "A", "3"); !attr.Equal(got["c"], nv("1")) {
		t.Errorf("got A/3 = %v, want c = 1", got)
	}
	var got []string
	var units []float64
	for _, cc := range out.ConsumedCapacity {
		got = append(got, cc.TableName)
		units = append(units, cc.CapacityUnits)
	}
	if !slices.Equal(got, []string{"A", "B"}) || len(units) != 2 || units[0] != 4 || units[1] != 2 {
		t.Fatalf("got capacity %v %v, want A 4 and B 2 (twice one unit per write)", got, units)
	}
}

func TestTransactWriteIdempotency(t *testing.T) {
	s, clk := txService(t)
	ctx := context.Background()
	in := func(token, expr string) *ddb.TransactWriteItemsInput {
		return &ddb.TransactWriteItemsInput{ClientRequestToken: &token, ReturnConsumedCapacity: "TOTAL",
			TransactItems: []ddb.TransactWriteItem{{Update: &ddb.TransactUpdate{TableName: "A", Key: keyOfPK("c"),
				UpdateExpression: &expr, ExprParams: values(":one", nv("1"))}}}}
	}
	counter := func() string { return getItem(t, s, "A", "c")["n"].S }
	first, err := s.TransactWriteItems(ctx, "r", in("tok", "ADD n :one"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.TransactWriteItems(ctx, "r", in("tok", "ADD n :one"))
	if err != nil {
		t.Fatal(err)
	}
	if got := counter(); got != "1" {
		t.Fatalf("got counter %s after an idempotent retry, want 1", got)
	}
	if w, r := first.ConsumedCapacity[0], again.ConsumedCapacity[0]; w.WriteCapacityUnits == nil || r.WriteCapacityUnits != nil ||
		r.ReadCapacityUnits == nil || *r.ReadCapacityUnits != 2 {
		t.Errorf("got capacity %+v then %+v, want writes then 2 read units only", w, r)
	}
	_, err = s.TransactWriteItems(ctx, "r", in("tok", "ADD n :one SET m = :one"))
	var e *ddb.Error
	if !errors.As(err, &e) || e.Code != ddb.IdempotentParameterMismatchException {
		t.Fatalf("got %v, want IdempotentParameterMismatchException", err)
	}
	// The same token in another region is another token.
	if _, err := s.TransactWriteItems(ctx, "r2", in("tok", "ADD n :one SET m = :one")); err == nil || errors.As(err, &e) && e.Code == ddb.IdempotentParameterMismatchException {
		t.Fatalf("got %v in another region, want the table not found there", err)
	}
	clk.advance(tokenTTL)
	if _, err := s.TransactWriteItems(ctx, "r", in("tok", "ADD n :one")); err != nil {
		t.Fatal(err)
	}
	if got := counter(); got != "2" {
		t.Fatalf("got counter %s after the window, want 2 (applied again)", got)
	}
}

func TestTokenCache(t *testing.T) {
	c := newTokenCache()
	t0 := time.Unix(0, 0)
	d1, d2 := [32]byte{1}, [32]byte{2}
	out := &ddb.TransactWriteItemsOutput{}
	steps := []struct {
		name    string
		do      func() (*ddb.TransactWriteItemsOutput, error)
		wantOut *ddb.TransactWriteItemsOutput
		wantErr ddb.Code
	}{
		{"first claims", func() (*ddb.TransactWriteItemsOutput, error) { return c.begin("r", "t", d1, t0) }, nil, ""},
		{"concurrent retry", func() (*ddb.TransactWriteItemsOutput, error) { return c.begin("r", "t", d1, t0) }, nil, ddb.TransactionInProgressException},
		{"finish", func() (*ddb.TransactWriteItemsOutput, error) { c.finish("r", "t", out, t0); return nil, nil }, nil, ""},
		{"retry gets answer", func() (*ddb.TransactWriteItemsOutput, error) { return c.begin("r", "t", d1, t0.Add(time.Minute)) }, out, ""},
		{"mismatch", func() (*ddb.TransactWriteItemsOutput, error) { return c.begin("r", "t", d2, t0.Add(time.Minute)) }, nil, ddb.IdempotentParameterMismatchException},
		{"expired", func() (*ddb.TransactWriteItemsOutput, error) { return c.begin("r", "t", d2, t0.Add(tokenTTL)) }, nil, ""},
		{"failure releases", func() (*ddb.TransactWriteItemsOutput, error) {
			c.finish("r", "t", nil, t0.Add(tokenTTL))
			return c.begin("r", "t", d1, t0.Add(tokenTTL))
		}, nil, ""},
	}
	for _, st := range steps {
		got, err := st.do()
		var code ddb.Code
		var e *ddb.Error
		if errors.As(err, &e) {
			code = e.Code
		}
		if got != st.wantOut || code != st.wantErr {
			t.Fatalf("%s: got %v, %v; want %v, %s", st.name, got, err, st.wantOut, st.wantErr)
		}
	}
}

func TestTransactGetItems(t *testing.T) {
	s, _ := txService(t)
	ctx := context.Background()
	for _, it := range []struct{ table, pk string }{{"A", "1"}, {"B", "2"}} {
		if _, err := s.PutItem(ctx, "r", &ddb.PutItemInput{TableName: it.table, Item: attr.Item{"pk": sv(it.pk), "a": sv("x"), "b": sv("y")}}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := s.TransactGetItems(ctx, "r", &ddb.TransactGetItemsInput{ReturnConsumedCapacity: "TOTAL", TransactItems: []ddb.TransactGetItem{
		{Get: &ddb.TransactGet{TableName: "B", Key: keyOfPK("2"), ProjectionExpression: ptr("#a"), ExpressionAttributeNames: map[string]string{"#a": "a"}}},
		{Get: &ddb.TransactGet{TableName: "A", Key: keyOfPK("missing")}},
		{Get: &ddb.TransactGet{TableName: "A", Key: keyOfPK("1")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(out.Responses); got != 3 {
		t.Fatalf("got %d responses, want 3", got)
	}
	if got := out.Responses[0].Item; len(got) != 1 || got["a"].S != "x" {
		t.Errorf("got projected item %v, want only a", got)
	}
	if got := out.Responses[1].Item; got != nil {
		t.Errorf("got %v for a missing item, want none", got)
	}
	if got := out.Responses[2].Item; len(got) != 3 {
		t.Errorf("got %v, want the whole item", got)
	}
	if len(out.ConsumedCapacity) != 2 || out.ConsumedCapacity[0].TableName != "B" || out.ConsumedCapacity[0].CapacityUnits != 2 || out.ConsumedCapacity[1].CapacityUnits != 4 {
		t.Errorf("got capacity %+v %+v, want B 2 then A 4", out.ConsumedCapacity[0], out.ConsumedCapacity[1])
	}
	_, err = s.TransactGetItems(ctx, "r", &ddb.TransactGetItemsInput{TransactItems: []ddb.TransactGetItem{
		{Get: &ddb.TransactGet{TableName: "A", Key: keyOfPK("1")}}, {Get: &ddb.TransactGet{TableName: "A", Key: keyOfPK("1")}},
	}})
	var e *ddb.Error
	if !errors.As(err, &e) || e.Message != msgTxMultipleOps {
		t.Fatalf("got %v, want %q", err, msgTxMultipleOps)
	}
}

func BenchmarkTransactWriteItems(b *testing.B) {
	for _, n := range []int{2, 10, 100} {
		b.Run(fmt.Sprintf("actions=%d", n), func(b *testing.B) {
			db, err := store.Open(store.Options{InMemory: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s := New(db, Options{})
			if c, ok := any(s).(interface{ Close() }); ok {
				defer c.Close()
			}
			ctx := context.Background()
			if _, err := s.CreateTable(ctx, "r", &ddb.CreateTableInput{TableName: "A", BillingMode: "PAY_PER_REQUEST",
				AttributeDefinitions: []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
				KeySchema:            []ddb.KeySchemaElement{{AttributeName: "pk", KeyType: "HASH"}}}); err != nil {
				b.Fatal(err)
			}
			items := make([]ddb.TransactWriteItem, n)
			for i := range items {
				items[i] = ddb.TransactWriteItem{Update: &ddb.TransactUpdate{TableName: "A", Key: keyOfPK(string(rune('a'+i%26)) + string(rune('a'+i/26))),
					UpdateExpression: ptr("ADD n :one"), ExprParams: values(":one", nv("1"))}}
			}
			in := &ddb.TransactWriteItemsInput{TransactItems: items}
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.TransactWriteItems(ctx, "r", in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
		})
	}
}
