package api

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
)

// valueKeyOf finds the ExpressionAttributeValues member of body (at its
// top level, or in a TransactItems action) whose value is refused with
// msg. Only a refused request gets here.
func valueKeyOf(body []byte, msg string) (string, bool) {
	type values struct {
		ExpressionAttributeValues map[string]json.RawMessage
	}
	var in struct {
		values
		TransactItems []map[string]values
	}
	if json.Unmarshal(body, &in) != nil {
		return "", false
	}
	all := []map[string]json.RawMessage{in.ExpressionAttributeValues}
	for _, action := range in.TransactItems {
		for _, name := range slices.Sorted(maps.Keys(action)) {
			all = append(all, action[name].ExpressionAttributeValues)
		}
	}
	for _, vs := range all {
		for _, k := range slices.Sorted(maps.Keys(vs)) {
			var v attr.Value
			var ae *attr.Error
			if err := v.UnmarshalJSON(vs[k]); errors.As(err, &ae) && ae.Msg == msg {
				return k, true
			}
		}
	}
	return "", false
}
