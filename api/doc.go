// Package api is ddblocal's HTTP layer: the only package that knows HTTP,
// DynamoDB's JSON-1.0 wire protocol, the `__type` strings and status codes.
//
// NewHandler builds a chi router that answers `POST /` with an X-Amz-Target
// header by dispatching to an operation table (map of Handler), plus
// DynamoDB's own `GET /` health text and ddblocal's `/_ddblocal/health`.
// Every response carries x-amzn-RequestId and x-amz-crc32; request bodies may
// be gzip or deflate encoded; responses are gzip-compressed when asked for.
//
// Handlers decode their input with Request.Decode, which reports JSON shape
// errors as SerializationException and `ddb` struct-tag constraint failures
// as ValidationException, both in Coral's words.
package api
