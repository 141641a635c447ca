package ddb

import "github.com/ddblocal/ddblocal/attr"

// The forms of DynamoDB's refusal of a value nested past its limit that are
// not the value model's own (attr.MsgNesting, which PutItem, UpdateItem and
// DeleteItem send inside the "1 validation error detected: " envelope), as
// paritysuite/dynamodb-conformance captured them from the service (its
// nestingDepth and deepRequests captures, us-east-1 and eu-west-2,
// October 2026).

// NestingError is the bare refusal: a transaction's item or key, and a
// single-item operation's item or key nested past about 62 levels.
func NestingError() *Error {
	return &Error{Code: ValidationException, Message: attr.MsgNesting}
}

// NestedValueError refuses ExpressionAttributeValues member key, nested
// past the limit: a transaction's value nested 33 levels or more, and a
// single-item operation's nested past about 62 levels.
func NestedValueError(key string) *Error {
	return Errorf(ValidationException, "ExpressionAttributeValues contains invalid value: %s for key %s", attr.MsgNesting, key)
}
