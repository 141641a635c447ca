package sdkhttp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
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
// is read. Without ReadOnly the write fails with EOF and the transport
// closes the connection under the response (the CLI then logged "use of
// closed network connection" and a CRC32 mismatch into its progress bar).
func TestReadOnlyBodiesSurviveEarlyClose(t *testing.T) {
	answer := bytes.Repeat([]byte("x"), 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			t.Errorf("server reading the request: %v", err)
		}
		w.Write(answer)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	client := ReadOnly(hc)
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

// seen is a Doer that keeps the request it is given.
type seen struct{ req *http.Request }

func (s *seen) Do(req *http.Request) (*http.Response, error) {
	s.req = req
	return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
}

// TestReadOnlyDo: a body is sent behind Read and Close on a copy of the
// request, reading and closing through to the caller's body; no body and
// http.NoBody are sent as they are; the caller's request is left as it was.
func TestReadOnlyDo(t *testing.T) {
	for _, tc := range []struct {
		name string
		body io.ReadCloser
	}{
		{"body", io.NopCloser(strings.NewReader("payload"))},
		{"no body", nil},
		{"NoBody", http.NoBody},
	} {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Body = tc.body
		var s seen
		if _, err := ReadOnly(&s).Do(req); err != nil {
			t.Fatal(err)
		}
		if req.Body != tc.body {
			t.Errorf("%s: the caller's request's body became %T", tc.name, req.Body)
		}
		if tc.body == nil || tc.body == http.NoBody {
			if s.req != req {
				t.Errorf("%s: sent a copy, want the request itself", tc.name)
			}
			continue
		}
		if s.req == req || s.req.URL != req.URL || s.req.Method != req.Method {
			t.Errorf("%s: sent %p %s %v, want a shallow copy of %p %s %v", tc.name, s.req, s.req.Method, s.req.URL, req, req.Method, req.URL)
		}
		if _, ok := s.req.Body.(io.WriterTo); ok {
			t.Errorf("%s: sent body %T has WriteTo", tc.name, s.req.Body)
		}
		if got, err := io.ReadAll(s.req.Body); string(got) != "payload" || err != nil || s.req.Body.Close() != nil {
			t.Errorf("%s: sent body reads %q, %v", tc.name, got, err)
		}
	}
}

// TestReadOnlyOnce: wrapping a wrapped client gives it back, so a client
// wrapped by a builder and again by its user wraps once.
func TestReadOnlyOnce(t *testing.T) {
	var s seen
	once := ReadOnly(&s)
	if twice := ReadOnly(once); twice != once {
		t.Errorf("ReadOnly(ReadOnly(c)) = %#v, want %#v", twice, once)
	}
	if r, ok := once.(ReadOnlyBodies); !ok || r.Next != Doer(&s) {
		t.Errorf("ReadOnly(c) = %#v, want ReadOnlyBodies{c}", once)
	}
}

// answered is a Doer that gives every request the same response.
type answered struct{ resp *http.Response }

func (a answered) Do(*http.Request) (*http.Response, error) { return a.resp, nil }

// BenchmarkReadOnlyDo is what the wrapper adds to one request.
func BenchmarkReadOnlyDo(b *testing.B) {
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", io.NopCloser(strings.NewReader("{}")))
	if err != nil {
		b.Fatal(err)
	}
	c := ReadOnly(answered{&http.Response{StatusCode: 200, Body: http.NoBody}})
	b.ReportAllocs()
	for b.Loop() {
		c.Do(req)
	}
}
