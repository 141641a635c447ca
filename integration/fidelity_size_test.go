package integration

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The 400 KB item limit on each write surface, as a public dual-target
// conformance suite measured it against DynamoDB (its "Item size limit by
// surface" tests: eu-west-2 on 2026-08-18/19, every Region on
// 2026-09-28/29). Every surface but UpdateItem measures the finished item:
// 409,600 bytes is stored, one more is refused. A put says "Item size has
// exceeded", an update "Item size to update has exceeded"; a transacted Put
// is refused before the transaction opens, a transacted Update cancels it.

const (
	maxItemBytes  = 409600
	putTooLarge   = "Item size has exceeded the maximum allowed size"
	updateTooLarg = "Item size to update has exceeded the maximum allowed size"
)

// padFor returns the value of attribute p that makes item key + p measure
// exactly bytes (keys of S attributes only).
func padFor(key map[string]types.AttributeValue, bytes int) types.AttributeValue {
	n := bytes - len("p")
	for k, v := range key {
		n -= len(k) + len(v.(*types.AttributeValueMemberS).Value)
	}
	return s(strings.Repeat("x", n))
}

func withPad(key map[string]types.AttributeValue, bytes int) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{"p": padFor(key, bytes)}
	for k, v := range key {
		it[k] = v
	}
	return it
}

// wantStoredSize reads the item at key back and checks its size.
func wantStoredSize(t *testing.T, c *dynamodb.Client, tbl string, key map[string]types.AttributeValue, want int) {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(tbl), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for k, v := range out.Item {
		got += len(k) + len(v.(*types.AttributeValueMemberS).Value)
	}
	if got != want {
		t.Fatalf("stored item %v: got %d bytes, want %d", key, got, want)
	}
}

func sizeKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": s(strings.Repeat(id, 30))}
}

// TestItemSizeBySurface: BatchWriteItem, PartiQL INSERT and UPDATE and
// TransactWriteItems Put and Update store an item of exactly 409,600 bytes
// and refuse one more, each in its words and envelope.
func TestItemSizeBySurface(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Sized", false)
	tbl := aws.String("Sized")

	batch := func(key map[string]types.AttributeValue, bytes int) error {
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			"Sized": {{PutRequest: &types.PutRequest{Item: withPad(key, bytes)}}}}})
		return err
	}
	insert := func(key map[string]types.AttributeValue, bytes int) error {
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`INSERT INTO "Sized" VALUE {'pk': ?, 'p': ?}`), Parameters: []types.AttributeValue{key["pk"], padFor(key, bytes)}})
		return err
	}
	update := func(key map[string]types.AttributeValue, bytes int) error {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: key}); err != nil {
			t.Fatal(err)
		}
		_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement: aws.String(`UPDATE "Sized" SET p = ? WHERE pk = ?`), Parameters: []types.AttributeValue{padFor(key, bytes), key["pk"]}})
		return err
	}
	txPut := func(key map[string]types.AttributeValue, bytes int) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: tbl, Item: withPad(key, bytes)}}}})
		return err
	}
	txUpdate := func(key map[string]types.AttributeValue, bytes int) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: tbl, Key: key, UpdateExpression: aws.String("SET p = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": padFor(key, bytes)}}}}})
		return err
	}
	for _, tc := range []struct {
		name      string
		write     func(map[string]types.AttributeValue, int) error
		atKey     string
		overKey   string
		want      string
		cancelled bool
	}{
		{"BatchWriteItem", batch, "a", "b", putTooLarge, false},
		{"PartiQL INSERT", insert, "c", "d", putTooLarge, false},
		{"PartiQL UPDATE", update, "e", "f", updateTooLarg, false},
		{"TransactWriteItems Put", txPut, "g", "h", putTooLarge, false},
		{"TransactWriteItems Update", txUpdate, "i", "j", updateTooLarg, true},
	} {
		at, over := sizeKey(tc.atKey), sizeKey(tc.overKey)
		if err := tc.write(at, maxItemBytes); err != nil {
			t.Fatalf("%s of %d bytes: %v", tc.name, maxItemBytes, err)
		}
		wantStoredSize(t, c, "Sized", at, maxItemBytes)
		err := tc.write(over, maxItemBytes+1)
		if !tc.cancelled {
			wantAPIError(t, err, "ValidationException", tc.want)
			continue
		}
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) || len(tce.CancellationReasons) != 1 ||
			aws.ToString(tce.CancellationReasons[0].Code) != "ValidationError" || aws.ToString(tce.CancellationReasons[0].Message) != tc.want {
			t.Fatalf("%s one byte over: got %v, want a cancellation with ValidationError %q", tc.name, err, tc.want)
		}
	}
}

