package codec

import (
	"reflect"
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

// TestGetItemFastPath holds the GetItem fast path to encoding/json: the
// same value and error for every body, and the fast path taken for the
// shapes the SDKs send.
func TestGetItemFastPath(t *testing.T) {
	fd := new(Decoder)
	for _, body := range append(getItemBodies, decodeBodies...) {
		checkSameDecode(t, fd, []byte(body), func() any { return new(ddb.GetItemInput) })
	}
	for _, tc := range []struct {
		body string
		fast bool
	}{
		{getItemBodies[0], true}, {getItemBodies[1], true}, {getItemBodies[2], true}, {getItemBodies[3], true},
		{getItemBodies[4], true}, {`{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"pk"}`, false},
		{`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":null}`, false},
		{`{"TableName":"t","TableName":"u"}`, false}, {`{"TableName":"t","Key":{"pk":{"N":"x"}}}`, false},
	} {
		var in ddb.GetItemInput
		if got := decodeGetItem([]byte(tc.body), &in); got != tc.fast {
			t.Errorf("decodeGetItem(%s) = %v, want %v", tc.body, got, tc.fast)
		}
		if tc.fast {
			var want ddb.GetItemInput
			if err := Unmarshal([]byte(tc.body), &want); err != nil || !reflect.DeepEqual(in, want) {
				t.Errorf("decodeGetItem(%s) = %+v, encoding/json %+v (%v)", tc.body, in, want, err)
			}
		}
	}
}
