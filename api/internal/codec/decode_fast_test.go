package codec

import (
	"reflect"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// decodeBodies covers what SDKs send and what they never do (case
// variants, escapes, nulls, duplicates, unknown members, bad JSON).
var decodeBodies = []string{
	``, `{}`, `null`, `[]`, `{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"N":"1.50"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a\u00e9\n"},"v":{"M":{"x":{"L":[{"NULL":true},{"BS":["AQ=="]}]}}}},"ConditionExpression":"attribute_not_exists(pk)"}`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"x"}},"Limit":100,"ScanIndexForward":false,"ConsistentRead":true}`,
	`{"TableName":"t","FilterExpression":"#a < :v","ExpressionAttributeNames":{"#a":"a"},"ExpressionAttributeValues":{":v":{"N":"5"}},"ExclusiveStartKey":{"pk":{"S":"k"}},"Segment":0,"TotalSegments":4}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]}}`,
	`{"RequestItems":{"t":{"Keys":[{"pk":{"S":"a"}}],"ProjectionExpression":"pk"}}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"b":{"B":"AQ=="},"m":{"M":{"x":{"N":"1"},"y":{"SS":["a"]}}}}}},{"PutRequest":{"Item":{"pk":{"S":"b"},"n":{"N":"1e3"},"l":{"L":[{"BOOL":true}]}}}}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":null}},{"PutRequest":{"Item":{}}},{"PutRequest":{}}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"pk":{"S":"b"},"z":{"S":"c"}}}}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"N":"x"}}}}]}}`, `{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}} }}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}x}}]}}`, `{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}`,
	`{"tablename":"t"}`, `{"TableName":"t","TableName":"u"}`, `{"TableName":"t\u0041"}`, `{"TableName":null}`,
	`{"TableName":"t","Key":null}`, `{"TableName":"t","Unknown":[1,2,{"a":null}]}`, `{"TableName":"t",}`,
	`{"TableName":"t"} x`, `{"TableName":"t","Limit":1.5}`, `{"TableName":"t","Limit":1e2}`, `{"TableName":"t","Limit":01}`,
	`{"TableName":"t","Limit":99999999999}`, `{"TableName":"t","Limit":"1"}`, `{"TableName":"t","ConsistentRead":"true"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a","N":"1"}}}`, `{"TableName":"t","Key":{"pk":{"N":"x"}}}`, `{"TableName":"t","Key":{"pk":{}}}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"Limit":"x"}`, `{"TableName":"t","Key":{"pk":{"S":"\x01"}}}`,
	`{"TableName":"t","ExpressionAttributeValues":{":a":null}}`, `{"TableName":"t","AttributesToGet":["a","b"]}`,
	`{"TableName":"t","AttributesToGet":null,"ScanIndexForward":null}`, "{\"TableName\":\"caf\xc3\xa9\"}",
	`{"TableName":"t","Key":{"pk":{"S":"a"}}`, `{"TableName":"t","Key":{"pk":{"S":"a\q"}}}`,
}

// decodeTargets are the request types decoded most often.
var decodeTargets = []func() any{
	func() any { return new(ddb.GetItemInput) },
	func() any { return new(ddb.PutItemInput) },
	func() any { return new(ddb.QueryInput) },
	func() any { return new(ddb.ScanInput) },
	func() any { return new(ddb.BatchWriteItemInput) },
	func() any { return new(ddb.BatchGetItemInput) },
	func() any { return new(ddb.UpdateItemInput) },
}

// checkSameDecode decodes body into a fresh target by the fast path and by
// encoding/json alone and fails unless value and error agree.
func checkSameDecode(t *testing.T, fd *Decoder, body []byte, newTarget func() any) {
	t.Helper()
	got, want := newTarget(), newTarget()
	gotErr := fd.Decode(body, got)
	wantErr := Unmarshal(body, want)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%T from %q: got error %v, want %v", got, body, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%T from %q:\ngot  %+v\nwant %+v", got, body, got, want)
	}
}

func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	var fd Decoder
	for _, body := range decodeBodies {
		for _, target := range decodeTargets {
			checkSameDecode(t, &fd, []byte(body), target)
		}
	}
}

func TestFastDecodeTakesFastPath(t *testing.T) {
	var fd Decoder
	for _, tc := range []struct {
		body   string
		target any
		want   bool
	}{
		{`{"TableName":"t","Key":{"pk":{"S":"a"}}}`, new(ddb.GetItemInput), true},
		{`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"N":"1"}}}`, new(ddb.PutItemInput), true},
		{`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}}]}}`, new(ddb.BatchWriteItemInput), true},
		{`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"},"b":{"B":"AQ=="}}}}]}}`, new(ddb.BatchWriteItemInput), true},
		{`{"tablename":"t"}`, new(ddb.GetItemInput), false},
		{`{"TableName":"t\u0041"}`, new(ddb.GetItemInput), false},
	} {
		if got := fd.decode([]byte(tc.body), tc.target); got != tc.want {
			t.Errorf("decode(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

// FuzzFastDecode: the fast path never changes what a body decodes to.
func FuzzFastDecode(f *testing.F) {
	for _, b := range decodeBodies {
		f.Add([]byte(b), uint8(0))
	}
	var fd Decoder
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		checkSameDecode(t, &fd, body, decodeTargets[int(which)%len(decodeTargets)])
	})
}

// benchPutBody is a PutItem of a ~250-byte item.
const benchPutBody = `{"TableName":"bench","Item":{"pk":{"S":"p00042"},"sk":{"S":"s00017"},` +
	`"v":{"S":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},` +
	`"n":{"N":"12345"}},"ReturnConsumedCapacity":"TOTAL"}`

func BenchmarkDecodePutItem(b *testing.B) {
	body := []byte(benchPutBody)
	b.Run("fast", func(b *testing.B) {
		var fd Decoder
		b.ReportAllocs()
		for b.Loop() {
			var in ddb.PutItemInput
			if !fd.decode(body, &in) {
				b.Fatal("fast path refused")
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in ddb.PutItemInput
			if err := Unmarshal(body, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDecodeBatchWrite25(b *testing.B) {
	body := []byte(`{"RequestItems":{"bench":[`)
	for i := range 25 {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"PutRequest":{"Item":{"pk":{"S":"p1"},"sk":{"S":"s`...)
		body = append(body, byte('a'+i))
		body = append(body, `"},"v":{"S":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}}}`...)
	}
	body = append(body, "]}}"...)
	b.Run("fast", func(b *testing.B) {
		var fd Decoder
		b.ReportAllocs()
		for b.Loop() {
			var in ddb.BatchWriteItemInput
			if !fd.decode(body, &in) {
				b.Fatal("fast path refused")
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in ddb.BatchWriteItemInput
			if err := Unmarshal(body, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
