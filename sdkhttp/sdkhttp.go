// Package sdkhttp keeps an AWS SDK client's connections alive when the SDK
// closes a request body early.
//
// The SDK (smithy-go, up to v1.28.9 at least) closes a request's body as
// soon as the response headers arrive, and its body wrapper's WriteTo then
// returns io.EOF as an error. net/http, once it has sent the Content-Length
// bytes, checks for more with io.Copy, which uses WriteTo when there is
// one. Under load that check can run after the SDK's close: the write
// "fails" with EOF and the transport closes the connection while the SDK
// still drains the response, which logs two warnings (connection reuse, a
// short CRC32) or fails the call with a retried "use of closed network
// connection". A closed body read through Read gives (0, io.EOF), which
// io.Copy takes as the end: so ReadOnly sends bodies that only Read and
// Close.
//
// Set it on a client after the SDK has resolved its own HTTP client, so
// that the SDK's defaults (timeouts) stay:
//
//	dynamodb.New(opts, func(o *dynamodb.Options) { o.HTTPClient = sdkhttp.ReadOnly(o.HTTPClient) })
package sdkhttp

import (
	"io"
	"net/http"
)

// Doer sends a request: every SDK service's HTTPClient.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// ReadOnly returns c sending each request's body with only Read and Close,
// or c itself when it does that already.
func ReadOnly(c Doer) Doer {
	if r, ok := c.(ReadOnlyBodies); ok {
		return r
	}
	return ReadOnlyBodies{Next: c}
}

// ReadOnlyBodies sends through Next with each request's body hidden
// behind Read and Close (see the package comment).
type ReadOnlyBodies struct{ Next Doer }

// sent is the copy of a request that Do sends and its body, in one
// allocation.
type sent struct {
	req  http.Request
	body readOnlyBody
}

// Do sends a shallow copy of req (the caller's request is its own) whose
// body is req.Body behind Read and Close.
func (r ReadOnlyBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return r.Next.Do(req)
	}
	s := &sent{req: *req, body: readOnlyBody{req.Body}}
	s.req.Body = &s.body
	return r.Next.Do(&s.req)
}

// readOnlyBody hides every method of its body but Read and Close.
type readOnlyBody struct{ rc io.ReadCloser }

func (b *readOnlyBody) Read(p []byte) (int, error) { return b.rc.Read(p) }
func (b *readOnlyBody) Close() error               { return b.rc.Close() }
