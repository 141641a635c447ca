package validate

import (
	"errors"
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

// FuzzDecode checks that Decode+validate never panics and only ever fails
// with a SerializationException or ValidationException.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `[]`, `null`, `{"TableName":"abc",` + okKeys + `}`,
		`{"TableName":5}`, `{"Limit":"x"}`, `{"KeySchema":[{"KeyType":"SORT"},{}]}`,
		`{"ByName":{"a":{"KeyType":"HASH"}},"Throughput":{"ReadCapacityUnits":0}}`,
		`{"Names":["a","b","c"],"ClientToken":""}`, `{"TableName":"\ud800"}`, `{"Ratio":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	vd := new(Validator)
	f.Fuzz(func(t *testing.T, body []byte) {
		var in vIn
		err := decode(vd, body, &in)
		if err == nil {
			return
		}
		var te *ddb.Error
		if !errors.As(err, &te) || (te.Code != ddb.ValidationException && te.Code != ddb.SerializationException) {
			t.Fatalf("Decode(%q) = %#v, want nil, a ValidationException or a SerializationException", body, err)
		}
	})
}
