package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/auth"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// Wire type prefixes, as the real service sends them in `__type`.
const (
	prefixDynamo   = "com.amazonaws.dynamodb.v20120810#"
	prefixService  = "com.amazon.coral.service#"
	prefixValidate = "com.amazon.coral.validate#"
	prefixAvail    = "com.amazon.coral.availability#"
)

// Error codes that only the HTTP layer raises (the service's own are ddb.Code).
const (
	codeUnknownOperation ddb.Code = "UnknownOperationException"
	codeEntityTooLarge   ddb.Code = "RequestEntityTooLargeException"
)

// wireKind says how one error code is put on the wire.
type wireKind struct {
	prefix string
	status int
	// capital selects the "Message" member instead of "message": Coral's
	// serialization errors and TransactionCanceledException use it.
	capital bool
}

// wireKinds is THE table from error code to wire prefix and HTTP status.
// Codes not listed use prefixDynamo and 400. Every client error is a 400 so
// that SDKs retrying on 5xx never retry a bad request.
var wireKinds = map[ddb.Code]wireKind{
	ddb.ValidationException:                   {prefixValidate, http.StatusBadRequest, false},
	ddb.TransactionCanceledException:          {prefixDynamo, http.StatusBadRequest, true},
	ddb.InternalServerError:                   {prefixDynamo, http.StatusInternalServerError, false},
	ddb.ThrottlingException:                   {prefixAvail, http.StatusBadRequest, false},
	ddb.AccessDeniedException:                 {prefixService, http.StatusBadRequest, false},
	ddb.SerializationException:                {prefixService, http.StatusBadRequest, true},
	codeUnknownOperation:                      {prefixService, http.StatusBadRequest, false},
	ddb.Code(auth.MissingAuthenticationToken): {prefixService, http.StatusBadRequest, false},
	ddb.Code(auth.IncompleteSignature):        {prefixService, http.StatusBadRequest, false},
	ddb.Code(auth.UnrecognizedClient):         {prefixService, http.StatusBadRequest, false},
	ddb.Code(auth.InvalidSignature):           {prefixService, http.StatusBadRequest, false},
	codeEntityTooLarge:                        {prefixService, http.StatusRequestEntityTooLarge, false},
}

// kindOf returns the wire prefix and status of code c.
func kindOf(c ddb.Code) wireKind {
	if k, ok := wireKinds[c]; ok {
		return k
	}
	return wireKind{prefixDynamo, http.StatusBadRequest, false}
}

// internalMessage is all a client learns about an unexpected failure; the
// cause is logged with the request id instead.
const internalMessage = "Internal server error"

// unknownOutcomeMessage is InternalServerError's message member as
// DynamoDB's API model documents it ("The server encountered an internal
// error trying to fulfill the request."), for the one failure where
// ddblocal knows only that it cannot say whether the write applied (a
// cluster-mode commit whose answer etcd lost). No source gives the text
// DynamoDB sends on the wire.
const unknownOutcomeMessage = "The server encountered an internal error trying to fulfill the request."

// errorBody is the JSON error document. Exactly one of the two message
// members is set, per wireKind.capital.
type errorBody struct {
	Type                string                   `json:"__type"`
	LowerMessage        *string                  `json:"message,omitempty"`
	Message             *string                  `json:"Message,omitempty"`
	Item                attr.Item                `json:"Item,omitempty"`
	CancellationReasons []ddb.CancellationReason `json:"CancellationReasons,omitempty"`
	// ThrottlingReasons is ProvisionedThroughputExceededException's (and
	// RequestLimitExceeded's) member; ThrottlingException spells it
	// throttlingReasons, as DynamoDB's API model does.
	ThrottlingReasons      []ddb.ThrottlingReason `json:"ThrottlingReasons,omitempty"`
	LowerThrottlingReasons []ddb.ThrottlingReason `json:"throttlingReasons,omitempty"`
}

// errorResponse converts any error from decoding or a handler into its
// status and body. Errors that are not DynamoDB's are logged and become a
// 500 InternalServerError that does not leak their text.
func errorResponse(ctx context.Context, log *slog.Logger, requestID string, err error) (int, errorBody) {
	te := classify(err)
	if te == nil {
		level := slog.LevelError
		if errors.Is(err, context.Canceled) {
			// The client went away; nobody reads this answer.
			level = slog.LevelDebug
		}
		log.LogAttrs(ctx, level, "internal error",
			slog.String("requestId", requestID), slog.Any("error", err))
		te = &ddb.Error{Code: ddb.InternalServerError, Message: internalMessage}
		if errors.Is(err, store.ErrUnknownOutcome) {
			// What DynamoDB answers when it cannot say whether a write
			// applied: a 500, which SDKs retry (a retried conditional
			// write may then find its own effect, as with DynamoDB).
			te.Message = unknownOutcomeMessage
		}
	}
	k := kindOf(te.Code)
	body := errorBody{Type: k.prefix + string(te.Code), Item: te.Item, CancellationReasons: te.CancellationReasons}
	if te.Code == ddb.ThrottlingException {
		body.LowerThrottlingReasons = te.ThrottlingReasons
	} else {
		body.ThrottlingReasons = te.ThrottlingReasons
	}
	msg := te.Message
	switch {
	case msg == "":
		// Coral sends no message member for an error without one.
	case k.capital:
		body.Message = &msg
	default:
		body.LowerMessage = &msg
	}
	return k.status, body
}

// classify returns err as a DynamoDB error, or nil if it is none of the
// kinds DynamoDB reports (an internal failure).
func classify(err error) *ddb.Error {
	var te *ddb.Error
	if errors.As(err, &te) {
		return te
	}
	var ve *attr.Error
	if errors.As(err, &ve) {
		return &ddb.Error{Code: ddb.ValidationException, Message: ve.Msg}
	}
	var ae *auth.Error
	if errors.As(err, &ae) {
		return &ddb.Error{Code: ddb.Code(ae.Code), Message: ae.Message}
	}
	var se *attr.SerializationError
	if errors.As(err, &se) {
		return &ddb.Error{Code: ddb.SerializationException, Message: se.Msg}
	}
	if errors.Is(err, store.ErrTxnTooLarge) {
		// DynamoDB has no such limit (it is the etcd cluster's, in cluster
		// mode), so no message of its own: a 400 naming the limit, so that
		// SDKs do not retry what can never fit.
		msg := err.Error()[strings.Index(err.Error(), store.ErrTxnTooLarge.Error()):]
		msg = strings.TrimPrefix(msg, "store: ")
		return &ddb.Error{Code: ddb.ValidationException, Message: strings.ToUpper(msg[:1]) + msg[1:]}
	}
	return nil
}

// apiErr returns a *ddb.Error with one of the HTTP layer's own codes.
func apiErr(c ddb.Code, msg string) *ddb.Error {
	return &ddb.Error{Code: c, Message: msg}
}

// WriteError sends err as DynamoDB's JSON error document, as the API's own
// operations do (the request id from r's context, gzip and x-amz-crc32 as
// asked), logging an internal error to log. ddblocal's own routes (package
// admin) use it for errors in DynamoDB's words.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	s := &server{log: log}
	x := &exchange{sw: statusWriter{ResponseWriter: w}, ctx: reqCtx{Context: r.Context(), id: RequestID(r.Context())}}
	s.writeError(x, r, err)
}
