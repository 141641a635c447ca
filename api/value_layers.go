package api

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// The service words a value error (an *attr.Error: a number that cannot be
// stored, a set that is empty or holds a member twice, a value nested past
// the limit) in the words of the request layer that reads the operation.
// An operation's dispatch entry says which (operations.go): enveloped,
// currentLayer or olderValues, each reworded with its own words; the
// others send the error as attr words it.

// reworded answers a value error of h's request with a ValidationException
// saying words(r, err, ae), or leaves the error as it is where words says
// "".
func reworded(h Handler, words func(r *Request, err error, ae *attr.Error) string) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		out, err := h(ctx, r)
		if err == nil {
			return out, nil
		}
		// AsType, unlike As, does not move a target to the heap on
		// every request.
		ae, ok := errors.AsType[*attr.Error](err)
		if !ok {
			return out, err
		}
		if msg := words(r, err, ae); msg != "" {
			return nil, ddb.Errorf(ddb.ValidationException, "%s", msg)
		}
		return out, err
	}
}

// enveloped sends a value nested past DynamoDB's limit, a number that
// cannot be stored (not a number, out of range, too many digits), or a set
// that is empty or holds a member twice, in h's request inside the "1
// validation error detected: " envelope, as DynamoDB's PutItem, UpdateItem
// and DeleteItem do wherever the value sits (paritysuite/dynamodb-conformance
// valueLayers, four regions, 2026-10-09; its eu-west-2 capture of 2026-09-20
// for the empty sets); the other operations send the bare message.
func enveloped(h Handler) Handler {
	return reworded(h, func(_ *Request, err error, ae *attr.Error) string {
		if !envelopedKind(err) {
			return ""
		}
		return "1 validation error detected: " + ae.CurrentMsg()
	})
}

// envelopedKind reports whether err is a value error enveloped sends inside
// the envelope.
func envelopedKind(err error) bool {
	for _, k := range []error{attr.ErrNesting, attr.ErrNotNumber, attr.ErrOverflow, attr.ErrUnderflow, attr.ErrPrecision, attr.ErrEmptySet, attr.ErrDuplicates} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// currentLayer answers a value error of h's request in the words of the
// service's current request layer, bare, as GetItem, BatchGetItem and Query
// do (attr.Error's Current: a duplicate set member; valueLayers, four
// regions, 2026-10-09).
func currentLayer(h Handler) Handler {
	return reworded(h, func(_ *Request, _ error, ae *attr.Error) string {
		return ae.Current
	})
}

// olderValues answers a value error of h's request (Scan,
// TransactWriteItems) that sits in an ExpressionAttributeValues member as
// the service's older request layer does: bare, inside "ExpressionAttributeValues
// contains invalid value: ... for key :k" (paritysuite/dynamodb-conformance
// valueLayers, us-east-1, eu-west-1 and us-west-2, 2026-10-09: a malformed
// number and a duplicate set member in a TransactWriteItems action's values;
// eu-west-2 answers those in the current layer's words, bare and
// unwrapped, as PutItem, UpdateItem, DeleteItem and Query do everywhere).
// A value error elsewhere (an item, a key; values_older.go's valueKeyOf
// finds none) or a value nested too deeply is left as it is.
func olderValues(h Handler) Handler {
	return reworded(h, func(r *Request, err error, ae *attr.Error) string {
		if errors.Is(err, attr.ErrNesting) {
			return ""
		}
		if k, ok := valueKeyOf(r.Body, ae.Msg); ok {
			return "ExpressionAttributeValues contains invalid value: " + ae.Msg + " for key " + k
		}
		return ""
	})
}
