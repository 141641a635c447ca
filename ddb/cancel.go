package ddb

import "strings"

// msgTxCancelled starts every TransactionCanceledException's message.
const msgTxCancelled = "Transaction cancelled, please refer cancellation reasons for specific reasons"

// ReasonCode is the code a CancellationReason carries for an action that
// failed with c (DynamoDB drops the "Exception" suffix and says
// ThrottlingError for throttling), or "" when c is not an action's own.
func ReasonCode(c Code) string {
	switch c {
	case ConditionalCheckFailedException:
		return "ConditionalCheckFailed"
	case ValidationException:
		return "ValidationError"
	case ItemCollectionSizeLimitExceededException:
		return "ItemCollectionSizeLimitExceeded"
	case TransactionConflictException:
		return "TransactionConflict"
	case ProvisionedThroughputExceededException:
		return "ProvisionedThroughputExceeded"
	case ThrottlingException:
		return "ThrottlingError"
	}
	return ""
}

// Cancelled returns the TransactionCanceledException DynamoDB sends for
// reasons, one per action in request order: its message lists every code,
// "None" for the actions that did not fail.
func Cancelled(reasons []CancellationReason) *Error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r.Code
	}
	return &Error{Code: TransactionCanceledException,
		Message:             msgTxCancelled + " [" + strings.Join(codes, ", ") + "]",
		CancellationReasons: reasons}
}
