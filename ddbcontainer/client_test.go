package ddbcontainer

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// bodies is a test's own HTTP client: it sends through http.Client and
// keeps the bodies it is given.
type bodies struct {
	hc   *http.Client
	sent []io.ReadCloser
}

func (b *bodies) Do(req *http.Request) (*http.Response, error) {
	b.sent = append(b.sent, req.Body)
	return b.hc.Do(req)
}

// TestClientSendsReadOnlyBodies: Client's client sends through
// readOnlyBodies, over the SDK's HTTP client or over one of the caller's
// options, which it keeps; the body it sends has no WriteTo and reads the
// SDK's bytes. It needs no container: the endpoint is a stand-in answering
// ListTables.
func TestClientSendsReadOnlyBodies(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		io.WriteString(w, `{"TableNames":[]}`)
	}))
	defer srv.Close()

	c := newClient(srv.URL, nil)
	hc, ok := c.Options().HTTPClient.(readOnlyBodies)
	if _, sdk := hc.next.(*awshttp.BuildableClient); !ok || !sdk {
		t.Errorf("HTTPClient is %T over %T, want readOnlyBodies over the SDK's *BuildableClient", c.Options().HTTPClient, hc.next)
	}
	if readOnly(hc) != hc {
		t.Errorf("readOnly of a wrapped client wraps it again")
	}

	own := &bodies{hc: &http.Client{}}
	defer own.hc.CloseIdleConnections()
	c = newClient(srv.URL, []func(*dynamodb.Options){func(o *dynamodb.Options) { o.HTTPClient = own }})
	if _, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if len(own.sent) != 1 {
		t.Fatalf("the caller's HTTP client sent %d requests, want 1", len(own.sent))
	}
	if _, ok := own.sent[0].(io.WriterTo); ok || own.sent[0] == nil {
		t.Errorf("sent body %T, want one without WriteTo", own.sent[0])
	}
	if string(got) != "{}" {
		t.Errorf("the server read %q, want the SDK's ListTables body {}", got)
	}
}
