package api

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// enveloped sends a value nested past DynamoDB's limit, or a number that
// cannot be stored (not a number, out of range, too many digits), in h's
// request inside the "1 validation error detected: " envelope, as
// DynamoDB's PutItem, UpdateItem and DeleteItem do wherever the value sits
// (paritysuite/dynamodb-conformance valueLayers, four regions); the other
// operations send the bare message.
func enveloped(h Handler) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		out, err := h(ctx, r)
		var ae *attr.Error
		if envelopedKind(err) && errors.As(err, &ae) {
			return nil, ddb.Errorf(ddb.ValidationException, "1 validation error detected: %s", ae.Msg)
		}
		return out, err
	}
}

// envelopedKind reports whether err is a value error enveloped sends inside
// the envelope.
func envelopedKind(err error) bool {
	for _, k := range []error{attr.ErrNesting, attr.ErrNotNumber, attr.ErrOverflow, attr.ErrUnderflow, attr.ErrPrecision} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
