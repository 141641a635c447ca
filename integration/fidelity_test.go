package integration

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

// Exact DynamoDB behaviour where real code touches it: validation order,
// messages, limits and output shapes.

// TestValidationBeforeLookup: the checks that need no table (the members'
// constraints, the parameters and expressions of the request) come before the
// table lookup, so a bad request is a ValidationException even when the table
// does not exist.
func TestValidationBeforeLookup(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Exists", false)
	key := map[string]types.AttributeValue{"pk": s("k")}
	const badName = "1 validation error detected: Value 'a;b' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
	tests := []struct {
		name string
		call func() error
		code string
		msg  string
	}{
		{"GetItem bad name", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("a;b"), Key: key})
			return err
		}, "ValidationException", badName},
		{"PutItem short name", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ab"), Item: key})
			return err
		}, "ValidationException", "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"DescribeTable both", func() error {
			_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("x!")})
			return err
		}, "ValidationException", "2 validation errors detected: Value 'x!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3; " +
			"Value 'x!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"Query bad name", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("a;b"), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("k")}})
			return err
		}, "ValidationException", badName},
		{"missing table, mixed parameters", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Missing"), Item: key,
				ConditionExpression: aws.String("attribute_not_exists(pk)"), Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}})
			return err
		}, "ValidationException", "1 validation error detected: Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{"missing table, syntax error", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Missing"), Key: key, UpdateExpression: aws.String("SET")})
			return err
		}, "ValidationException", `1 validation error detected: Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"`},
		{"missing table, no key condition", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Missing")})
			return err
		}, "ValidationException", "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."},
		{"missing table, unused name", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Missing"), ProjectionExpression: aws.String("a"),
				ExpressionAttributeNames: map[string]string{"#x": "x"}})
			return err
		}, "ValidationException", "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"},
		{"missing table, bad ReturnValues", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Missing"), Key: key, ReturnValues: types.ReturnValueAllNew})
			return err
		}, "ValidationException", "1 validation error detected: ReturnValues can only be ALL_OLD or NONE"},
		{"missing table, Segment without TotalSegments", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Missing"), Segment: aws.Int32(1)})
			return err
		}, "ValidationException", "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"},
		{"missing table, Segment out of range", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Missing"), Segment: aws.Int32(2), TotalSegments: aws.Int32(2)})
			return err
		}, "ValidationException", "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less than TotalSegments: 2"},
		{"missing table, valid request", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Missing"), Key: key, ProjectionExpression: aws.String("a")})
			return err
		}, "ResourceNotFoundException", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.call(), tt.code, tt.msg)
		})
	}
	if got := tableState(t, c, "Exists"); len(got) != 0 {
		t.Errorf("rejected requests stored %v", got)
	}
}

