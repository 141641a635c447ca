package ddb

import (
	"strings"

	"github.com/ddblocal/ddblocal/throttle"
)

// ThrottlingReason is one entry of a throttling exception's
// ThrottlingReasons: a reason such as TableWriteKeyRangeThroughputExceeded
// and the table's or index's ARN.
type ThrottlingReason = throttle.Reason

// DynamoDB's messages for throttled requests.
const (
	msgProvisionedTable = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	msgProvisionedIndex = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API"
	msgOnDemandTable    = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html."
	msgOnDemandIndex    = "Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly."
	msgMaxOnDemand      = "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
)

// ThrottledReason is the cancellation reason of a transaction action (or
// the error of a batched statement) throttled on a provisioned table or an
// on-demand one; fault injection fails members with the same words.
func ThrottledReason(provisioned bool) CancellationReason {
	if provisioned {
		return CancellationReason{Code: "ProvisionedThroughputExceeded", Message: msgProvisionedTable}
	}
	return CancellationReason{Code: "ThrottlingError", Message: msgOnDemandTable}
}

// Throttled is the exception a request throttled for reasons gets:
// ProvisionedThroughputExceededException on a provisioned table,
// ThrottlingException on an on-demand one, in the index's words when only
// indexes were throttled.
func Throttled(provisioned bool, reasons []ThrottlingReason) *Error {
	index, max := true, false
	for _, r := range reasons {
		index = index && strings.HasPrefix(r.Reason, "Index")
		max = max || strings.HasSuffix(r.Reason, "MaxOnDemandThroughputExceeded")
	}
	e := &Error{Code: ThrottlingException, ThrottlingReasons: reasons}
	switch {
	case provisioned && index:
		e.Code, e.Message = ProvisionedThroughputExceededException, msgProvisionedIndex
	case provisioned:
		e.Code, e.Message = ProvisionedThroughputExceededException, msgProvisionedTable
	case max:
		e.Message = msgMaxOnDemand
	case index:
		e.Message = msgOnDemandIndex
	default:
		e.Message = msgOnDemandTable
	}
	return e
}
