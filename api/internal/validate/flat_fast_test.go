package validate

import (
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestValidFastMatchesWalk holds validFast, the fast check of GetItem,
// PutItem and DeleteItem, to the reflective walk it skips: whenever it
// passes a request, the walk passes it too; it passes the requests the
// SDKs send; and ValidateBody answers every request as the walk does.
func TestValidFastMatchesWalk(t *testing.T) {
	key, item := `"Key":{"pk":{"S":"a"}}`, `"Item":{"pk":{"S":"a"},"v":{"N":"1"}}`
	long := strings.Repeat("a", 255)
	get := func() any { return new(ddb.GetItemInput) }
	put := func() any { return new(ddb.PutItemInput) }
	del := func() any { return new(ddb.DeleteItemInput) }
	cases := []struct {
		target func() any
		body   string
		fast   bool // validFast must pass it
	}{
		{get, `{"TableName":"bench",` + key + `}`, true},
		{get, `{"TableName":"a-b_c.D9",` + key + `,"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, true},
		{get, `{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":"INDEXES"}`, true},
		{get, `{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":"NONE"}`, true},
		{get, `{"TableName":"abc","Key":{}}`, true},
		{get, `{"TableName":"` + long + `",` + key + `}`, true},
		{get, `{"TableName":"abc","Key":{"pk":{"S":""}}}`, false}, // holds "": left to the walk, which passes it
		{get, `{"TableName":"` + long + `a",` + key + `}`, false},
		{get, `{"TableName":"ab",` + key + `}`, false}, {get, `{"TableName":"",` + key + `}`, false}, {get, `{` + key + `}`, false},
		{get, `{"TableName":"abc"}`, false}, {get, `{"TableName":"a b c",` + key + `}`, false},
		{get, `{"TableName":"café",` + key + `}`, false},
		{get, `{"TableName":"arn:aws:dynamodb:us-east-1:123456789012:table/t",` + key + `}`, false},
		{get, `{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":""}`, false},
		{get, `{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":"total"}`, false},
		{get, `{"TableName":"abc",` + key + `,"AttributesToGet":[]}`, false},
		{get, `{"TableName":"abc",` + key + `,"AttributesToGet":["a"]}`, false},
		{get, `{"TableName":"abc",` + key + `,"ProjectionExpression":"a","ExpressionAttributeNames":{"#a":"a"}}`, true},
		{get, `{"TableName":"abc",` + key + `,"ProjectionExpression":""}`, false},
		{put, `{"TableName":"bench",` + item + `}`, true},
		{put, `{"TableName":"bench",` + item + `,"ReturnConsumedCapacity":"TOTAL"}`, true},
		{put, `{"TableName":"bench","Item":{}}`, true},
		{put, `{"TableName":"bench"}`, false}, {put, `{` + item + `}`, false}, {put, `{"TableName":"b",` + item + `}`, false},
		{put, `{"TableName":"bench",` + item + `,"ReturnValues":"ALL_OLD"}`, false},
		{put, `{"TableName":"bench",` + item + `,"ReturnValues":"SOME"}`, false},
		{put, `{"TableName":"bench",` + item + `,"ConditionExpression":"attribute_not_exists(pk)"}`, false},
		{put, `{"TableName":"bench",` + item + `,"ConditionalOperator":"XOR"}`, false},
		{put, `{"TableName":"bench",` + item + `,"ReturnItemCollectionMetrics":"ALL"}`, false},
		{put, `{"TableName":"bench",` + item + `,"ReturnValuesOnConditionCheckFailure":"X"}`, false},
		{put, `{"TableName":"bench",` + item + `,"Expected":{"a":{"Exists":false}}}`, false},
		{put, `{"TableName":"bench",` + item + `,"ExpressionAttributeValues":{":a":{"S":"x"}}}`, false},
		{put, `{"TableName":"bench",` + item + `,"ExpressionAttributeNames":{"#a":"a"}}`, false},
		{put, `{"TableName":"bench","Item":{"pk":{"S":""}}}`, false},
		{del, `{"TableName":"bench",` + key + `}`, true},
		{del, `{"TableName":"bench",` + key + `,"ReturnConsumedCapacity":"NONE"}`, true},
		{del, `{"TableName":"bench"}`, false}, {del, `{"TableName":"bench",` + key + `,"ReturnValues":"ALL_OLD"}`, false},
		{del, `{"TableName":"bench",` + key + `,"ReturnConsumedCapacity":"SOME"}`, false},
	}
	vd := new(Validator)
	for _, tc := range cases {
		in := tc.target()
		if err := codec.Unmarshal([]byte(tc.body), in); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		fast := validFast(in, []byte(tc.body))
		walked := vd.walk(in, []byte(tc.body))
		if fast && walked != nil {
			t.Errorf("%T %s: validFast passes it, the walk says %v", in, tc.body, walked)
		}
		if fast != tc.fast {
			t.Errorf("%T %s: validFast = %v, want %v", in, tc.body, fast, tc.fast)
		}
		got := vd.ValidateBody(in, []byte(tc.body))
		if (got == nil) != (walked == nil) || (got != nil && got.Error() != walked.Error()) {
			t.Errorf("%T %s: ValidateBody = %v, the walk %v", in, tc.body, got, walked)
		}
	}
	if validFast(new(ddb.QueryInput), []byte(`{"TableName":"abc"}`)) {
		t.Error("validFast passed a Query")
	}
}