// TestSetsReturnedSorted: set members come back in one order whatever order
// they were written in, as DynamoDB Local returns them: strings and binaries
// by unsigned bytes, numbers numerically (ElectroDB's and
// dynamodb-onetable's suites compare sets as lists).
func TestSetsReturnedSorted(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Sets", false)
	item := map[string]types.AttributeValue{"pk": s("a"),
		"ss": &types.AttributeValueMemberSS{Value: []string{"b", "B", "a", "é", "ab"}},
		"ns": &types.AttributeValueMemberNS{Value: []string{"10", "9", "-1", "1e2", "0.5", "-20"}},
		"bs": &types.AttributeValueMemberBS{Value: [][]byte{{2}, {1, 2}, {0xff}, {1}}},
	}
	want := map[string]any{
		"ss": []string{"B", "a", "ab", "b", "é"},
		"ns": []string{"-20", "-1", "0.5", "9", "10", "100"},
		"bs": [][]byte{{1}, {1, 2}, {2}, {0xff}},
	}
	check := func(what string, got map[string]types.AttributeValue) {
		t.Helper()
		gotSets := map[string]any{
			"ss": got["ss"].(*types.AttributeValueMemberSS).Value,
			"ns": got["ns"].(*types.AttributeValueMemberNS).Value,
			"bs": got["bs"].(*types.AttributeValueMemberBS).Value,
		}
		if !reflect.DeepEqual(gotSets, want) {
			t.Errorf("%s: got %v, want %v", what, gotSets, want)
		}
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Sets"), Item: item}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Sets"), Key: map[string]types.AttributeValue{"pk": s("a")}})
	if err != nil {
		t.Fatal(err)
	}
	check("GetItem", got.Item)
	item["pk"] = s("b")
	putAll(t, c, "Sets", []ritem{item})
	for _, it := range scanPages(t, c, "Sets", "", 0, nil) {
		check("Scan "+rstr(it, "pk"), it)
	}
	// ADD unites and keeps the order; ALL_NEW shows it.
	up, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Sets"), Key: map[string]types.AttributeValue{"pk": s("c")},
		UpdateExpression: aws.String("ADD ss :ss, ns :ns, bs :bs"), ReturnValues: types.ReturnValueAllNew,
		ExpressionAttributeValues: map[string]types.AttributeValue{":ss": item["ss"], ":ns": item["ns"], ":bs": item["bs"]}})
	if err != nil {
		t.Fatal(err)
	}
	check("UpdateItem ALL_NEW", up.Attributes)
	up, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Sets"), Key: map[string]types.AttributeValue{"pk": s("c")},
		UpdateExpression: aws.String("ADD ss :ss"), ReturnValues: types.ReturnValueUpdatedNew,
		ExpressionAttributeValues: map[string]types.AttributeValue{":ss": &types.AttributeValueMemberSS{Value: []string{"c", "A"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := up.Attributes["ss"].(*types.AttributeValueMemberSS).Value, []string{"A", "B", "a", "ab", "b", "c", "é"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ADD to a set: got %v, want %v", got, want)
	}
}

// edgeRejection is one case of TestConditionEdgeCases.
type edgeRejection struct {
	name string
	call func() error
	msg  string
}

// edgeRejections are the requests TestConditionEdgeCases expects refused,
// each with its ValidationException's message, on table Edge's item key.
func edgeRejections(ctx context.Context, c *dynamodb.Client, key map[string]types.AttributeValue) []edgeRejection {
	return []edgeRejection{
		{"BETWEEN reversed", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Edge"), FilterExpression: aws.String("n BETWEEN :hi AND :lo"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":hi": n("200"), ":lo": n("100")}})
			return err
		}, "Invalid FilterExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:200}, upper bound operand: AttributeValue: {N:100}"},
		{"legacy BETWEEN reversed", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Edge"), Key: key, Expected: map[string]types.ExpectedAttributeValue{
				"n": {ComparisonOperator: types.ComparisonOperatorBetween, AttributeValueList: []types.AttributeValue{n("2"), n("1")}}}})
			return err
		}, "1 validation error detected: The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
		{"lower-case operator", func() error {
			_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Edge"), ScanFilter: map[string]types.Condition{
				"n": {ComparisonOperator: "eq", AttributeValueList: []types.AttributeValue{n("1")}}}})
			return err
		}, "1 validation error detected: Value 'eq' at 'scanFilter.n.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"lower-case Expected operator", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Edge"), Item: key, Expected: map[string]types.ExpectedAttributeValue{
				"n": {ComparisonOperator: "not_null"}}})
			return err
		}, "1 validation error detected: Value 'not_null' at 'expected.n.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"},
		{"legacy ADD of NS to SS", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Edge"), Key: key, AttributeUpdates: map[string]types.AttributeValueUpdate{
				"ss": {Action: types.AttributeActionAdd, Value: &types.AttributeValueMemberNS{Value: []string{"1"}}}}})
			return err
		}, "Type mismatch for attribute to update"},
		{"legacy DELETE of SS from N", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Edge"), Key: key, AttributeUpdates: map[string]types.AttributeValueUpdate{
				"n": {Action: types.AttributeActionDelete, Value: &types.AttributeValueMemberSS{Value: []string{"1"}}}}})
			return err
		}, "Type mismatch for attribute to update"},
		{"legacy ADD of a string", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Edge"), Key: key, AttributeUpdates: map[string]types.AttributeValueUpdate{
				"n": {Action: types.AttributeActionAdd, Value: s("x")}}})
			return err
		}, "1 validation error detected: One or more parameter values were invalid: Action ADD is not supported for the type S"},
		{"expression ADD of NS to SS", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Edge"), Key: key, UpdateExpression: aws.String("ADD ss :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberNS{Value: []string{"1"}}}})
			return err
		}, "An operand in the update expression has an incorrect data type"},
	}
}

