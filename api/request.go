package api

import (
	"context"

	"github.com/ddblocal/ddblocal/access"
	"github.com/ddblocal/ddblocal/api/internal/codec"
	"github.com/ddblocal/ddblocal/api/internal/validate"
)

// Request is one decoded DynamoDB call.
type Request struct {
	Operation string // from X-Amz-Target, e.g. "PutItem"
	Region    string // from the SigV4 credential scope
	Account   string // the caller's account (auth.DefaultAccount unless --credentials says otherwise)
	RequestID string // also sent back as x-amzn-RequestId
	Body      []byte // the JSON body, already decompressed

	vd *validate.Validator // the handler's rule cache; nil uses a private one
	fd *codec.Decoder      // the handler's decode plans; nil decodes with encoding/json only
}

// Decode unmarshals Body into v (a pointer to a JSON-tagged struct) and then
// validates it against its `ddb` struct tags, returning errors exactly as
// DynamoDB would: a *ddb.Error with code SerializationException for
// malformed JSON or a member of the wrong JSON type, ValidationException
// (all failed constraints in one message) for constraint failures, and
// attr's own errors unchanged for malformed attribute values. An empty Body
// decodes as {}.
func (r *Request) Decode(v any) error {
	if err := r.unmarshal(v); err != nil {
		return err
	}
	vd := r.vd
	if vd == nil {
		vd = new(validate.Validator)
	}
	if err := vd.ValidateBody(v, r.Body); err != nil {
		return newerConditionalOperator(v, newerReturnValues(v, err))
	}
	return nil
}

// unmarshal decodes Body into v, by the handler's decoder when there is one.
func (r *Request) unmarshal(v any) error {
	if r.fd != nil {
		return r.fd.Decode(r.Body, v)
	}
	return codec.Unmarshal(r.Body, v)
}

// Handler serves one operation. Its result is JSON-encoded as the response
// body (nil encodes as {}); its error is mapped to DynamoDB's wire error by
// the package's error table, anything that is not a DynamoDB error becoming
// a logged 500 InternalServerError.
type Handler func(ctx context.Context, r *Request) (any, error)

// Op adapts a typed service method into a Handler: it decodes and validates
// the request into a new In, calls fn with the request's scope (its
// account and region, see access.Scope), and returns fn's result.
func Op[In, Out any](fn func(ctx context.Context, region string, in *In) (*Out, error)) Handler {
	return opOrdered(fn, nil)
}

// opOrdered is Op for an operation whose answer to a request holding a
// value nested past DynamoDB's limit depends on what else is wrong with it
// (see deepError): order, when not nil, says what the service reports
// first for such a request.
func opOrdered[In, Out any](fn func(ctx context.Context, region string, in *In) (*Out, error), order deepOrder[In]) Handler {
	return func(ctx context.Context, r *Request) (any, error) {
		in := new(In)
		if err := r.Decode(in); err != nil {
			if order != nil {
				return nil, deepError(r, err, order)
			}
			return nil, err
		}
		out, err := fn(ctx, access.Scope(r.Account, r.Region), in)
		if err != nil {
			return nil, err
		}
		if out == nil {
			// A typed nil would encode as "null", which SDKs reject.
			return nil, nil
		}
		return out, nil
	}
}
