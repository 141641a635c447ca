package api

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// enveloped sends a value nested past DynamoDB's limit in h's request inside
// the "1 validation error detected: " envelope, as DynamoDB's PutItem,
// UpdateItem and DeleteItem do; BatchWriteItem and the transactions send
// the bare message.
func enveloped(h Handler) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		out, err := h(ctx, r)
		var ae *attr.Error
		if errors.Is(err, attr.ErrNesting) && errors.As(err, &ae) {
			return nil, ddb.Errorf(ddb.ValidationException, "1 validation error detected: %s", ae.Msg)
		}
		return out, err
	}
}
