package codec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// getItemBodies are GetItem requests: what the SDKs send (which the fast
// path must take) and shapes it must leave to the reflective path.
var getItemBodies = []string{
	`{"TableName":"bench","Key":{"pk":{"S":"p0042"},"sk":{"S":"s0017"}}}`,
	`{"TableName":"t","Key":{"pk":{"N":"1.50"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`,
	` { "Key" : {"pk":{"B":"AQ=="}} , "ConsistentRead":false, "TableName":"t" } `,
	`{"TableName":"t","Key":{}}`, `{"TableName":"t"}`, `{"Key":{"pk":{"S":"a"}}}`, `{}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"}}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributesToGet":["a"]}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":null}`, `{"TableName":"t","Key":null}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":"true"}`, `{"TableName":"t","TableName":"u"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"Key":{"sk":{"S":"b"}}}`, `{"TableName":"t\u0041","Key":{}}`,
	`{"TableName":"t","Key":{"pk":{"N":"x"}}}`, `{"TableName":"t","Key":{"pk":{"S":"a","N":"1"}}}`,
	`{"TableName":"t","Key":[]}`, `{"TableName":"t","Key":"k"}`, `{"TableName":1,"Key":{}}`, `{"tablename":"t"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}}} x`, `{"TableName":"t","Key":{"pk":{"S":"a"}}`, `{"TableName":"t",}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ReturnConsumedCapacity":""}`, `{"TableName":"","Key":{}}`,
	`{"TableName":"t","Key":{"pk":{"M":{"a":{"L":[{"NULL":true}]}}}}}`, `{"TableName":"t","Key":{"pk":{"S":"é\n"}}}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"Unknown":1}`, `null`, `[]`, ``, `{"TableName":"t","Key":{"pk":{"S":"a\q"}}}`,
}

// putItemBodies are PutItem and DeleteItem requests, as getItemBodies.
var putItemBodies = []string{
	`{"TableName":"bench","Item":{"pk":{"S":"p0042"},"sk":{"S":"s0017"},"v":{"S":"vvvv"}}}`,
	`{"TableName":"t","Item":{"pk":{"N":"1"},"m":{"M":{"a":{"L":[{"NULL":true},{"BS":["AQ=="]}]}}}},"ReturnConsumedCapacity":"TOTAL"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ReturnConsumedCapacity":"NONE"}`, `{"TableName":"t","Item":{}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ConsistentRead":true}`, `{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":true}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ReturnValues":"ALL_OLD"}`, `{"TableName":"t","Item":null}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"Item":{"pk":{"S":"b"}}}`, `{"TableName":"t","Item":{"pk":{"N":"x"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"},"pk":{"S":"b"}}}`, `{"TableName":"t","Item":{"pk":{"SS":["a","a"]}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ReturnConsumedCapacity":""}`, `{"TableName":"t","Item":[]}`,
}

// fastTargets are the requests decodeFast serves.
var fastTargets = []func() any{
	func() any { return new(ddb.GetItemInput) },
	func() any { return new(ddb.PutItemInput) },
	func() any { return new(ddb.DeleteItemInput) },
}

// TestItemFastPath holds decodeFast to encoding/json: the same value and
// error for every body and target, and decodeFast taking the shapes the
// SDKs send (and only what its target has).
func TestItemFastPath(t *testing.T) {
	fd := new(Decoder)
	bodies := append(append(append([]string(nil), getItemBodies...), putItemBodies...), decodeBodies...)
	for _, body := range bodies {
		for _, target := range fastTargets {
			checkSameDecode(t, fd, []byte(body), target)
		}
	}
	for _, tc := range []struct {
		body       string
		get, write bool // taken for GetItem; for PutItem (Item) or DeleteItem (Key)
	}{
		{getItemBodies[0], true, true}, {getItemBodies[1], true, false}, {getItemBodies[2], true, false},
		{getItemBodies[3], true, true}, {getItemBodies[4], true, true},
		{putItemBodies[0], false, true}, {putItemBodies[1], false, true}, {putItemBodies[2], true, true},
		{putItemBodies[4], false, false}, {putItemBodies[6], false, false},
		{`{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"pk"}`, false, false},
		{`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":null}`, false, false},
		{`{"TableName":"t","TableName":"u"}`, false, false}, {`{"TableName":"t","Key":{"pk":{"N":"x"}}}`, false, false},
	} {
		for i, target := range fastTargets {
			want := tc.get
			if i > 0 {
				want = tc.write
			}
			got, wantV := target(), target()
			tried, ok := decodeFast([]byte(tc.body), got)
			if !tried {
				t.Fatalf("decodeFast(%T) not tried", got)
			}
			if i == 1 && strings.Contains(tc.body, `"Key"`) || i == 2 && strings.Contains(tc.body, `"Item"`) {
				want = false // the other operation's member
			}
			if ok != want {
				t.Errorf("decodeFast(%s) into %T = %v, want %v", tc.body, got, ok, want)
			}
			if ok {
				if err := Unmarshal([]byte(tc.body), wantV); err != nil || !reflect.DeepEqual(got, wantV) {
					t.Errorf("decodeFast(%s) = %+v, encoding/json %+v (%v)", tc.body, got, wantV, err)
				}
			}
		}
	}
	if tried, _ := decodeFast([]byte(`{}`), new(ddb.QueryInput)); tried {
		t.Error("decodeFast tried a Query")
	}
}
