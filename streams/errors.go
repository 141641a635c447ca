package streams

import "fmt"

// Error is a DynamoDB Streams error in DynamoDB's words; Code is the wire
// `__type` after '#'.
type Error struct {
	Code    string
	Message string
}

// Error returns "Code: Message".
func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Messages. TrimmedDataAccessException's is the API reference's; the
// expired-iterator text follows the Kinesis family's wording with DynamoDB
// Streams' 15 minutes.
const (
	msgTrimmed = "The operation attempted to read past the oldest stream record in a shard."
	timeFormat = "Mon Jan 02 15:04:05 MST 2006"
)

func trimmed() *Error { return errorf("TrimmedDataAccessException", msgTrimmed) }

func invalid(format string, args ...any) *Error {
	return errorf("ValidationException", format, args...)
}

func notFound(format string, args ...any) *Error {
	return errorf("ResourceNotFoundException", format, args...)
}