// TestConditionEdgeCases: contains and begins_with on binaries, BETWEEN with
// reversed bounds, case-sensitive legacy operators, and legacy ADD/DELETE
// type mismatches; every rejected request leaves the table as it was.
func TestConditionEdgeCases(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Edge", false)
	putAll(t, c, "Edge", []ritem{
		{"pk": s("a"), "b": &types.AttributeValueMemberB{Value: []byte{1, 2, 3}}, "ss": &types.AttributeValueMemberSS{Value: []string{"x"}}, "n": n("1")},
		{"pk": s("b"), "b": &types.AttributeValueMemberB{Value: []byte{2, 3}}},
	})
	before := tableState(t, c, "Edge")
	scan := func(in *dynamodb.ScanInput) []string {
		t.Helper()
		in.TableName = aws.String("Edge")
		out, err := c.Scan(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		var pks []string
		for _, it := range out.Items {
			pks = append(pks, rstr(it, "pk"))
		}
		slices.Sort(pks)
		return pks
	}
	bin := func(b ...byte) types.AttributeValue { return &types.AttributeValueMemberB{Value: b} }
	if got := scan(&dynamodb.ScanInput{FilterExpression: aws.String("contains(b, :x)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": bin(2, 3)}}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("contains on binary: got %v, want [a b]", got)
	}
	if got := scan(&dynamodb.ScanInput{FilterExpression: aws.String("begins_with(b, :x) AND NOT contains(b, :y)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":x": bin(1), ":y": bin(1, 3)}}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("begins_with on binary: got %v, want [a]", got)
	}
	if got := scan(&dynamodb.ScanInput{ScanFilter: map[string]types.Condition{"b": {ComparisonOperator: types.ComparisonOperatorContains,
		AttributeValueList: []types.AttributeValue{bin(2)}}}}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("legacy CONTAINS on binary: got %v, want [a b]", got)
	}
	key := map[string]types.AttributeValue{"pk": s("a")}
	tests := edgeRejections(ctx, c, key)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.call(), "ValidationException", tt.msg)
		})
	}
	if after := tableState(t, c, "Edge"); !slices.Equal(after, before) {
		t.Errorf("rejected requests changed the table: %v, was %v", after, before)
	}
	// An update with no update creates the item with only its key.
	out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Edge"), Key: map[string]types.AttributeValue{"pk": s("new")},
		ReturnValues: types.ReturnValueAllNew})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonItem(out.Attributes), canonItem(ritem{"pk": s("new")}); got != want {
		t.Errorf("empty update: got %s, want %s", got, want)
	}
	if got := tableState(t, c, "Edge"); len(got) != 3 || !slices.Contains(got, canonItem(ritem{"pk": s("new")})) {
		t.Errorf("after an empty update: got %v, want the key-only item added", got)
	}
}

// TestBillingModeSummary: an on-demand table reports when it became
// on-demand (its creation, or the UpdateTable that switched it), and keeps
// reporting that time after switching to provisioned.
func TestBillingModeSummary(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	c := startServer(t, table.Options{Now: clk.Now}).client("us-east-1")
	createTable(t, c, "Bill", false)
	created := clk.Now()
	summary := func() (types.BillingMode, time.Time) {
		t.Helper()
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Bill")})
		if err != nil {
			t.Fatal(err)
		}
		s := out.Table.BillingModeSummary
		if s == nil || s.LastUpdateToPayPerRequestDateTime == nil {
			t.Fatalf("BillingModeSummary %+v, want a mode and LastUpdateToPayPerRequestDateTime", s)
		}
		return s.BillingMode, *s.LastUpdateToPayPerRequestDateTime
	}
	if mode, at := summary(); mode != types.BillingModePayPerRequest || !at.Equal(created) {
		t.Errorf("created on demand: got %s at %v, want PAY_PER_REQUEST at %v", mode, at, created)
	}
	clk.Advance(time.Hour)
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Bill"), BillingMode: types.BillingModeProvisioned,
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}}); err != nil {
		t.Fatal(err)
	}
	if mode, at := summary(); mode != types.BillingModeProvisioned || !at.Equal(created) {
		t.Errorf("switched to provisioned: got %s at %v, want PROVISIONED at %v", mode, at, created)
	}
	clk.Advance(time.Hour)
	switched := clk.Now()
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Bill"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	if mode, at := summary(); mode != types.BillingModePayPerRequest || !at.Equal(switched) {
		t.Errorf("back on demand: got %s at %v, want PAY_PER_REQUEST at %v", mode, at, switched)
	}
}

