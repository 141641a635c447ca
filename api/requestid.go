package api

import (
	"context"
	"crypto/rand"
)

// newRequestID returns a 52-character upper-case alphanumeric id, the shape
// of DynamoDB's x-amzn-RequestId.
func newRequestID() string {
	return rand.Text() + rand.Text()
}

// ctxKey keys the request id in a request's context.
type ctxKey struct{}

// withRequestID stores id in ctx.
func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// RequestID returns the x-amzn-RequestId of the request ctx belongs to, or
// "" outside a request served by NewHandler. Handlers use it to tie their
// logs to the client's view.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}
