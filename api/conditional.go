package api

import (
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// conditionalRequest is a request with the legacy ConditionalOperator:
// PutItem, UpdateItem, DeleteItem, Query and Scan.
type conditionalRequest interface{ ConditionalOperatorSent() *string }

// msgConditionalOperator is DynamoDB's newer validation's refusal of a
// ConditionalOperator other than AND and OR: bare, with an enum set of its
// own, and alone, ahead of every other member's constraint
// (paritysuite/dynamodb-conformance validation-ordering/query: XOR beside
// an unknown Select, us-east-1 and eu-west-2, 2026-10-09; its deepRequests
// notes record the same form for PutItem and UpdateItem).
const msgConditionalOperator = "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]"

// newerConditionalOperator turns err, the validator's refusal of v, into
// msgConditionalOperator when v's ConditionalOperator is outside its enum.
// A request missing a required member is read by the service's older
// validation, which joins every member's refusal, ConditionalOperator's as
// "Value 'XOR' at 'conditionalOperator' ... [OR, AND]" among them (the same
// suite's validation-ordering/updateItem capture), as the validator does.
func newerConditionalOperator(v any, err error) error {
	r, ok := v.(conditionalRequest)
	if !ok {
		return err
	}
	op := r.ConditionalOperatorSent()
	if op == nil || *op == "AND" || *op == "OR" || strings.Contains(err.Error(), "Member must not be null") {
		return err
	}
	return ddb.Errorf(ddb.ValidationException, msgConditionalOperator)
}
