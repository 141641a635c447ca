package api

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// The refusals of a TableName sent as "" (present, but empty), which the
// validator cannot tell from one not sent (it sees the zero string and says
// "Value null ...", as the service does for a missing name).
const (
	msgNullTableName = "Value null at 'tableName' failed to satisfy constraint: Member must not be null"
	// msgEmptyTableName is the service's newer refusal: alone, ahead of
	// every other member's constraint (PutItem with an empty name and an
	// invalid ReturnValues, paritysuite/dynamodb-conformance's sweep
	// follow-up capture of 2026-10-07, 31 of 33 Regions, us-east-1 and
	// eu-west-2 among them; UpdateItem's validation-ordering test).
	msgEmptyTableName = "1 validation error detected: Value at 'TableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
	// msgEmptyTableNameOlder is the older per-value form, joined with the
	// other members' refusals, which the service gives when another
	// required member is missing too (UpdateItem without a Key, the same
	// suite's validation-ordering/updateItem, eu-west-2 and us-east-1,
	// 2026-10-09).
	msgEmptyTableNameOlder = "Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
)

// emptyTableName answers h's request (PutItem, UpdateItem, DeleteItem)
// whose TableName was sent as "" in the service's words for an empty name
// rather than a missing one.
func emptyTableName(h Handler) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		out, err := h(ctx, r)
		if err == nil {
			return out, nil
		}
		de, ok := errors.AsType[*ddb.Error](err)
		if !ok || !strings.Contains(de.Message, msgNullTableName) || !sentEmptyTableName(r.Body) {
			return out, err
		}
		if strings.Count(de.Message, "Member must not be null") > 1 {
			return nil, ddb.Errorf(ddb.ValidationException, "%s", strings.Replace(de.Message, msgNullTableName, msgEmptyTableNameOlder, 1))
		}
		return nil, ddb.Errorf(ddb.ValidationException, "%s", msgEmptyTableName)
	}
}

// sentEmptyTableName reports whether body, a JSON object, has a TableName
// member holding "". Only a refused request gets here.
func sentEmptyTableName(body []byte) bool {
	var in struct{ TableName *string }
	return json.Unmarshal(body, &in) == nil && in.TableName != nil && *in.TableName == ""
}