// TestTransactInvalidKeys: a key that does not fit its table's schema cancels
// a transaction with a ValidationError reason for that action, where an empty
// key value (an input check) is a plain ValidationException; nothing is written.
func TestTransactInvalidKeys(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "TxKeys", false)
	putAll(t, c, "TxKeys", []ritem{{"pk": s("keep"), "v": n("1")}})
	before := tableState(t, c, "TxKeys")
	good := types.TransactWriteItem{Put: &types.Put{TableName: aws.String("TxKeys"), Item: map[string]types.AttributeValue{"pk": s("new")}}}
	upd := func(key types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{TableName: aws.String("TxKeys"), Key: map[string]types.AttributeValue{"pk": key},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("2")}}}
	}
	const schema = "The provided key element does not match the schema"
	tests := []struct {
		name    string
		items   []types.TransactWriteItem
		reasons []string // "code: message", or nil for a plain ValidationException
		msg     string
	}{
		{"Put key of the wrong type", []types.TransactWriteItem{good, {Put: &types.Put{TableName: aws.String("TxKeys"), Item: map[string]types.AttributeValue{"pk": n("5")}}}},
			[]string{"None: ", "ValidationError: One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"}, ""},
		{"Put without its key", []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String("TxKeys"), Item: map[string]types.AttributeValue{"v": n("5")}}}, good},
			[]string{"ValidationError: One or more parameter values were invalid: Missing the key pk in the item", "None: "}, ""},
		{"Update key of the wrong type", []types.TransactWriteItem{upd(n("5"))}, []string{"ValidationError: " + schema}, ""},
		{"Delete with a list key", []types.TransactWriteItem{{Delete: &types.Delete{TableName: aws.String("TxKeys"),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("x")}}}}}},
			[]string{"ValidationError: " + schema}, ""},
		{"empty key string", []types.TransactWriteItem{good, upd(s(""))}, nil,
			"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tt.items})
			if tt.reasons == nil {
				wantAPIError(t, err, "ValidationException", tt.msg)
				return
			}
			wantCancelled(t, err, tt.reasons)
		})
	}
	if after := tableState(t, c, "TxKeys"); !slices.Equal(after, before) {
		t.Errorf("rejected transactions changed the table: %v, was %v", after, before)
	}
	_, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("TxKeys"), Key: map[string]types.AttributeValue{"pk": s("keep")}}},
		{Get: &types.Get{TableName: aws.String("TxKeys"), Key: map[string]types.AttributeValue{}}},
	}})
	wantCancelled(t, err, []string{"None: ", "ValidationError: " + schema})
}

// wantCancelled asserts err is a TransactionCanceledException with the
// given "code: message" reasons.
func wantCancelled(t *testing.T, err error, reasons []string) {
	t.Helper()
	var tc *types.TransactionCanceledException
	if !errors.As(err, &tc) {
		t.Fatalf("got %v, want TransactionCanceledException", err)
	}
	var got, codes []string
	for _, r := range tc.CancellationReasons {
		got = append(got, aws.ToString(r.Code)+": "+aws.ToString(r.Message))
		codes = append(codes, aws.ToString(r.Code))
	}
	if !slices.Equal(got, reasons) {
		t.Errorf("reasons: got %q, want %q", got, reasons)
	}
	if want := "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"; aws.ToString(tc.Message) != want {
		t.Errorf("message: got %q, want %q", aws.ToString(tc.Message), want)
	}
}

// TestAttributeNameSizeLimit: attribute names may be up to 65535 bytes at
// any depth; a longer one, in an item, a value or ExpressionAttributeNames,
// is rejected and nothing is stored.
func TestAttributeNameSizeLimit(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Names", false)
	long := strings.Repeat("n", 65536)
	const msg = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
	key := map[string]types.AttributeValue{"pk": s("k")}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Names"),
		Item: map[string]types.AttributeValue{"pk": s("ok"), long[:65535]: s("x")}}); err != nil {
		t.Fatalf("a 65535-byte name: %v", err)
	}
	before := tableState(t, c, "Names")
	tests := []struct {
		name string
		call func() error
	}{
		{"PutItem top level", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Names"), Item: map[string]types.AttributeValue{"pk": s("k"), long: s("x")}})
			return err
		}},
		{"PutItem nested", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Names"),
				Item: map[string]types.AttributeValue{"pk": s("k"), "m": exM(long, n("1"))}})
			return err
		}},
		{"UpdateItem value", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Names"), Key: key, UpdateExpression: aws.String("SET doc = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": exM(long, n("1"))}})
			return err
		}},
		{"UpdateItem name", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Names"), Key: key, UpdateExpression: aws.String("SET #n = :v"),
				ExpressionAttributeNames: map[string]string{"#n": long}, ExpressionAttributeValues: map[string]types.AttributeValue{":v": n("1")}})
			return err
		}},
		{"BatchWriteItem", func() error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"Names": {
				{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("k"), long: s("x")}}}}}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantAPIError(t, tt.call(), "ValidationException", msg)
		})
	}
	if after := tableState(t, c, "Names"); !slices.Equal(after, before) {
		t.Errorf("rejected requests changed the table")
	}
}
