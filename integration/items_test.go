package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/ddblocal/ddblocal/table"
)

func TestPutGetDelete(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Items", true)
	item := map[string]types.AttributeValue{
		"pk": s("user#1"), "sk": s("profile"),
		"age":  n("042.50"),
		"tags": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"meta": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"ok": &types.AttributeValueMemberBOOL{Value: true}, "nil": &types.AttributeValueMemberNULL{Value: true}}},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), s("x"), &types.AttributeValueMemberB{Value: []byte{0, 1, 2}}}},
	}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Items"), Item: item}); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{"pk": s("user#1"), "sk": s("profile")}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Items"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if age := got.Item["age"].(*types.AttributeValueMemberN).Value; age != "42.5" {
		t.Errorf("number normalisation: got %q, want 42.5", age)
	}
	if len(got.Item) != len(item) {
		t.Errorf("GetItem: got %d attributes, want %d", len(got.Item), len(item))
	}
	if b := got.Item["list"].(*types.AttributeValueMemberL).Value[2].(*types.AttributeValueMemberB).Value; !bytes.Equal(b, []byte{0, 1, 2}) {
		t.Errorf("binary round trip: got %v", b)
	}

	item["age"] = n("43")
	put, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Items"), Item: item, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	if old := put.Attributes["age"].(*types.AttributeValueMemberN).Value; old != "42.5" {
		t.Errorf("ALL_OLD: got age %q, want 42.5", old)
	}
	del, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Items"), Key: key, ReturnValues: types.ReturnValueAllOld})
	if err != nil || del.Attributes["age"].(*types.AttributeValueMemberN).Value != "43" {
		t.Fatalf("DeleteItem ALL_OLD: %+v, %v", del, err)
	}
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Items"), Key: key})
	if err != nil || got.Item != nil {
		t.Fatalf("GetItem after delete: %+v, %v", got.Item, err)
	}
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Items"), Key: key}); err != nil {
		t.Fatalf("deleting an absent item: %v", err)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Items")})
	if err != nil || aws.ToInt64(d.Table.ItemCount) != 0 || aws.ToInt64(d.Table.TableSizeBytes) != 0 {
		t.Fatalf("counters after delete: %+v, %v", d.Table, err)
	}
}

func TestItemKeyErrors(t *testing.T) {
	ctx := context.Background()
	c := newClient(t)
	createTable(t, c, "Keys", true)
	tests := []struct {
		name string
		call func() error
		msg  string
	}{
		{"put missing sort key", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": s("a")}})
			return err
		}, "One or more parameter values were invalid: Missing the key sk in the item"},
		{"put key type mismatch", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": n("1"), "sk": s("a")}})
			return err
		}, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"put empty string key", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": s(""), "sk": s("a")}})
			return err
		}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"get extra key attribute", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Keys"), Key: map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "x": s("c")}})
			return err
		}, "The provided key element does not match the schema"},
		{"get wrong key type", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Keys"), Key: map[string]types.AttributeValue{"pk": s("a"), "sk": n("1")}})
			return err
		}, "The provided key element does not match the schema"},
		{"delete missing sort key", func() error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Keys"), Key: map[string]types.AttributeValue{"pk": s("a")}})
			return err
		}, "The provided key element does not match the schema"},
		{"partition key too long", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": s(strings.Repeat("x", 2049)), "sk": s("a")}})
			return err
		}, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{"sort key too long", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s(strings.Repeat("x", 1025))}})
			return err
		}, "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"},
		{"item too large", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("b"), "big": s(strings.Repeat("x", 400*1024))}})
			return err
		}, "Item size has exceeded the maximum allowed size"},
		{"put ALL_NEW", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keys"), Item: map[string]types.AttributeValue{"pk": s("a"), "sk": s("b")}, ReturnValues: types.ReturnValueAllNew})
			return err
		}, "1 validation error detected: ReturnValues can only be ALL_OLD or NONE"},
		{"missing table", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Nope"), Key: map[string]types.AttributeValue{"pk": s("a")}})
			return err
		}, "Requested resource not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := "ValidationException"
			if tt.name == "missing table" {
				code = "ResourceNotFoundException"
			}
			wantAPIError(t, tt.call(), code, tt.msg)
		})
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Keys")})
	if err != nil || aws.ToInt64(d.Table.ItemCount) != 0 {
		t.Fatalf("failed writes stored something: %+v, %v", d.Table.ItemCount, err)
	}
}

