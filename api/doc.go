// Package api is ddblocal's DynamoDB wire layer: the only package that knows
// DynamoDB's JSON-1.0 protocol, the `__type` strings and status codes.
//
// NewHandler answers `POST /` with an X-Amz-Target header by dispatching to
// an operation table (map of Handler) directly, answers DynamoDB's own
// `GET /` health text, and mounts Config.Admin (package admin: everything
// under /_ddblocal) in its router. Every response carries x-amzn-RequestId
// and x-amz-crc32; request bodies may be gzip or deflate encoded; responses
// are gzip-compressed when asked for.
//
// Handlers decode their input with Request.Decode, which runs the decoder
// of api/internal/codec (a fast path with encoding/json as its twin) and
// the validator of api/internal/validate: JSON shape errors are
// SerializationException and `ddb` struct-tag constraint failures
// ValidationException, both in Coral's words. Responses are written by
// codec's Encoder.
package api
