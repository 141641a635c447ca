package ddb

import (
	"fmt"

	"github.com/ddblocal/ddblocal/attr"
)

// Code names a DynamoDB error, exactly as the part of the wire `__type` after '#'.
type Code string

// The DynamoDB errors the service returns. api maps each one to its wire type
// prefix and HTTP status.
const (
	ValidationException                      Code = "ValidationException"
	ResourceNotFoundException                Code = "ResourceNotFoundException"
	ResourceInUseException                   Code = "ResourceInUseException"
	ConditionalCheckFailedException          Code = "ConditionalCheckFailedException"
	TransactionCanceledException             Code = "TransactionCanceledException"
	TransactionConflictException             Code = "TransactionConflictException"
	TransactionInProgressException           Code = "TransactionInProgressException"
	IdempotentParameterMismatchException     Code = "IdempotentParameterMismatchException"
	ItemCollectionSizeLimitExceededException Code = "ItemCollectionSizeLimitExceededException"
	ProvisionedThroughputExceededException   Code = "ProvisionedThroughputExceededException"
	LimitExceededException                   Code = "LimitExceededException"
	RequestLimitExceeded                     Code = "RequestLimitExceeded"
	ThrottlingException                      Code = "ThrottlingException"
	InternalServerError                      Code = "InternalServerError"
	AccessDeniedException                    Code = "AccessDeniedException"
	TableNotFoundException                   Code = "TableNotFoundException"
	TableAlreadyExistsException              Code = "TableAlreadyExistsException"
	TableInUseException                      Code = "TableInUseException"
	BackupNotFoundException                  Code = "BackupNotFoundException"
	BackupInUseException                     Code = "BackupInUseException"
	ContinuousBackupsUnavailableException    Code = "ContinuousBackupsUnavailableException"
	PointInTimeRecoveryUnavailableException  Code = "PointInTimeRecoveryUnavailableException"
	InvalidRestoreTimeException              Code = "InvalidRestoreTimeException"
	PolicyNotFoundException                  Code = "PolicyNotFoundException"
	// SerializationException is Coral's: a body that is not JSON, or a
	// member of the wrong JSON type.
	SerializationException           Code = "SerializationException"
	ReplicatedWriteConflictException Code = "ReplicatedWriteConflictException"
	GlobalTableNotFoundException     Code = "GlobalTableNotFoundException"
	// The errors of global tables version 2017.11.29 (legacy).
	GlobalTableAlreadyExistsException Code = "GlobalTableAlreadyExistsException"
	ReplicaAlreadyExistsException     Code = "ReplicaAlreadyExistsException"
	ReplicaNotFoundException          Code = "ReplicaNotFoundException"
)

// Error is a DynamoDB error in DynamoDB's words. Item is set on a
// ConditionalCheckFailedException when ReturnValuesOnConditionCheckFailure is
// ALL_OLD; CancellationReasons on a TransactionCanceledException.
type Error struct {
	Code                Code
	Message             string
	Item                attr.Item
	CancellationReasons []CancellationReason
	// ThrottlingReasons says why a throttling exception was raised and on
	// which table or index.
	ThrottlingReasons []ThrottlingReason
	// KeySchema marks a key that does not fit its table's key schema
	// (missing or of the wrong type): the transactions report it as the
	// action's ValidationError cancellation reason, as DynamoDB checks keys
	// against the schema while a transaction runs. It is not a wire member.
	KeySchema bool
}

// Error returns "Code: Message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Errorf returns an *Error with code c and a formatted message.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// CancellationReason is one entry of a TransactionCanceledException, in action order.
type CancellationReason struct {
	Code    string    `json:"Code,omitempty"`
	Message string    `json:"Message,omitempty"`
	Item    attr.Item `json:"Item,omitempty"`
}

// NotFound is ResourceNotFoundException in DynamoDB's words: "Requested
// resource not found", then ": " and the detail format makes with args
// when format is not empty (such as "Table: %s not found", or "ResourceArn:
// %s not found" for the tag operations). It is the one place that message is
// written. Without a detail, it is what an item operation returns for a
// missing table, or when the table it resolved is gone by the time its
// store transaction runs.
func NotFound(format string, args ...any) *Error {
	if format == "" {
		return &Error{Code: ResourceNotFoundException, Message: "Requested resource not found"}
	}
	return &Error{Code: ResourceNotFoundException, Message: "Requested resource not found: " + fmt.Sprintf(format, args...)}
}
