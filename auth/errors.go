package auth

// Code is the name of a DynamoDB error raised while authenticating.
type Code string

// The errors authentication raises; every one is an HTTP 400 from Coral,
// DynamoDB's front end (`com.amazon.coral.service#<Code>`).
const (
	// MissingAuthenticationToken: the request carries no signature at all.
	MissingAuthenticationToken Code = "MissingAuthenticationTokenException"
	// IncompleteSignature: the Authorization header or the date is malformed.
	IncompleteSignature Code = "IncompleteSignatureException"
	// UnrecognizedClient: the access key or the session token is unknown.
	UnrecognizedClient Code = "UnrecognizedClientException"
	// InvalidSignature: the signature, its scope or its time is wrong.
	InvalidSignature Code = "InvalidSignatureException"
)

// Error is an authentication failure in DynamoDB's words.
type Error struct {
	Code    Code
	Message string
}

// Error returns "Code: Message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

func errorf(c Code, msg string) *Error { return &Error{Code: c, Message: msg} }

// Messages DynamoDB sends.
const (
	msgMissingAuth     = "Request is missing Authentication Token"
	msgInvalidToken    = "The security token included in the request is invalid."
	msgNoDate          = "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."
	msgSignatureDiffer = "The request signature we calculated does not match the signature you provided. " +
		"Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)
