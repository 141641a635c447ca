// Package auth verifies AWS Signature Version 4 exactly as DynamoDB does,
// maps access keys to accounts, and answers in DynamoDB's words when a
// request is not signed, signed with an unknown key, signed wrongly, or
// signed too long ago or too far ahead.
//
// ParseAuthorization reads the Authorization header (and is all a server
// without --credentials uses, for the region); a Verifier checks the
// signature of a whole request against its credentials. Errors are *Error
// values whose Code is the wire error name; package api puts them on the
// wire. auth knows HTTP requests, not tables.
package auth
