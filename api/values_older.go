package api

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// olderValues answers a value error of h's request (Scan,
// TransactWriteItems) that sits in an ExpressionAttributeValues member as
// the service's older request layer does: bare, inside "ExpressionAttributeValues
// contains invalid value: ... for key :k" (paritysuite/dynamodb-conformance
// valueLayers, us-east-1, eu-west-1 and us-west-2, 2026-10-09: a malformed
// number and a duplicate set member in a TransactWriteItems action's values;
// eu-west-2 answers those in the current layer's words, bare and
// unwrapped, as PutItem, UpdateItem, DeleteItem and Query do everywhere).
// A value error elsewhere (an item, a key) is left as it is.
func olderValues(h Handler) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		out, err := h(ctx, r)
		var ae *attr.Error
		if err == nil || !errors.As(err, &ae) || errors.Is(err, attr.ErrNesting) {
			return out, err
		}
		if k, ok := valueKeyOf(r.Body, ae.Msg); ok {
			return nil, ddb.Errorf(ddb.ValidationException, "ExpressionAttributeValues contains invalid value: %s for key %s", ae.Msg, k)
		}
		return out, err
	}
}

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
