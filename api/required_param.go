package api

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/ddblocal/ddblocal/ddb"
)

// msgTableNameRequired is DynamoDB's older wording of a missing TableName,
// which its table operations still give where the data operations say
// "1 validation error detected: Value null at 'tableName' ...".
const msgTableNameRequired = "The parameter 'TableName' is required but was not present in the request"

// tableNameRequired wraps the handler of a table operation that DynamoDB
// answers without a TableName (absent or null) in the older words, alone
// and before any other check of the request: CreateTable (a Java suite's
// testNullTableName run against the service), UpdateTable (Electric Imp's
// AWSDynamoDB library tests, run against the service: testFailUpdateTable),
// DeleteTable and DescribeTable (architect/dynalite's suite, written
// against the service). A body that is not a JSON object is left to the
// decoder's refusal.
func tableNameRequired(h Handler) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		body := bytes.TrimSpace(r.Body)
		var top map[string]json.RawMessage
		if len(body) == 0 {
			top = map[string]json.RawMessage{}
		} else if err := json.Unmarshal(body, &top); err != nil {
			top = nil
		}
		if top != nil {
			if v, ok := top["TableName"]; !ok || string(v) == "null" {
				return nil, ddb.Errorf(ddb.ValidationException, msgTableNameRequired)
			}
		}
		return h(ctx, r)
	}
}
