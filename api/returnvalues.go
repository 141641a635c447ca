package api

import (
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// msgUpdateReturnValues is DynamoDB's newer validation's refusal of an
// UpdateItem ReturnValues outside its enum: with an enum set of its own
// (UPDATE_NEW as the service spells it), naming no member, and alone: an
// unknown ReturnConsumedCapacity beside it is not reported
// (paritysuite/dynamodb-conformance's registry row
// update-item-validation-error-aggregation, ReturnValues and
// ReturnConsumedCapacity both 'INVALID': 31 of 33 Regions, us-east-1 and
// eu-west-2 among them, its sweep follow-up capture of 2026-10-07; the two
// others still join both in the older per-value form).
const msgUpdateReturnValues = "1 validation error detected: Failed to satisfy constraint: " +
	"Member must satisfy enum value set: [ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATE_NEW, NONE]"

// newerReturnValues turns err, the validator's refusal of v, into
// msgUpdateReturnValues when v is an UpdateItem whose ReturnValues is
// outside its enum. A request missing a required member is read by the
// service's older validation, which joins every member's refusal, in the
// per-value form (the same suite's validation-ordering/updateItem capture:
// four errors, returnValues's among them, beside a missing Key), as the
// validator does; an invalid table name is reported before it (as PutItem's
// is: registry row put-item-validation-error-aggregation).
func newerReturnValues(v any, err error) error {
	in, ok := v.(*ddb.UpdateItemInput)
	if !ok {
		return err
	}
	switch in.ReturnValues {
	case "", "ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW":
		return err
	}
	if msg := err.Error(); strings.Contains(msg, "Member must not be null") || strings.Contains(msg, "at 'tableName'") {
		return err
	}
	return ddb.Errorf(ddb.ValidationException, "%s", msgUpdateReturnValues)
}
