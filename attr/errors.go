package attr

import "errors"

// The kinds of failure, for errors.Is: every *Error wraps one of the
// validation kinds, every *SerializationError wraps ErrMalformed, and the
// storage decoders return the last three as they are.
var (
	ErrEmptyValue = errors.New("attr: attribute value has no type")
	ErrManyTypes  = errors.New("attr: attribute value has more than one type")
	ErrNullFalse  = errors.New("attr: null attribute value is not true")
	ErrNotNumber  = errors.New("attr: not a number")
	ErrPrecision  = errors.New("attr: number has more than 38 significant digits")
	ErrOverflow   = errors.New("attr: number magnitude too large")
	ErrUnderflow  = errors.New("attr: number magnitude too small")
	ErrEmptySet   = errors.New("attr: empty set")
	ErrDuplicates = errors.New("attr: set has duplicates")
	ErrNesting    = errors.New("attr: nested too deeply")
	ErrNameSize   = errors.New("attr: attribute name too large")

	ErrMalformed = errors.New("attr: malformed attribute value JSON")

	ErrCorrupt    = errors.New("attr: corrupt item encoding")
	ErrBadKey     = errors.New("attr: malformed key encoding")
	ErrNotKeyType = errors.New("attr: not a key type")
)

// Error is a validation failure in DynamoDB's exact words; the api layer
// answers it as a ValidationException carrying Msg as the message. Kind is
// one of the validation kinds above (errors.Is matches it), or nil.
type Error struct {
	Msg  string
	Kind error
	// Current, when not empty, is the message of the service's current
	// request layer (PutItem, UpdateItem, DeleteItem, GetItem, BatchGetItem,
	// Query) where it words the failure differently from Msg, the older
	// layer's (BatchWriteItem, the transactions, Scan): a duplicate set
	// member (paritysuite/dynamodb-conformance valueLayers, eu-west-2,
	// us-east-1, eu-west-1 and us-west-2, 2026-10-09).
	Current string
}

// CurrentMsg is the message of the service's current request layer: Current,
// or Msg where the two layers agree.
func (e *Error) CurrentMsg() string {
	if e.Current != "" {
		return e.Current
	}
	return e.Msg
}

// Error returns Msg unchanged, so that it can be sent to the client as is.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// invalid returns an *Error of kind with DynamoDB's message msg.
func invalid(kind error, msg string) *Error { return &Error{Msg: msg, Kind: kind} }

// OutOfRange is the error of a number too large in magnitude (overflow) or
// too small (not overflow) to store, for callers that judge the range
// themselves.
func OutOfRange(overflow bool) error {
	if overflow {
		return invalid(ErrOverflow, msgOverflow)
	}
	return invalid(ErrUnderflow, msgUnderflow)
}

// SerializationError is a request body that is not well-formed for its shape
// (a JSON type mismatch inside an AttributeValue, bad base64, broken JSON);
// the api layer answers it as a SerializationException carrying Msg.
type SerializationError struct{ Msg string }

// Error returns Msg unchanged.
func (e *SerializationError) Error() string { return e.Msg }

// Unwrap returns ErrMalformed, for errors.Is.
func (e *SerializationError) Unwrap() error { return ErrMalformed }

// MaxNameBytes is the longest attribute name DynamoDB stores, in UTF-8 bytes.
const MaxNameBytes = 65535

// DynamoDB's messages for invalid attribute values, word for word (including
// the double space in the empty-set messages, which DynamoDB sends).
const (
	msgEmptyValue = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	msgManyTypes  = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	msgNullFalse  = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	msgNotNumber  = "A value provided cannot be converted into a number"
	// msgUnconvertible, with ": " and the text, is the service's answer to
	// an N that is no number, or whose exponent is past a 64-bit integer
	// (paritysuite/dynamodb-conformance's numberExponent and valueLayers
	// captures, four regions, October 2026).
	msgUnconvertible    = "The parameter cannot be converted to a numeric value"
	msgPrecision        = "Attempting to store more than 38 significant digits in a Number"
	msgOverflow         = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgUnderflow        = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	msgEmptySS          = "One or more parameter values were invalid: An string set  may not be empty"
	msgEmptyNS          = "One or more parameter values were invalid: An number set  may not be empty"
	msgEmptyBS          = "One or more parameter values were invalid: Binary sets should not be empty"
	msgDuplicatesPrefix = "One or more parameter values were invalid: Input collection "
	msgDuplicatesSuffix = " contains duplicates."
	msgNesting          = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
	// MsgNameTooLarge is DynamoDB's answer to an attribute name, at any depth
	// of an item or in ExpressionAttributeNames, longer than MaxNameBytes.
	MsgNameTooLarge = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
)

// SerializationException messages. The first four are the words of
// DynamoDB's JSON deserialiser; the others (for cases whose exact text is not
// known) are worded in the same style.
const (
	msgStartStructure  = "Start of structure or map found where not expected"
	msgStartList       = "Start of list found where not expected"
	msgBase64Length    = "Base64 encoded length is expected a multiple of 4 bytes but found: "
	msgUnexpectedValue = "Unexpected value type in payload"
	msgBase64Invalid   = "Invalid Base64 character in encoded binary value"
	msgNullInSet       = "Null value found in a set where not expected"
	msgJSONEnd         = "Unexpected end-of-input in JSON payload"
	msgJSONSyntax      = "Malformed JSON payload at offset "
	msgJSONDepth       = "JSON payload is nested too deeply"
)
