package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync"
	"testing"
	"time"
)

// earlyClosedBody is a request body as the AWS SDK sends one: closed by
// the SDK once the response headers arrive, after which Read and WriteTo
// answer (0, io.EOF). Asking it for more than its bytes waits for that
// close, to force the interleaving heavy load makes: net/http checks for
// bytes past Content-Length only after the SDK has closed the body.
type earlyClosedBody struct {
	r      *bytes.Reader
	closed chan struct{}
	once   sync.Once
}

func (b *earlyClosedBody) Read(p []byte) (int, error) {
	if b.r.Len() > 0 {
		return b.r.Read(p)
	}
	<-b.closed
	return 0, io.EOF
}

func (b *earlyClosedBody) WriteTo(w io.Writer) (int64, error) {
	if b.r.Len() > 0 {
		return b.r.WriteTo(w)
	}
	<-b.closed
	return 0, io.EOF
}

func (b *earlyClosedBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// TestReadOnlyBodiesSurviveEarlyClose: a request body the SDK closes
// before net/http has finished writing the request does not fail the
// write, so the transport keeps the connection while the response body
// is read. Without readOnlyBodies the write fails with EOF and the
// transport closes the connection under the response (the CLI then logged
// "use of closed network connection" and a CRC32 mismatch into its
// progress bar).
func TestReadOnlyBodiesSurviveEarlyClose(t *testing.T) {
	answer := bytes.Repeat([]byte("x"), 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			t.Errorf("server reading the request: %v", err)
		}
		w.Write(answer)
	}))
	defer srv.Close()
	client := readOnlyBodies{&http.Client{Transport: &http.Transport{}}}
	defer client.c.(*http.Client).CloseIdleConnections()
	for i := range 3 {
		wrote := make(chan error, 1)
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteRequest: func(info httptrace.WroteRequestInfo) { wrote <- info.Err },
		})
		body := &earlyClosedBody{r: bytes.NewReader([]byte(`{"TableName":"T"}`)), closed: make(chan struct{})}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = int64(body.r.Len())
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body.Close() // as the SDK does once Do returns
		select {
		case err := <-wrote:
			if err != nil {
				t.Errorf("request %d: writing it failed after the body was closed: %v", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("request %d: never finished writing", i)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(got) != len(answer) {
			t.Errorf("request %d: read %d of %d response bytes: %v", i, len(got), len(answer), err)
		}
	}
}

// TestClientSendsReadOnlyBodies: the subcommands' SDK client sends through
// readOnlyBodies.
func TestClientSendsReadOnlyBodies(t *testing.T) {
	e := &endpointFlags{endpoint: "http://127.0.0.1:8000", region: "us-east-1"}
	c, err := e.client(context.Background(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if hc, ok := c.Options().HTTPClient.(readOnlyBodies); !ok || hc.c == nil {
		t.Errorf("HTTPClient is %T, want readOnlyBodies over the SDK's client", c.Options().HTTPClient)
	}
}
