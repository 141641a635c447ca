// Package ddb is DynamoDB's API model, what aws-sdk-go-v2's
// service/dynamodb/types is to the SDK: the request and response shapes of
// every operation ddblocal serves, with the `ddb` struct tags the api
// validator reads (required, len=, enum=, tablename), the error codes and
// Error (with NotFound, the one constructor of "Requested resource not
// found"), transaction cancellation reasons and throttling reasons.
//
// It holds no behaviour beyond building those values: the service (table),
// PartiQL (partiql) and the wire (api) all speak it, so that none of them
// needs another's package for its vocabulary.
package ddb