// TestMalformedRequests sends raw requests an SDK would not produce and checks
// each answer and that the stored item is untouched.
func TestMalformedRequests(t *testing.T) {
	srv := startServer(t, table.Options{})
	c := srv.client("us-east-1")
	ctx := context.Background()
	createTable(t, c, "Raw", false)
	orig := map[string]types.AttributeValue{"pk": s("k"), "v": n("1")}
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Raw"), Item: orig}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target, body string
		status             int
		typ, msg           string
	}{
		{"bad json", "PutItem", `{"TableName":"Raw",`, 400, "SerializationException", ""},
		{"not UTF-8", "PutItem", "{\"TableName\":\"Raw\",\"Item\":{\"pk\":{\"S\":\"k\"},\"v\":{\"S\":\"a\xffb\"}}}", 400, "SerializationException", ""},
		{"unknown operation", "Frobnicate", `{}`, 400, "UnknownOperationException", ""},
		{"wrong member type", "PutItem", `{"TableName":5,"Item":{"pk":{"S":"k"}}}`, 400, "SerializationException", ""},
		{"missing table name", "PutItem", `{"Item":{"pk":{"S":"k"}}}`, 400, "ValidationException",
			"1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"},
		{"invalid number", "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"k"},"v":{"N":"12abc"}}}`, 400, "ValidationException",
			"1 validation error detected: The parameter cannot be converted to a numeric value: 12abc"},
		{"empty set", "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"k"},"v":{"SS":[]}}}`, 400, "ValidationException",
			"1 validation error detected: One or more parameter values were invalid: An string set  may not be empty"},
		{"duplicate set member", "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"k"},"v":{"NS":["1","1.0"]}}}`, 400, "ValidationException",
			"1 validation error detected: One or more parameter values were invalid: Input collection contains duplicates."},
		{"empty attribute value", "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"k"},"v":{}}}`, 400, "ValidationException",
			"Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"two types", "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"k"},"v":{"S":"a","N":"1"}}}`, 400, "ValidationException",
			"Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{"key mismatch", "PutItem", `{"TableName":"Raw","Item":{"pk":{"N":"1"}}}`, 400, "ValidationException",
			"One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"number too precise", "PutItem", `{"TableName":"Raw","Item":{"pk":{"S":"k"},"v":{"N":"1.000000000000000000000000000000000000001"}}}`, 400, "ValidationException",
			"1 validation error detected: Attempting to store more than 38 significant digits in a Number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, typ, msg := rawCall(t, srv.URL, tt.target, tt.body)
			if status != tt.status || !strings.HasSuffix(typ, "#"+tt.typ) || (tt.msg != "" && msg != tt.msg) {
				t.Fatalf("got %d %s %q, want %d %s %q", status, typ, msg, tt.status, tt.typ, tt.msg)
			}
		})
	}
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Raw"), Key: map[string]types.AttributeValue{"pk": s("k")}})
	if err != nil || got.Item["v"].(*types.AttributeValueMemberN).Value != "1" || len(got.Item) != 2 {
		t.Fatalf("stored item changed: %+v, %v", got.Item, err)
	}
}

// rawCall posts body as operation op, signed with the suite's key, and
// returns the status, __type and message.
func rawCall(t *testing.T, url, op, body string) (int, string, string) {
	t.Helper()
	return rawCallWith(t, url, op, body, nil)
}

// rawCallWith is rawCall with extra request headers.
func rawCallWith(t *testing.T, url, op, body string, headers map[string]string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	signRaw(t, req, body, time.Now())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Msg2    string `json:"Message"`
	}
	json.Unmarshal(b, &e)
	if e.Message == "" {
		e.Message = e.Msg2
	}
	return resp.StatusCode, e.Type, e.Message
}
