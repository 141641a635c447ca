package ddbcontainer

import (
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// readOnlyBodies sends through next with each request's body hidden behind
// Read and Close. It is ddblocal's sdkhttp.ReadOnlyBodies (whose tests
// reproduce the race), repeated here because this module stays out of
// ddblocal's module graph: the SDK (smithy-go) closes a request's body once
// the response headers arrive, after which its body's WriteTo returns
// io.EOF as an error; net/http's check for bytes past Content-Length uses
// WriteTo when there is one, and when it runs after that close the
// transport closes the connection under the response. Read on a closed
// body gives (0, io.EOF), which the check takes as the end.
type readOnlyBodies struct{ next dynamodb.HTTPClient }

// readOnly returns c wrapped in readOnlyBodies, or c when it is already.
func readOnly(c dynamodb.HTTPClient) dynamodb.HTTPClient {
	if r, ok := c.(readOnlyBodies); ok {
		return r
	}
	return readOnlyBodies{c}
}

// sent is the copy of a request that Do sends and its body, in one
// allocation.
type sent struct {
	req  http.Request
	body readOnlyBody
}

func (r readOnlyBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return r.next.Do(req)
	}
	s := &sent{req: *req, body: readOnlyBody{req.Body}}
	s.req.Body = &s.body
	return r.next.Do(&s.req)
}

// readOnlyBody hides every method of its body but Read and Close.
type readOnlyBody struct{ rc io.ReadCloser }

func (b *readOnlyBody) Read(p []byte) (int, error) { return b.rc.Read(p) }
func (b *readOnlyBody) Close() error               { return b.rc.Close() }
