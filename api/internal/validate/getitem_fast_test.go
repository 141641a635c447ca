package validate

import (
	"strings"
	"testing"

	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/ddb"
)

// TestValidGetItemMatchesWalk holds validGetItem, GetItem's fast check, to
// the reflective walk it skips: whenever it passes a request, the walk
// passes it too; it passes the requests the SDKs send; and ValidateBody
// answers every request as the walk does.
func TestValidGetItemMatchesWalk(t *testing.T) {
	key := `"Key":{"pk":{"S":"a"}}`
	long := strings.Repeat("a", 255)
	cases := []struct {
		body string
		fast bool // validGetItem must pass it
	}{
		{`{"TableName":"bench",` + key + `}`, true},
		{`{"TableName":"a-b_c.D9",` + key + `,"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, true},
		{`{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":"INDEXES"}`, true},
		{`{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":"NONE"}`, true},
		{`{"TableName":"abc","Key":{}}`, true},
		{`{"TableName":"` + long + `",` + key + `}`, true},
		{`{"TableName":"abc","Key":{"pk":{"S":""}}}`, false}, // holds "": left to the walk, which passes it
		{`{"TableName":"` + long + `a",` + key + `}`, false},
		{`{"TableName":"ab",` + key + `}`, false}, {`{"TableName":"",` + key + `}`, false}, {`{` + key + `}`, false},
		{`{"TableName":"abc"}`, false}, {`{"TableName":"a b c",` + key + `}`, false}, {`{"TableName":"café",` + key + `}`, false},
		{`{"TableName":"arn:aws:dynamodb:us-east-1:123456789012:table/t",` + key + `}`, false},
		{`{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":""}`, false},
		{`{"TableName":"abc",` + key + `,"ReturnConsumedCapacity":"total"}`, false},
		{`{"TableName":"abc",` + key + `,"AttributesToGet":[]}`, false},
		{`{"TableName":"abc",` + key + `,"AttributesToGet":["a"]}`, false},
		{`{"TableName":"abc",` + key + `,"ProjectionExpression":"a","ExpressionAttributeNames":{"#a":"a"}}`, true},
		{`{"TableName":"abc",` + key + `,"ProjectionExpression":""}`, false},
	}
	vd := new(Validator)
	for _, tc := range cases {
		var in ddb.GetItemInput
		if err := codec.Unmarshal([]byte(tc.body), &in); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		fast := validGetItem(&in, []byte(tc.body))
		walked := vd.walk(&in, []byte(tc.body))
		if fast && walked != nil {
			t.Errorf("%s: validGetItem passes it, the walk says %v", tc.body, walked)
		}
		if fast != tc.fast {
			t.Errorf("%s: validGetItem = %v, want %v", tc.body, fast, tc.fast)
		}
		got := vd.ValidateBody(&in, []byte(tc.body))
		if (got == nil) != (walked == nil) || (got != nil && got.Error() != walked.Error()) {
			t.Errorf("%s: ValidateBody = %v, the walk %v", tc.body, got, walked)
		}
	}
}
