// Package api is ddblocal's HTTP layer: the only package that knows HTTP,
// DynamoDB's JSON-1.0 wire protocol, the `__type` strings and status codes.
//
// NewHandler answers `POST /` with an X-Amz-Target header by dispatching to
// an operation table (map of Handler) directly, and routes everything else
// (DynamoDB's own `GET /` health text, ddblocal's `/_ddblocal/health`)
// through a chi router.
// Every response carries x-amzn-RequestId and x-amz-crc32; request bodies may
// be gzip or deflate encoded; responses are gzip-compressed when asked for.
//
// Handlers decode their input with Request.Decode, which reports JSON shape
// errors as SerializationException and `ddb` struct-tag constraint failures
// as ValidationException, both in Coral's words.
package api