// TestUpdateItemSizedByWhatItWrites: standalone UpdateItem, as DynamoDB
// sizes it in 31 of its 33 Regions (the same suite, 2026-10-07), also refuses an
// update whose written attributes plus 3 bytes, plus 19 per SET (one more
// through a list index) and 2 per REMOVE, exceed 409,600: the key and
// attributes it leaves alone do not count. At a one-byte key a single SET
// stores at most 409,581 bytes; past a 20-byte key the finished item binds.
// PartiQL's UPDATE stores at that key what UpdateItem refuses.
func TestUpdateItemSizedByWhatItWrites(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Upd", false)
	tbl := aws.String("Upd")
	key := func(v string) map[string]types.AttributeValue { return map[string]types.AttributeValue{"pk": s(v)} }
	// update sets b to make the finished item (key, untouched, b and the
	// extra attributes the expression writes) measure bytes.
	update := func(k map[string]types.AttributeValue, bytes int, expr string, extra, untouched map[string]types.AttributeValue) error {
		seed := map[string]types.AttributeValue{}
		for n, v := range k {
			seed[n] = v
		}
		for n, v := range untouched {
			seed[n] = v
		}
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: seed}); err != nil {
			t.Fatal(err)
		}
		pad := bytes - len("b")
		values := map[string]types.AttributeValue{}
		for _, m := range []map[string]types.AttributeValue{k, extra, untouched} {
			for n, v := range m {
				pad -= len(n) + len(v.(*types.AttributeValueMemberS).Value)
			}
		}
		for n, v := range extra {
			values[":"+n] = v
		}
		values[":pad"] = s(strings.Repeat("x", pad))
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: k, UpdateExpression: aws.String(expr),
			ExpressionAttributeValues: values})
		return err
	}
	long := strings.Repeat("k", 100)
	for _, tc := range []struct {
		name             string
		at, over         string
		expr             string
		extra, untouched map[string]types.AttributeValue
		ceiling          int
	}{
		{"one SET at a one-byte key", "K", "L", "SET b = :pad", nil, nil, maxItemBytes - 19},
		{"one SET at a 100-byte key", long, long + "x", "SET b = :pad", nil, nil, maxItemBytes},
		{"a second SET", "M", "N", "SET b = :pad, c = :c", map[string]types.AttributeValue{"c": s("y")}, nil, maxItemBytes - 19 - 19},
		{"an untouched attribute", "O", "P", "SET b = :pad", nil, map[string]types.AttributeValue{"u": s(strings.Repeat("y", 10))}, maxItemBytes - 19 + 11},
	} {
		if err := update(key(tc.at), tc.ceiling, tc.expr, tc.extra, tc.untouched); err != nil {
			t.Fatalf("%s: finished item of %d bytes: %v", tc.name, tc.ceiling, err)
		}
		wantAPIError(t, update(key(tc.over), tc.ceiling+1, tc.expr, tc.extra, tc.untouched), "ValidationException", updateTooLarg)
	}
	// SET b = :pad REMOVE r costs 2 more than the SET alone.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: map[string]types.AttributeValue{"pk": s("R"), "r": s("z")}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("R"), UpdateExpression: aws.String("SET b = :pad REMOVE r"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pad": s(strings.Repeat("x", maxItemBytes-19-2-3-1+1))}})
	wantAPIError(t, err, "ValidationException", updateTooLarg)
	if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: key("R"), UpdateExpression: aws.String("SET b = :pad REMOVE r"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pad": s(strings.Repeat("x", maxItemBytes-19-2-3-1))}}); err != nil {
		t.Fatal(err)
	}
	// PartiQL's UPDATE stores the 409,600-byte item UpdateItem refuses at "X".
	x := key("X")
	wantAPIError(t, update(x, maxItemBytes, "SET b = :pad", nil, nil), "ValidationException", updateTooLarg)
	if _, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`UPDATE "Upd" SET b = ? WHERE pk = ?`),
		Parameters: []types.AttributeValue{s(strings.Repeat("x", maxItemBytes-3-1)), s("X")}}); err != nil {
		t.Fatalf("PartiQL UPDATE of %d bytes: %v", maxItemBytes, err)
	}
}
